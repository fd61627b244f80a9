/**
 * `npm test`: type-check, then run every `test/**\/*.test.ts` file with uvu, a few at a time:
 * the unit files (test/unit/, pure functions and in-process objects) all in one process, as
 * `npm run test:unit` runs them (scripts/test-unit.ts), and every other file (the black-box
 * ones: real servers on loopback, child processes, builds) in a process of its own, so a crash
 * or hang in one cannot take the others down. The last line is always `N passed, N failed`,
 * the type check counting as one test, with `, N skipped` after it when a test could not run
 * here (it says why in its output).
 *
 * `npm test -- PATTERN` runs only the test files whose path contains PATTERN.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const UNIT_DIR = join(ROOT, 'test/unit/');
/**
 * A hang guard, not a performance check: a file (or the unit run) still going after this long
 * is stuck, and is killed and counted as failed. Far above what any file takes on a busy
 * machine; how fast things are is for `npm run bench` and `npm run soak`, not for this.
 */
const FILE_TIMEOUT_MS = 10 * 60_000;

interface Outcome {
  passed: number;
  failed: number;
  skipped: number;
  output: string;
}

function findTests(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? findTests(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : []))
    .sort();
}

function run(command: string, args: string[]): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}

/** uvu ends its report with `Total: N` and `Passed: N`; anything else (a crash) is a failure. */
function parseUvu(output: string, code: number | null, timedOut: boolean): Omit<Outcome, 'output'> {
  const total = Number(/Total:\s+(\d+)/.exec(output)?.[1] ?? NaN);
  const passed = Number(/Passed:\s+(\d+)/.exec(output)?.[1] ?? NaN);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(output)?.[1] ?? 0);
  if (timedOut || Number.isNaN(total) || Number.isNaN(passed)) return { passed: Number.isNaN(passed) ? 0 : passed, failed: 1, skipped: 0 };
  const failed = total - passed; // uvu counts skipped tests outside its total
  return { passed, failed: code !== 0 && failed === 0 ? 1 : failed, skipped };
}

async function typeCheck(): Promise<Outcome> {
  const { code, output } = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', ROOT]);
  return { passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, skipped: 0, output: code === 0 ? 'type check: ok\n' : `type check failed:\n${output}` };
}

/** One uvu process: a test file, or scripts/test-unit.ts with the unit files. */
async function uvuProcess(label: string, args: string[]): Promise<Outcome> {
  const started = performance.now();
  const { code, output, timedOut } = await run(process.execPath, ['--import', 'tsx', ...args]);
  const outcome = parseUvu(output, code, timedOut);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const skipped = outcome.skipped ? `, ${outcome.skipped} skipped` : '';
  const status = timedOut ? `HUNG: killed after ${FILE_TIMEOUT_MS / 60_000} min (the hang guard)` : `${outcome.passed} passed, ${outcome.failed} failed${skipped}, ${seconds} s`;
  const reasons = outcome.skipped ? output.split('\n').filter((line) => line.startsWith('skipped: ')).map((line) => `  ${line}\n`).join('') : '';
  const show = outcome.failed > 0 ? output : reasons;
  return { ...outcome, output: `${label}: ${status}\n${show}` };
}

async function main(): Promise<void> {
  const pattern = process.argv[2];
  const files = findTests(join(ROOT, 'test')).filter((f) => !pattern || f.includes(pattern));
  const unit = files.filter((f) => f.startsWith(UNIT_DIR));
  const jobs: (() => Promise<Outcome>)[] = [];
  if (unit.length) jobs.push(() => uvuProcess(`test/unit (${unit.length} file${unit.length === 1 ? '' : 's'} in one process)`, ['scripts/test-unit.ts', ...unit]));
  for (const file of files.filter((f) => !f.startsWith(UNIT_DIR))) jobs.push(() => uvuProcess(relative(ROOT, file), [file]));
  const results: Outcome[] = [];
  const tsc = typeCheck().then((r) => {
    process.stdout.write(r.output);
    results.push(r);
  });
  const workers = Array.from({ length: Math.max(2, availableParallelism()) }, async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) {
      const outcome = await job();
      process.stdout.write(outcome.output);
      results.push(outcome);
    }
  });
  await Promise.all([tsc, ...workers]);
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  const skipped = results.reduce((n, r) => n + r.skipped, 0);
  process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}

await main();
