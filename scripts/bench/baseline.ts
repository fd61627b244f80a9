/**
 * A baseline: an earlier checkout of this repository (with its node_modules), bundled and built
 * by its own code from the same data/, then loaded in the same rounds as today's server, so a
 * before-and-after comparison is made on one machine in one hour. The bodies it serves are the
 * same bytes (test/sample-bodies.test.ts holds the build to that).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT } from '../processes.ts';
import { readKeysFile } from '../../src/keys/file-read.ts';
import { writeKeysFile } from '../../src/keys/file-append.ts';
import { ADDED_FIELDS, keysPath } from '../../src/keys/record.ts';

export interface Baseline {
  /** What the tables call it: the checkout's commit. */
  label: string;
  bundlePath: string;
  snapshotRoot: string;
  state: string;
}

/**
 * Bundle and build the checkout at `dir` into the bench's work folder; its state is a copy of
 * `state` (the same keys).
 */
export function stageBaseline(dir: string, work: string, state: string): Baseline {
  const checkout = resolve(dir);
  if (!existsSync(join(checkout, 'node_modules')))
    throw new Error(`--baseline ${dir}: no node_modules there (run npm install in it first)`);
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: checkout, encoding: 'utf8' }).trim();
  execFileSync('npm', ['run', '-s', 'bundle'], { cwd: checkout, stdio: 'ignore' });
  const snapshotRoot = join(work, 'baseline-snapshot');
  execFileSync(
    'npm',
    ['run', '-s', 'build', '--', '--data', join(ROOT, 'data'), '--out', snapshotRoot, '--force', '--quiet'],
    { cwd: checkout, stdio: 'ignore' },
  );
  const baselineState = join(work, 'baseline-state');
  cpSync(state, baselineState, { recursive: true });
  chmodSync(baselineState, 0o700);
  keysOfEarlierTimes(baselineState);
  console.log(`baseline ${commit} bundled and built from ${checkout}`);
  return { label: commit, bundlePath: join(checkout, 'dist', 'server.mjs'), snapshotRoot, state: baselineState };
}

/**
 * The baseline's copy of keys.json without the fields added since 0.2.0, which a server of before
 * refuses by name (CHANGELOG.md): the same keys, ids and hashes, as a checkout of any time reads
 * them. The bench's keys use none of the fields, so nothing the rounds measure changes.
 */
function keysOfEarlierTimes(stateDir: string): void {
  const path = keysPath(stateDir);
  const records = readKeysFile(path)?.records ?? [];
  const lines = records.map((record) => {
    const fields: Record<string, unknown> = { ...record };
    for (const field of ADDED_FIELDS) delete fields[field];
    return `${JSON.stringify(fields)}\n`;
  });
  writeKeysFile(path, lines, null, {});
}
