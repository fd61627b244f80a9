/**
 * The counting cost, measured apart from the scenarios: the Pro list page on our server counting,
 * on the same server with `--no-counting`, and on a twin of the first (counting, its own state
 * folder), in rounds of their own.
 *
 * Why apart, and why a twin: on this 2-core shared machine one wrk run's rps swings by 15-30%
 * from the next, for the same server (two identical counting servers, 30 alternated rounds of
 * 2 s: round ratios 0.65 to 1.38, medians 0.978 and 1.017; bench/analysis.md). A median of the
 * scenarios' 5 rounds then moves by about 10%, twice the 5% the cost may take, so the cost gets
 * three times their rounds, and the twin shows in the same rounds how far two identical servers
 * read apart: the run's own resolution, printed beside the cost.
 */
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
