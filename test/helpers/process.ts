/**
 * Run the server as a real child process (tsx source or the bundle) and wait for its
 * `listening on` line, as an operator would see it. The helpers are shared with the bench and
 * the soak (scripts/processes.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, spawnServer as spawnServerProcess, type ServerProcess } from '../../scripts/processes.ts';
import { stagedBundle } from './staged-bundle.ts';
import type { CommandOutput } from '../../src/shared/command-output.ts';

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

/** What a command said: its exit status and its two outputs, a line for each line it wrote. */
export interface Said {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * A command run in-process through its `run(argv, io)` (the keys command, the build, import:legacy),
 * what it writes caught as a process of it would print it: at once for a status, or once a promised
 * one settles.
 */
export function caught(run: (io: CommandOutput) => number): Said;
export function caught(run: (io: CommandOutput) => Promise<number>): Promise<Said>;
export function caught(run: (io: CommandOutput) => Promise<number> | number): Promise<Said> | Said;
export function caught(run: (io: CommandOutput) => Promise<number> | number): Promise<Said> | Said {
  let stdout = '';
  let stderr = '';
  const status = run({ out: (text) => (stdout += `${text}\n`), err: (text) => (stderr += `${text}\n`) });
  const said = (code: number): Said => ({ status: code, stdout, stderr });
  return typeof status === 'number' ? said(status) : status.then(said);
}
