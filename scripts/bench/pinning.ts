/**
 * Where the bench's processes run (taskset, util-linux).
 *
 * `npm run bench -- --pin`: the load generator on one core and every server on another, for a
 * machine with two cores. Unpinned, wrk, the server under load and its helper threads
 * (collection, libuv) take turns on both cores as the scheduler places them; pinned, a server's
 * helper threads share its own core, so what they cost is charged to it, and wrk never takes
 * turns from the server. It does not make a shared machine steady: in the pinned run of
 * 2026-11-26 the floor still read 14,985 to 22,409 rps on the list page at c=16
 * (bench/analysis.md, "The run above"). Redis goes on the servers' core: it shares the machine
 * with the server, as it does unpinned, and is not given the load generator's idle time.
 *
 * Redis apart (`redisApart`): Redis alone on one core, the servers and wrk on the others, as a
 * Redis that several servers share runs on a host of its own.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Where wrk (`load`) and the servers (`servers`) run, as taskset core lists (`1`, `0,2-3`). */
export interface Placement {
  load: string;
  servers: string;
}

/** --pin's placement: wrk on core 0, every server on core 1. */
export const PINNED: Placement = { load: '0', servers: '1' };

/** Why processes cannot be placed on cores here, or null. */
export function pinningProblem(): string | null {
  if (availableParallelism() < 2) return 'placing processes on cores needs two cores';
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'placing processes on cores needs taskset (apt-get install util-linux)';
  }
}

/** Keep a running process, every thread of it (and so every thread it starts later), on `cores`. */
export function pinTo(pid: number, cores: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
}

/** Keep a running server on the placement's servers' cores; anywhere without a placement. */
export function placeServer(placement: Placement | undefined, pid: number): void {
  if (placement) pinTo(pid, placement.servers);
}

/** The command and arguments that run `command` on `cores` (a taskset list). */
export function onCores(cores: string, command: string, args: string[]): [string, string[]] {
  return ['taskset', ['-c', cores, command, ...args]];
}

/** The command and arguments that run `command` on `cores` when given, anywhere otherwise. */
export function placed(cores: string | undefined, command: string, args: string[]): [string, string[]] {
  return cores === undefined ? [command, args] : onCores(cores, command, args);
}

/** Every core but `core`, as a taskset list; null when it is not one of this machine's or none is left. */
export function coresBut(core: number): string | null {
  const count = availableParallelism();
  if (!Number.isInteger(core) || core < 0 || core >= count || count < 2) return null;
  return Array.from({ length: count }, (_, i) => i)
    .filter((i) => i !== core)
    .join(',');
}

/** Redis alone on `core`, and wrk and the servers together on every other core. */
export interface RedisApart {
  redis: string;
  rest: Placement;
}

/** Redis apart on `core` (the machine's last by default), or why it cannot be here. */
export function redisApart(core = availableParallelism() - 1): RedisApart | string {
  const problem = pinningProblem();
  if (problem) return problem;
  const others = coresBut(core);
  if (others === null) return `core ${core} is not one of this machine's ${availableParallelism()}`;
  return { redis: String(core), rest: { load: others, servers: others } };
}
