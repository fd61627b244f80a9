/**
 * The bench's child processes: our server timed to its first answer, the median start-up, peak
 * memory, and a register of every child so a failure anywhere still stops them all.
 */
import { type ChildProcess } from 'node:child_process';
import { residentBytes } from '../attackers.ts';
import { spawnServer, stopProcess } from '../processes.ts';

export const STARTUP_RUNS = 7;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Peak resident set size (VmHWM) of a process, in MB. */
export function peakRssMb(pid: number): number {
  return (residentBytes(pid, 'VmHWM') ?? 0) / 1024 / 1024;
}

export interface Started {
  child: ChildProcess;
  port: number;
  /** Milliseconds from spawn to the first 200 answer. */
  startupMs: number;
}

const START_TIMEOUT_MS = 30_000;

export async function firstAnswer(
  port: number,
  path: string,
  headers: Record<string, string>,
  since: number,
  child: ChildProcess,
): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}`);
    if (performance.now() - since > START_TIMEOUT_MS)
      throw new Error(`no 200 from port ${port}${path} within ${START_TIMEOUT_MS} ms`);
    try {
      const reply = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
      await reply.arrayBuffer();
      if (reply.status === 200) return performance.now() - since;
    } catch {
      // not listening yet
    }
    await sleep(2);
  }
}

/** Every process the bench started, with the signal that stops it, so a failure anywhere still stops them all. */
const children = new Map<ChildProcess, NodeJS.Signals>();

/**
 * `signal` is what `killAll` sends: SIGKILL unless the process must pass the stop on (nginx's
 * master stops its workers on SIGTERM; killed outright, it leaves them serving after the bench).
 */
export function track<T extends ChildProcess>(child: T, signal: NodeJS.Signals = 'SIGKILL'): T {
  children.set(child, signal);
  child.once('exit', () => children.delete(child));
  return child;
}

export function killAll(): void {
  for (const [child, signal] of children) child.kill(signal);
}

/** The body cache the comparison gives our server unless told otherwise: small, so detail pages miss. */
export const BENCH_CACHE_MB = 16;

export interface ServerStart {
  bundlePath: string;
  snapshot: string;
  state: string;
  /** A request that answers 200 once the server is ready. */
  probe: { path: string; key: string };
  /** Megabytes of body cache, or null for the server's own default. */
  cacheMb?: number | null;
  extra?: string[];
}

/** Our server on a port of its choosing (port 0), timed from spawn to its first 200. */
export async function startServer({
  bundlePath,
  snapshot,
  state,
  probe,
  cacheMb = BENCH_CACHE_MB,
  extra = [],
}: ServerStart): Promise<Started> {
  const since = performance.now();
  const cache = cacheMb === null ? [] : ['--cache-mb', String(cacheMb)];
  const server = await spawnServer(
    [
      '--port',
      '0',
      '--snapshot',
      snapshot,
      '--state',
      state,
      '--quota-free',
      '1000000000',
      '--quota-pro',
      '1000000000',
      ...cache,
      '--quiet',
      ...extra,
    ],
    [bundlePath],
    START_TIMEOUT_MS,
  );
  track(server.child);
  const startupMs = await firstAnswer(server.port, probe.path, { 'x-api-key': probe.key }, since, server.child);
  return { child: server.child, port: server.port, startupMs };
}

/** Start-up varies from one spawn to the next: the median of several starts. */
export async function medianStartup(start: () => Promise<Started>, runs = STARTUP_RUNS): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = await start();
    times.push(started.startupMs);
    await stop(started.child);
  }
  return median(times);
}

/** The middle value (the lower middle of an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

export const stop = (child: ChildProcess) => stopProcess(child);
