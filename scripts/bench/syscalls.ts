/**
 * What a process asked of the kernel while a load ran, from the kernel's own counters (`perf
 * stat` on tracepoints, Debian's linux-perf): its system calls, its event-loop waits
 * (`epoll_pwait`, one an event-loop iteration) and its context switches. Counted, not sampled,
 * and cheap for the process counted (no ptrace, as strace has), so a load's figures a request
 * hold where its CPU time swings. Machines whose kernel gives no tracepoints (some VMs) say so.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './processes.ts';

/** What is counted, by the name it is printed under. */
export const KERNEL_EVENTS = {
  'system calls': 'raw_syscalls:sys_enter',
  'loop waits': 'syscalls:sys_enter_epoll_pwait',
  'context switches': 'context-switches',
} as const;

export type KernelCounts = Record<keyof typeof KERNEL_EVENTS, number>;

const COUNTED = Object.keys(KERNEL_EVENTS) as (keyof KernelCounts)[];

/** How long perf is given to attach before the load starts: it counts nothing of an idle server meanwhile. */
const ATTACH_MS = 300;

/** Why the counts cannot be had here, or null. */
export function kernelCountsProblem(): string | null {
  try {
    execFileSync('perf', ['stat', '-x', ',', '-e', Object.values(KERNEL_EVENTS).join(','), 'true'], {
      stdio: 'ignore',
    });
    return null;
  } catch {
    return "the kernel's counts need perf with tracepoints (apt-get install linux-perf; run as root)";
  }
}

/** Run `load` (synchronous: wrk) while perf counts `pid`'s events; its result and the counts. */
export async function countedDuring<T>(pid: number, load: () => T): Promise<{ result: T; counts: KernelCounts }> {
  const dir = mkdtempSync(join(tmpdir(), 'kernel-counts-'));
  const file = join(dir, 'stat.csv');
  const events = Object.values(KERNEL_EVENTS);
  const perf = spawn('perf', ['stat', '-x', ',', '-e', events.join(','), '-p', String(pid), '-o', file], {
    stdio: 'ignore',
  });
  // Settled however perf ends (a failed start included), so the load is never waited for in vain.
  const exited = new Promise<void>((resolve) => {
    perf.once('close', () => resolve());
    perf.once('error', () => resolve());
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, ATTACH_MS));
    const result = load();
    perf.kill('SIGINT');
    await exited;
    return { result, counts: parsePerfStat(readFileSync(file, 'utf8')) };
  } finally {
    perf.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** perf stat's CSV (`-x ,`: count, unit, event, ...) as the counts of KERNEL_EVENTS; a missing one is NaN. */
export function parsePerfStat(csv: string): KernelCounts {
  const byEvent = new Map<string, number>();
  for (const line of csv.split('\n')) {
    const [count, , event] = line.split(',');
    if (event !== undefined && /^\d+$/.test(count ?? '')) byEvent.set(event, Number(count));
  }
  return countsOf((name) => byEvent.get(KERNEL_EVENTS[name]) ?? Number.NaN);
}

/** The kernel's counts a request, as printed: `2.310 system calls, ...`. */
export function kernelText(counts: KernelCounts): string {
  return COUNTED.map((name) => `${counts[name].toFixed(3)} ${name}`).join(', ');
}

/** Counts divided by the requests they were made for. */
export function perRequest(counts: KernelCounts, requests: number): KernelCounts {
  return countsOf((name) => counts[name] / requests);
}

/** The median of each count over the loads. */
export function medianCounts(loads: KernelCounts[]): KernelCounts {
  return countsOf((name) => median(loads.map((load) => load[name])));
}

function countsOf(count: (name: keyof KernelCounts) => number): KernelCounts {
  return Object.fromEntries(COUNTED.map((name) => [name, count(name)])) as KernelCounts;
}
