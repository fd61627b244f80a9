/**
 * `npm run bench -- --pin`: the load generator on one core and every server on another
 * (taskset, util-linux), for a machine with two cores. Unpinned, wrk, the server under load and
 * its helper threads (collection, libuv) take turns on both cores as the scheduler places them;
 * pinned, a server's helper threads share its own core, so what they cost is charged to it, and
 * wrk never takes turns from the server. It does not make a shared machine steady: in the
 * pinned run of 2026-11-26 the floor still read 14,985 to 22,409 rps on the list page at c=16
 * (bench/analysis.md, "The run above"). Redis goes on the servers' core: it shares the machine
 * with the server, as it does unpinned, and is not given the load generator's idle time.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

const LOAD_CORE = '0';
const SERVER_CORE = '1';

/** Why --pin cannot run here, or null. */
export function pinningProblem(): string | null {
  if (availableParallelism() < 2) return '--pin needs two cores';
  try {
    execFileSync('taskset', ['-c', LOAD_CORE, 'true'], { stdio: 'ignore' });
    return null;
  } catch {
    return '--pin needs taskset (apt-get install util-linux)';
  }
}

/** Keep a running process, every thread of it (and so every thread it starts later), on the servers' core. */
export function pinServer(pid: number): void {
  pinTo(pid, SERVER_CORE);
}

/** The command and arguments that run `command` on the load generator's core when `pin`. */
export function onLoadCore(pin: boolean, command: string, args: string[]): [string, string[]] {
  return pin ? onCores(LOAD_CORE, command, args) : [command, args];
}

/** Keep a running process, every thread of it, on `cores` (a taskset list: `1`, `0,2-3`). */
export function pinTo(pid: number, cores: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
}

/** The command and arguments that run `command` on `cores` (a taskset list). */
export function onCores(cores: string, command: string, args: string[]): [string, string[]] {
  return ['taskset', ['-c', cores, command, ...args]];
}

/** Every core but `core`, as a taskset list; null when it is not one of this machine's or none is left. */
export function coresBut(core: number): string | null {
  const count = availableParallelism();
  if (!Number.isInteger(core) || core < 0 || core >= count || count < 2) return null;
  return Array.from({ length: count }, (_, i) => i)
    .filter((i) => i !== core)
    .join(',');
}
