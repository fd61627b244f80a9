/**
 * A state folder at scale, shared by the scale benches and the soak: many keys (keys.json) and
 * many open quota windows (quota.json). Keys are written in keys.json format 1 by this one
 * function only, so when the key store's format moves on, format 1 (its upgrade path) is what
 * every scale run reads, and one place says so. Windows go through QuotaBook itself, so
 * quota.json is exactly what a server that counted those requests would leave.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { QuotaBook } from '../src/quota/book.ts';
import { settled } from '../src/quota/counter.ts';

const TIERS = ['free', 'pro', 'commercial'] as const;

/** The i-th seeded key's id: unique, in the file's pattern (the benches revoke some by it). */
export const scaleKeyId = (i: number) => `key_${i.toString(16).padStart(12, '0')}`;

/** The i-th seeded window's quota scope; its key need not exist (windows outlive keys). */
export const scaleWindowScope = (i: number) => `user:org${i % 997}/user-${i}`;

/** The state folder as a server makes it: private to its user. */
function privateDir(stateDir: string): void {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  chmodSync(stateDir, 0o700);
}

/** `n` valid records in keys.json format 1, as the keys command wrote them (a tenth revoked). */
function keysFormat1(n: number): string {
  const keys = [];
  for (let i = 0; i < n; i++) {
    const tier = TIERS[i % 3]!;
    const user = i % 2 === 0 ? `user-${i}` : null;
    keys.push({
      id: scaleKeyId(i),
      // Random hashes: no plain value exists, so no seeded key can be used, only revoked by id.
      hash: randomBytes(32).toString('hex'),
      tier,
      org: `org${i % 997}`,
      user,
      scope: user === null ? 'org' : 'user',
      quota: tier === 'commercial' && i % 4 === 0 ? 50_000 : null,
      grants: tier === 'commercial' ? ['anvil-hosting', 'bastion-serve'] : [],
      critpt: tier === 'commercial',
      created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      revoked_at: i % 10 === 9 ? new Date(Date.UTC(2026, 5, 1) + i * 1000).toISOString() : null,
    });
  }
  return `${JSON.stringify({ format: 1, keys }, null, 2)}\n`;
}

/** Write `stateDir`/keys.json (mode 0600) with `n` keys in format 1, replacing any there. */
export function writeScaleKeys(stateDir: string, n: number): void {
  privateDir(stateDir);
  writeFileSync(join(stateDir, 'keys.json'), keysFormat1(n), { mode: 0o600 });
}

/** Windows counted a batch at a time, each batch made durable before the next (as under load). */
const WINDOWS_A_BATCH = 1000;

/**
 * Count one request for each of `n` scopes through a QuotaBook on `stateDir`, then close it, so
 * quota.json holds `n` open windows (plus whatever the folder held) and no journal lines.
 */
export async function writeScaleWindows(stateDir: string, n: number): Promise<void> {
  privateDir(stateDir);
  const book = QuotaBook.open({ stateDir, clock: { now: () => Date.now() }, log: () => {} });
  try {
    await countWindows(book, 0, n);
  } finally {
    book.close();
  }
}

/** Count one request for each scope from `from` to `from + n`, a batch a turn, each durable. */
export async function countWindows(book: QuotaBook, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i += WINDOWS_A_BATCH) {
    let last = null;
    for (let j = i; j < Math.min(i + WINDOWS_A_BATCH, from + n); j++) last = book.take('data', scaleWindowScope(j), 100).durable;
    if (last) await settled(last);
  }
}
