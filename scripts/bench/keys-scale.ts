/**
 * The state folder's key store at scale: `npx tsx scripts/bench/keys-scale.ts [KEYS]` (default
 * 100,000 keys, keys.json about 25 MB). Each figure is taken in a process of its own:
 * - open: KeyStore.open, as the bundled server's start does (its young generation held), and the RSS after it;
 * - reread: one check after the file changed, what the next keyed request waits today, and the RSS after it;
 * - revoke / create: the keys command as the operator runs it (scripts/keys.ts under tsx), wall
 *   time from spawn to exit; `help` is the same command doing nothing, its start-up alone.
 * `npx tsx scripts/bench/keys-scale.ts KEYS write DIR` only writes such a keys.json (to profile with).
 * Only the store's public interface and the command are used, so the same script measures any
 * commit (copy it into that checkout).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyStore } from '../../src/keys/store.ts';
import { holdYoungGeneration } from '../../src/lib/heap.ts';

const ms = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;
const rssMb = () => Math.round(process.memoryUsage().rss / 1e6);
const TIERS = ['free', 'pro', 'commercial'] as const;

/** The i-th key's id: unique, in the file's pattern. */
const idOf = (i: number) => `key_${i.toString(16).padStart(12, '0')}`;

/** `n` valid records in the file's format, as the keys command writes them (a tenth revoked). */
function keysFile(n: number): string {
  const keys = [];
  for (let i = 0; i < n; i++) {
    const tier = TIERS[i % 3]!;
    const user = i % 2 === 0 ? `user-${i}` : null;
    keys.push({
      id: idOf(i),
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

function child(step: string, dir: string, n: number): void {
  if (step === 'write') {
    writeFileSync(join(dir, 'keys.json'), keysFile(n), { mode: 0o600 });
  } else if (step === 'open') {
    holdYoungGeneration(); // as the bundled server does (src/bin.ts): its RSS is the one that counts
    const t0 = process.hrtime.bigint();
    const store = KeyStore.open(dir);
    const open = ms(t0);
    const rss = rssMb();
    // A change the server has not read yet: the next check reads the whole file again.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'keys.json'), later, later);
    const t1 = process.hrtime.bigint();
    const problem = store.check();
    const reread = ms(t1);
    if (problem) throw problem;
    console.log(JSON.stringify({ open_ms: Math.round(open), rss_mb: rss, reread_ms: Math.round(reread), rss_after_reread_mb: rssMb() }));
  }
}

/** Wall time of one keys command, from spawn to exit. */
function keysCommand(dir: string, ...args: string[]): number {
  const t0 = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [...process.execArgv, 'scripts/keys.ts', ...args, '--state', dir], { encoding: 'utf8' });
  const took = ms(t0);
  if (result.status !== 0) throw new Error(`keys ${args.join(' ')}: ${result.stderr}`);
  return Math.round(took);
}

const n = Number(process.argv[2] ?? 100_000);
if (process.argv[3]) {
  child(process.argv[3], process.argv[4]!, n);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'keys-scale-'));
  try {
    child('write', dir, n);
    for (let i = 0; i < 3; i++) {
      const opened = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, String(n), 'open', dir], { encoding: 'utf8' });
      if (opened.status !== 0) throw new Error(`open: ${opened.stderr}`);
      console.log(`${n} keys, server: ${opened.stdout.trim()}`);
    }
    for (let i = 0; i < 3; i++) {
      const figures = {
        help_ms: keysCommand(dir, '--help'),
        revoke_ms: keysCommand(dir, 'revoke', idOf(i * 10)),
        create_ms: keysCommand(dir, 'create', '--tier', 'pro', '--org', 'acme', '--user', `bench-${i}`),
      };
      console.log(`${n} keys, keys command: ${JSON.stringify(figures)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
