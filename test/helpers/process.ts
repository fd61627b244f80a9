/**
 * Run the server as a real child process (tsx source or the bundle) and wait for its
 * `listening on` line, as an operator would see it. The helpers are shared with the bench and
 * the soak (scripts/processes.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, spawnServer as spawnServerProcess, type ServerProcess } from '../../scripts/processes.ts';
import { stagedBundle } from './staged-bundle.ts';

export { ROOT, stopProcess, type ServerProcess } from '../../scripts/processes.ts';

/** The version package.json gives: what --version, /readyz and /metrics must say. */
export const PACKAGE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

/**
 * How long a test waits for the `listening on` line by default: a hang guard, not a performance
 * bound (a start takes a second or two; a busy machine may make that many times longer).
 */
export const START_GUARD_MS = 120_000;

/**
 * scripts/processes.ts's spawnServer, with the tests' hang guard as its default wait. Without an
 * `entry` the server runs from the run's staged bundle (dist/server.mjs, as production runs it):
 * a start there costs 0.25 s of CPU, through tsx 1.2 s, and the suite starts some twenty. The
 * source through tsx is started by test/ops/start.test.ts (npm start) and test/ops/help.test.ts.
 */
export async function spawnServer(
  args: string[],
  entry?: string[],
  timeoutMs = START_GUARD_MS,
  runAs?: readonly string[],
): Promise<ServerProcess> {
  return spawnServerProcess(args, entry ?? [(await stagedBundle()).server], timeoutMs, runAs);
}
