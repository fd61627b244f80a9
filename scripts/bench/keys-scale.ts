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
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyStore } from '../../src/keys/store.ts';
import { holdYoungGeneration } from '../../src/lib/heap.ts';
import { scaleKeyId, writeScaleKeys } from '../scale-state.ts';

const ms = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;
const rssMb = () => Math.round(process.memoryUsage().rss / 1e6);

function child(step: string, dir: string, n: number): void {
  if (step === 'write') {
    writeScaleKeys(dir, n);
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
        revoke_ms: keysCommand(dir, 'revoke', scaleKeyId(i * 10)),
        create_ms: keysCommand(dir, 'create', '--tier', 'pro', '--org', 'acme', '--user', `bench-${i}`),
      };
      console.log(`${n} keys, keys command: ${JSON.stringify(figures)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
