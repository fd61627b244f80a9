/**
 * Rounds: every server of a scenario loaded back to back, the order changing from one round to
 * the next (roundOrder), and each server's figures taken as the median over rounds. The machine
 * is shared and drifts by 20% within minutes; alternating spreads that drift over all the servers
 * instead of charging it to whichever ran last.
 */
import { median } from './processes.ts';
import type { Placement } from './pinning.ts';
import { wrk, type Load } from './wrk.ts';

/** One server under load in a scenario: where to send which paths, with which headers. */
export interface Contender {
  name: string;
  base: string;
  paths: string[];
  headers: Record<string, string>;
}

/** A server's figures over the rounds: medians of rps and latency, errors summed. */
export interface Summary {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  rounds: Load[];
}

export interface RoundOptions {
  rounds: number;
  connections: number;
  seconds: number;
  /** Folder for wrk's scripts. */
  work: string;
  /** Where wrk and the servers run (scripts/bench/pinning.ts); anywhere without it. */
  placement?: Placement;
}

/**
 * Round r's order: the list turned to start at its r-th server, and reversed in the next n rounds
 * (n servers), and so on. Over 2n rounds every server takes every place twice and follows each
 * of its two neighbours in the list about as often. Reversing every other round alone kept the first server at the
 * ends of every round and ran it twice back to back at every other round's boundary, while a
 * server in the middle never took an end.
 */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  const turn = round % items.length;
  const turned = [...items.slice(turn), ...items.slice(0, turn)];
  return Math.floor(round / items.length) % 2 === 0 ? turned : turned.reverse();
}

export function summarise(loads: Load[]): Summary {
  return {
    rps: median(loads.map((l) => l.rps)),
    p50Ms: median(loads.map((l) => l.p50Ms)),
    p99Ms: median(loads.map((l) => l.p99Ms)),
    errors: loads.reduce((sum, l) => sum + l.errors, 0),
    rounds: loads,
  };
}

/**
 * Seconds of load each contender gets, unrecorded, before a scenario's rounds. A path a server
 * has not answered yet is answered slower at first (its code not yet optimised, its bodies not
 * yet read): a fresh server's first seconds under a new scenario had a p99 of 100 to 230 ms
 * against 3.5 to 4.2 ms once warm (the /free page at c=64, one core), and whichever server
 * met a scenario in the first round carried that into its figures. The floor's few lines warm
 * at once; ours did not.
 */
export const WARM_UP_SECONDS = 2;

/**
 * a's figure over b's as the median of the rounds' own ratios (null without either). A round loads
 * the two back to back, while the machine drifts by 20% within minutes: a ratio of two medians
 * may take a's figure from one round and b's from another. On 2026-11-26 the server with
 * counting off read 14,744, 19,939 and 26,329 rps in three rounds of the list page at c=16,
 * against 17,086 to 17,788 counting: 11% of "counting cost" as a ratio of medians.
 */
export function roundRatio(
  a: Summary | undefined,
  b: Summary | null | undefined,
  figure: 'rps' | 'p99Ms',
): number | null {
  if (!a || !b) return null;
  return median(a.rounds.map((load, i) => load[figure] / b.rounds[i][figure]));
}

/**
 * Load every contender once a round, alternating the order, after a warm-up of each; each
 * contender's summary by name.
 */
export function runRounds(
  contenders: readonly Contender[],
  options: RoundOptions,
  label: string,
): Map<string, Summary> {
  for (const contender of contenders)
    wrk(
      contender.base,
      contender.paths,
      contender.headers,
      options.connections,
      Math.min(WARM_UP_SECONDS, options.seconds),
      options.work,
      options.placement?.load,
    );
  const loads = new Map<string, Load[]>(contenders.map((c) => [c.name, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const contender of roundOrder(contenders, round)) {
      const load = wrk(
        contender.base,
        contender.paths,
        contender.headers,
        options.connections,
        options.seconds,
        options.work,
        options.placement?.load,
      );
      loads.get(contender.name)!.push(load);
      const errors = load.errors ? ` ${load.errors} errors` : '';
      const run = `c=${String(options.connections).padEnd(3)} round ${round + 1}/${options.rounds}`;
      const figures = `${load.rps.toFixed(0).padStart(7)} rps p99 ${load.p99Ms.toFixed(2)} ms${errors}`;
      console.log(`${label.padEnd(34)} ${run} ${contender.name.padEnd(18)} ${figures}`);
    }
  }
  return new Map([...loads].map(([name, runs]) => [name, summarise(runs)]));
}
