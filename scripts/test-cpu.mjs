/**
 * Preloaded (`--import`) into each process `npm test` runs (scripts/test-runs.ts): at exit it
 * writes the CPU time the process spent, its own and that of the children it waited for (the
 * servers, builds and Redis it started), on a line of stderr that the runner reads and removes.
 * The suite's time is CPU on a small machine; this says which files spend it.
 * Plain JavaScript: it runs before tsx, in the bundled files' plain node too.
 */
import { readFileSync } from 'node:fs';

/** Linux's clock tick for /proc's times: USER_HZ, 100 on every architecture Node runs on there. */
const TICKS_PER_SECOND = 100;

process.on('exit', () => {
  let children = 0;
  try {
    // The fields after the command's closing parenthesis start at the third (state): cutime and
    // cstime, the 16th and 17th, are the 14th and 15th of those.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ').at(-1).split(' ');
    children = (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
  } catch {
    return; // no /proc: no figure rather than half of one
  }
  const { user, system } = process.cpuUsage();
  process.stderr.write(`\ncpu-seconds: ${((user + system) / 1e6 + children).toFixed(1)}\n`);
});
