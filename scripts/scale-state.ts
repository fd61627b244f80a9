/**
 * A state folder at scale, shared by the scale benches and the soak: many keys (keys.json) and
 * many open quota windows (quota.json). Keys are written as the keys command writes them
 * (format 2, through its own writer), or in format 1 as earlier versions did (the upgrade path).
 * Windows go through FileQuota itself, so quota.json is exactly what a server that counted
 * those requests would leave.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeKeysFile } from '../src/keys/file-append.ts';
import type { KeyRecord } from '../src/state/key-record.ts';
import { FileQuota } from '../src/quota/file-quota.ts';
import { settled } from '../src/state/quota-counter.ts';

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

/** `n` valid records, as the keys command makes them (a tenth revoked). */
function scaleRecords(n: number): KeyRecord[] {
  const keys: KeyRecord[] = [];
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
      name: i % 5 === 0 ? `integration ${i}` : null,
      expires_at: null,
      prefix: null,
      last4: null,
      previous: null,
    });
  }
  return keys;
}

/**
 * Write `stateDir`/keys.json (mode 0600) with `n` keys, replacing any there: in format 2 as the
 * keys command writes it, or format 1 as earlier versions did.
 */
export function writeScaleKeys(stateDir: string, n: number, format: 1 | 2 = 2): void {
  privateDir(stateDir);
  const path = join(stateDir, 'keys.json');
  if (format === 2) writeKeysFile(path, scaleRecords(n), null, {});
  else writeFileSync(path, `${JSON.stringify({ format: 1, keys: scaleRecords(n) }, null, 2)}\n`, { mode: 0o600 });
}

/** Windows counted a batch at a time, each batch made durable before the next (as under load). */
const WINDOWS_A_BATCH = 1000;

/**
 * Count one request for each of `n` scopes through a FileQuota on `stateDir`, then close it, so
 * quota.json holds `n` open windows (plus whatever the folder held) and no journal lines.
 */
export async function writeScaleWindows(stateDir: string, n: number): Promise<void> {
  privateDir(stateDir);
  const book = FileQuota.open({ stateDir, clock: { now: () => Date.now() }, log: () => {} });
  try {
    await countWindows(book, 0, n);
  } finally {
    book.close();
  }
}

/** Count one request for each scope from `from` to `from + n`, a batch a turn, each durable. */
export async function countWindows(book: FileQuota, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i += WINDOWS_A_BATCH) {
    let last = null;
    for (let j = i; j < Math.min(i + WINDOWS_A_BATCH, from + n); j++)
      last = book.take('data', scaleWindowScope(j), 100).durable;
    if (last) await settled(last);
  }
}
