/**
 * The counting cost, measured apart from the scenarios: the Pro list page on our server counting,
 * on the same server with `--no-counting`, and on a twin of the first (counting, its own state
 * folder), in rounds of their own.
 *
 * Why apart, and why a twin: on this 2-core shared machine one wrk run's rps swings by 15-30%
 * from the next, for the same server (two identical counting servers, 30 alternated rounds of
 * 2 s: round ratios 0.65 to 1.38; over 10 rounds of 3 s their medians read 0.98 and 1.07 apart;
 * bench/analysis.md). That is more than the 5% the cost may take, so the cost gets three times
 * the scenarios' rounds, and the twin shows in the same rounds how far two identical servers
 * read apart: the run's own resolution, printed beside the cost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rateLimitFields } from '../../src/counting.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { QuotaBook } from '../../src/quota/book.ts';
import { median } from './processes.ts';
import type { CountingCost } from './results.ts';
import { roundRatio, runRounds, type Contender, type RoundOptions, type Summary } from './rounds.ts';

/** The counting cost's rounds for each of a scenario's, each half as long (countingSeconds): 3x the rounds for 1.5x the load. */
export const COUNTING_ROUNDS_FACTOR = 3;

/** Seconds of one counting-cost run, for the scenarios' run length. */
export const countingSeconds = (seconds: number) => Math.max(1, seconds / 2);

/**
 * Where the median of `values` lies with about 95% confidence, from the values alone: the order
 * statistics n/2 -+ 0.98 sqrt(n) (the sign test's interval, in its normal approximation). For
 * 15 rounds, the 4th and the 12th of the sorted values.
 */
export function medianInterval(values: number[]): [number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const k = Math.max(0, Math.floor(sorted.length / 2 - 0.98 * Math.sqrt(sorted.length)));
  return [sorted[k]!, sorted[sorted.length - 1 - k]!];
}

/** The cost of each round: 1 - (the two counting servers' mean rps) / the uncounted server's. */
export function roundCosts(counting: Summary, twin: Summary, off: Summary): number[] {
  return counting.rounds.map((load, i) => 1 - (load.rps + twin.rounds[i]!.rps) / 2 / off.rounds[i]!.rps);
}

export interface CountingServers {
  counting: Contender;
  twin: Contender;
  off: Contender;
}

/** Load the three in their own alternating rounds; the cost with its interval, and the uncounted server's summary (for the table). */
export function measureCountingCost(servers: CountingServers, options: RoundOptions): { cost: CountingCost; off: Summary } {
  const runs = runRounds([servers.counting, servers.off, servers.twin], { ...options, rounds: options.rounds * COUNTING_ROUNDS_FACTOR, seconds: countingSeconds(options.seconds) }, 'counting cost, Pro list page (br)');
  const [counting, off, twin] = [runs.get(servers.counting.name)!, runs.get(servers.off.name)!, runs.get(servers.twin.name)!];
  const costs = roundCosts(counting, twin, off);
  return {
    cost: {
      connections: options.connections,
      on: median([...counting.rounds, ...twin.rounds].map((l) => l.rps)),
      off: off.rps,
      cost: median(costs),
      interval: medianInterval(costs),
      twinRatio: roundRatio(twin, counting, 'rps')!,
      rounds: costs.length,
    },
    off,
  };
}

/** Calls a pass of `countingWork` times, and its alternations. */
const WORK_CALLS = 1_000_000;
const WORK_PASSES = 5;

/**
 * What counting itself costs a request in CPU, apart from any server: a quota book's `take` with
 * the rate-limit fields of its status (the counted path), against its `status` with the same
 * fields (what an uncounted answer shows), in nanoseconds a call, medians of alternated passes in
 * this process. The servers' rps cannot resolve a few percent here (the twin); this can, for the
 * part of the difference that is counting's own work. The first count's lease is written (a
 * turn ends) before the timing, as in a server, where every later count of a pass is inside it.
 */
export async function countingWork(): Promise<{ countedNs: number; uncountedNs: number }> {
  const stateDir = mkdtempSync(join(tmpdir(), 'bda-bench-counting-'));
  const book = QuotaBook.open({ stateDir, log: () => {}, clock: systemClock });
  // A lease of 10^7 counts, more than the passes make: none of them waits for a write.
  const limit = 1e9;
  let fields = 0;
  const timed = (call: () => void) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < WORK_CALLS; i++) call();
    return Number(process.hrtime.bigint() - start) / WORK_CALLS;
  };
  const counted: number[] = [];
  const uncounted: number[] = [];
  try {
    book.take('data', 'org:bench', limit);
    await new Promise((turnEnded) => setImmediate(turnEnded));
    for (let pass = 0; pass < WORK_PASSES; pass++) {
      counted.push(timed(() => (fields += rateLimitFields(book.take('data', 'org:bench', limit).status).length)));
      uncounted.push(timed(() => (fields += rateLimitFields(book.status('data', 'org:bench', limit)).length)));
    }
  } finally {
    book.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
  if (fields === 0) throw new Error('countingWork: no fields made');
  return { countedNs: median(counted), uncountedNs: median(uncounted) };
}
