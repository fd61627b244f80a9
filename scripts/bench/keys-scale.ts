/**
 * The state folder's key store at scale: `npx tsx scripts/bench/keys-scale.ts [KEYS]` (default
 * 100,000 keys; keys.json about 27 MB in format 2, 36 MB in format 1). Each server figure is
 * taken in a process of its own, its collector sized as the bundled server's (src/bin.ts):
 * - open: FileKeys.open of a format 2 file, and of a format 1 file (the upgrade path), with the RSS after it;
 * - change: the keys command (the bundle, dist/keys.mjs, as operators run it) revokes, creates
 *   and grants, while the process holds the store open: the command's wall time, and the
 *   store's next check, which is what the next keyed request waits;
 * - edit: one check after the file was touched in place, which reads it whole (for contrast);
 * - list: the keys command listing every key.
 * `npx tsx scripts/bench/keys-scale.ts KEYS write DIR [1|2]` only writes such a keys.json (to profile with).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileKeys } from '../../src/keys/file-keys.ts';
import { sizeCollector } from '../../src/lib/heap.ts';
import { bundle } from '../bundle.ts';
import { scaleKeyId, writeScaleKeys } from '../scale-state.ts';

const ms = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;
const rssMb = () => Math.round(process.memoryUsage().rss / 1e6);

/** Wall time of one keys command run from the bundle, from spawn to exit. */
function keysCommand(keysBundle: string, dir: string, ...args: string[]): number {
  const t0 = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [keysBundle, ...args, '--state', dir], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const took = ms(t0);
  if (result.status !== 0) throw new Error(`keys ${args.join(' ')}: ${result.stderr}`);
  return Math.round(took);
}

function server(dir: string, keysBundle: string, round: number): void {
  sizeCollector();
  const path = join(dir, 'keys.json');
  const t0 = process.hrtime.bigint();
  const store = FileKeys.open(dir);
  const figures: Record<string, number> = { open_ms: Math.round(ms(t0)), rss_mb: rssMb() };
  const check = () => {
    const t1 = process.hrtime.bigint();
    const problem = store.check();
    if (problem) throw problem;
    return Math.round(ms(t1) * 100) / 100;
  };
  const commercial = scaleKeyId(round * 30 + 2); // the scale state's third key of each three is commercial
  for (const [name, args] of [
    ['revoke', ['revoke', scaleKeyId(round * 30)]],
    ['create', ['create', '--tier', 'pro', '--org', 'acme', '--user', `bench-${round}`]],
    ['grant', ['grant', commercial, 'capstan-cloud', '--force']],
  ] as const) {
    figures[`${name}_command_ms`] = keysCommand(keysBundle, dir, ...args);
    figures[`${name}_next_check_ms`] = check();
  }
  figures.rss_after_changes_mb = rssMb();
  const later = new Date(statSync(path).mtimeMs + 60_000);
  utimesSync(path, later, later);
  figures.check_after_edit_in_place_ms = check();
  console.log(JSON.stringify(figures));
}

const n = Number(process.argv[2] ?? 100_000);
if (process.argv[3] === 'write') {
  writeScaleKeys(process.argv[4]!, n, process.argv[5] === '1' ? 1 : 2);
} else if (process.argv[3] === 'server') {
  server(process.argv[4]!, process.argv[5]!, Number(process.argv[6]));
} else {
  const work = mkdtempSync(join(tmpdir(), 'keys-scale-'));
  try {
    await bundle(work);
    const keysBundle = join(work, 'keys.mjs');
    for (const format of [2, 1] as const) {
      const dir = join(work, `state-${format}`);
      writeScaleKeys(dir, n, format);
      const size = (statSync(join(dir, 'keys.json')).size / 1e6).toFixed(1);
      // Format 1 is rewritten by the first change, so each of its rounds starts from a fresh copy.
      for (let round = 0; round < 3; round++) {
        if (format === 1 && round > 0) writeScaleKeys(dir, n, 1);
        const run = spawnSync(
          process.execPath,
          [...process.execArgv, process.argv[1]!, String(n), 'server', dir, keysBundle, String(round)],
          { encoding: 'utf8' },
        );
        if (run.status !== 0) throw new Error(`server: ${run.stderr}`);
        console.log(`${n} keys, format ${format} (${size} MB): ${run.stdout.trim()}`);
      }
      if (format === 2) {
        const timings = {
          help_ms: keysCommand(keysBundle, dir, '--help'),
          list_ms: keysCommand(keysBundle, dir, 'list'),
        };
        console.log(`${n} keys, keys command: ${JSON.stringify(timings)}`);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
