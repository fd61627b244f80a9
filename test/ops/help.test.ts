/**
 * The server, npm start, the keys command and the build answer --version, and the bundled server
 * --help and --version. Every npm command's --help, through npm, is run by test/ops/readme.test.ts,
 * which checks the documented commands' flags against it (each ran twice when both files did).
 */
import { execFile } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PACKAGE_VERSION, ROOT } from '../helpers/process.ts';

/** A hang guard, not a performance bound: five runs at once on a busy machine stay far under it. */
const HANG_GUARD_MS = 5 * 60_000;

type Ran = { code: number; stdout: string; stderr: string };

/** `command args` in the checkout: its exit status and output (a run past the hang guard is killed, and says so). */
function runIn(command: string, args: string[]): Promise<Ran> {
  return new Promise((resolve) =>
    execFile(command, args, { cwd: ROOT, timeout: HANG_GUARD_MS }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr: error?.killed ? `${stderr}\nkilled after ${HANG_GUARD_MS / 60_000} min (a hang guard)` : stderr }),
    ),
  );
}

/** A program of the checkout through tsx, as npm's script runs it, without npm. */
const tsxRun = (file: string, ...args: string[]) => runIn(process.execPath, ['--import', 'tsx', file, ...args]);

const help = suite('--version and --help');

help('should print the version line and exit 0 for the server, npm start, the keys command and the build', async () => {
  // The programs npm runs for them (test/ops/readme.test.ts runs each through npm; once is enough).
  const files: Record<string, string> = { start: 'scripts/start.ts', keys: 'scripts/keys.ts', build: 'build/main.ts' };
  const scripts = Object.keys(files);
  const runs = await Promise.all(scripts.map((script) => tsxRun(files[script]!, '--version')));
  runs.forEach((run, i) => {
    assert.is(run.code, 0, `${scripts[i]}: ${run.stderr}`);
    assert.match(run.stdout, new RegExp(`^benchmark-data-api ${PACKAGE_VERSION.replaceAll('.', '\\.')} \\(snapshot format \\d+`), scripts[i]);
  });
  assert.match(runs[0]!.stdout, /keys file format \d+, admin tokens format \d+, quota counts format \d+\)\n$/);
});

help('should print the bundled server\'s usage and version, exiting 0', async () => {
  const [usage, version] = await Promise.all([tsxRun('src/bin.ts', '--help'), tsxRun('src/bin.ts', '--version')]);
  assert.equal([usage.code, version.code], [0, 0]);
  assert.match(usage.stdout, /^usage: node dist\/server\.mjs/);
  assert.match(usage.stdout, /\n {2}--version +the version, and the format of each file it reads and writes\n$/);
  assert.match(version.stdout, /^benchmark-data-api \d+\.\d+\.\d+ \(snapshot format \d+, keys file format \d+/);
});

help.run();
