/**
 * Every command answers --help with its usage on stdout and exits 0, run as an operator runs
 * it: through npm.
 */
import { execFile } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../helpers/process.ts';

const SCRIPTS = ['build', 'start', 'keys', 'import:legacy', 'bench', 'soak', 'bundle', 'generate:sample', 'certs'];

/** A hang guard, not a performance bound: eight npm runs at once on a busy machine stay far under it. */
const HANG_GUARD_MS = 5 * 60_000;

function npmRun(script: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile('npm', ['run', '-s', script, '--', ...args], { cwd: ROOT, timeout: HANG_GUARD_MS }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr: error?.killed ? `${stderr}\nkilled after ${HANG_GUARD_MS / 60_000} min (a hang guard)` : stderr }),
    ),
  );
}

const help = suite('--help');

help('should print the usage and exit 0 for every npm command', async () => {
  const runs = await Promise.all(SCRIPTS.map((script) => npmRun(script, '--help')));
  runs.forEach((run, i) => {
    assert.is(run.code, 0, `${SCRIPTS[i]}: ${run.stderr}`);
    assert.match(run.stdout, /^usage: /, `${SCRIPTS[i]} prints its usage first`);
  });
});

help('should print the bundled server\'s usage and exit 0', async () => {
  const run = await new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile(process.execPath, ['--import', 'tsx', 'src/bin.ts', '--help'], { cwd: ROOT }, (error, stdout) => resolve({ code: error ? 1 : 0, stdout })),
  );
  assert.is(run.code, 0);
  assert.match(run.stdout, /^usage: node dist\/server\.mjs/);
});

help.run();
