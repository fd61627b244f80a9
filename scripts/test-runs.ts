/**
 * The processes of `npm test` (scripts/test.ts): each run with a hang guard, its output kept, and
 * stopped when the runner ends, however it ends; a uvu file's process read into its counts.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export const ROOT = new URL('..', import.meta.url).pathname;
/** Preloaded into each uvu process: reports the CPU it spent (see the file). */
const CPU_REPORT = new URL('test-cpu.mjs', import.meta.url).href;

/**
 * A hang guard, not a performance check: a file (or the unit run) still going after this long
 * is stuck, and is killed and counted as failed. Far above what any file takes on a busy
 * machine; how fast things are is for `npm run bench` and `npm run soak`, not for this.
 */
export const FILE_TIMEOUT_MS = 10 * 60_000;

export interface Outcome {
  passed: number;
  failed: number;
  skipped: number;
  output: string;
}

/** The test processes running now: stopped when the runner ends, however it ends. */
const children = new Set<ChildProcess>();
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));
// Interrupted: stop them and remove this run's temporary folders on the way out.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

/** The line scripts/test-cpu.mjs writes at a node process's exit. */
const CPU_LINE = /\ncpu-seconds: ([\d.]+)\n/;

/** The CPU seconds of the node processes this runner started, with their children's, as they reported them. */
export const cpuSpent = { seconds: 0 };

/** `12.3 s (20.1 s CPU)`: the time since `started`, and the CPU spent when it was reported. */
export function timeSpent(started: number, cpuSeconds: number | null): string {
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  return cpuSeconds === null ? `${seconds} s` : `${seconds} s (${cpuSeconds.toFixed(1)} s CPU)`;
}

/**
 * Run `command` in the repository, its output kept; killed, and `timedOut`, past the hang guard.
 * A node process (`command` this runner's own node) reports its CPU time (`cpuSeconds`).
 */
export function run(
  command: string,
  args: string[],
): Promise<{ code: number | null; output: string; timedOut: boolean; cpuSeconds: number | null }> {
  return new Promise((resolve) => {
    const preload = command === process.execPath ? ['--import', CPU_REPORT] : [];
    const child = spawn(command, [...preload, ...args], {
      cwd: ROOT,
      env: { ...process.env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      children.delete(child);
      clearTimeout(timer);
      const cpu = CPU_LINE.exec(output);
      if (cpu) cpuSpent.seconds += Number(cpu[1]);
      const cpuSeconds = cpu ? Number(cpu[1]) : null;
      resolve({ code, output: cpu ? output.replace(CPU_LINE, '\n') : output, timedOut, cpuSeconds });
    });
  });
}

/** uvu ends its report with `Total: N` and `Passed: N`; anything else (a crash) is a failure. */
function parseUvu(output: string, code: number | null, timedOut: boolean): Omit<Outcome, 'output'> {
  const total = Number(/Total:\s+(\d+)/.exec(output)?.[1] ?? NaN);
  const passed = Number(/Passed:\s+(\d+)/.exec(output)?.[1] ?? NaN);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(output)?.[1] ?? 0);
  if (timedOut || Number.isNaN(total) || Number.isNaN(passed))
    return { passed: Number.isNaN(passed) ? 0 : passed, failed: 1, skipped: 0 };
  const failed = total - passed; // uvu counts skipped tests outside its total
  return { passed, failed: code !== 0 && failed === 0 ? 1 : failed, skipped };
}

/** One uvu process (node with `nodeArgs`): a test file, or scripts/test-unit.ts with the unit files. */
export async function uvuProcess(label: string, nodeArgs: string[]): Promise<Outcome> {
  const started = performance.now();
  const { code, output, timedOut, cpuSeconds } = await run(process.execPath, nodeArgs);
  const outcome = parseUvu(output, code, timedOut);
  const skipped = outcome.skipped ? `, ${outcome.skipped} skipped` : '';
  const status = timedOut
    ? `HUNG: killed after ${FILE_TIMEOUT_MS / 60_000} min (the hang guard)`
    : `${outcome.passed} passed, ${outcome.failed} failed${skipped}, ${timeSpent(started, cpuSeconds)}`;
  const reasons = outcome.skipped
    ? output
        .split('\n')
        .filter((line) => line.startsWith('skipped: '))
        .map((line) => `  ${line}\n`)
        .join('')
    : '';
  const show = outcome.failed > 0 ? output : reasons;
  return { ...outcome, output: `${label}: ${status}\n${show}` };
}
