/**
 * The counting cost, measured apart from the scenarios: the Pro list page on a server counting,
 * on the same server with `--no-counting`, and on a twin of the first, each started afresh for
 * every round on a state folder of its own.
 *
 * Why apart, and why a twin: on this 2-core shared machine one wrk run's rps swings by 15-30%
 * from the next, for the same server (two identical counting servers, 30 alternated rounds of
 * 2 s: round ratios 0.65 to 1.38; bench/analysis.md). That is more than the 5% the cost may take,
 * so the cost gets three times the scenarios' rounds, and the twin shows in the same rounds how
 * far two identical servers read apart: the run's own resolution, printed beside the cost.
 *
 * Why fresh servers every round: a server process keeps a speed of its own for minutes. Six
 * servers of one build loaded in the same rounds took 53.4 to 60.6 us of CPU a request in one set
 * of rounds and 49.6 to 58.1 in the next, mostly in the same order (four counting and two not,
 * 2026-11-26, bench/analysis.md). Three long-lived servers are three such draws, and the twin read 1.07 to
 * 1.19x the first counting server in every run of the day: the cost measured which process
 * happened to be faster. A round of fresh servers draws three new processes, so the rounds'
 * median weighs counting against process luck as well as against the machine's drift.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rateLimitFields } from '../../src/counting.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { FileQuota } from '../../src/quota/file-quota.ts';
import { SERVER_LOCK_FILE } from '../../src/state-store.ts';
import { median } from './processes.ts';
import type { CountingCost } from './results.ts';
import {
  roundOrder,
  roundRatio,
  runRounds,
  summarise,
  type Contender,
  type RoundOptions,
  type Summary,
} from './rounds.ts';

/**
 * The counting cost's rounds for each of a scenario's, each half as long (countingSeconds): 3x the
 * rounds for 1.5x the load.
 */
export const COUNTING_ROUNDS_FACTOR = 3;

/** Seconds of one counting-cost run, for the scenarios' run length: whole seconds, which is all wrk's -d takes. */
export const countingSeconds = (seconds: number) => Math.max(1, Math.floor(seconds / 2));

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

/** A server started for one round, on a state folder of its own. */
export interface FreshServer {
  base: string;
  stop(): Promise<void>;
}

/** Load each contender once, in the order given, with the counting cost's run length; summaries by name. */
export type LoadRound = (contenders: Contender[], options: RoundOptions, label: string) => Map<string, Summary>;

/** One round of runRounds (its warm-up, then the servers in the order given): the round's place is in `contenders`. */
const loadOneRound: LoadRound = (contenders, options, label) =>
  runRounds(contenders, { ...options, rounds: 1, seconds: countingSeconds(options.seconds) }, label);

/** The three servers of a round, by the name their figures go under. */
const COUNTING = 'ours, counting';
const OFF = 'ours, counting off';
const TWIN = 'ours, twin';
const SERVERS = [COUNTING, OFF, TWIN] as const;

/**
 * Load the three, started afresh each round, in the round's order (roundOrder: every server takes
 * every place); they are started in that order too. The cost with its interval, and the uncounted
 * server's summary (for the table). `page` says what to load and how; its base is not used.
 */
export async function measureCountingCost(
  page: Contender,
  start: (counting: boolean) => Promise<FreshServer>,
  options: RoundOptions,
  loadRound: LoadRound = loadOneRound,
): Promise<{ cost: CountingCost; off: Summary }> {
  const rounds = options.rounds * COUNTING_ROUNDS_FACTOR;
  const loads = new Map<string, Summary['rounds']>(SERVERS.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const contenders: Contender[] = [];
    const started: FreshServer[] = [];
    try {
      for (const name of roundOrder(SERVERS, round)) {
        const server = await start(name !== OFF);
        started.push(server);
        contenders.push({ ...page, name, base: server.base });
      }
      const runs = loadRound(contenders, options, `counting cost ${round + 1}/${rounds}, list page`);
      for (const name of SERVERS) loads.get(name)!.push(...runs.get(name)!.rounds);
    } finally {
      for (const server of started) await server.stop();
    }
  }
  const summaryOf = (name: (typeof SERVERS)[number]) => summarise(loads.get(name)!);
  const [counting, off, twin] = [summaryOf(COUNTING), summaryOf(OFF), summaryOf(TWIN)];
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

/** A fresh server's state folder: a copy of `state` (its keys), in a temporary folder of its own. */
export function freshStateFolder(state: string): { path: string; remove(): void } {
  const parent = mkdtempSync(join(tmpdir(), 'bda-bench-fresh-'));
  const path = join(parent, 'state');
  // The folder is copied while the bench's main server holds it: its lock names that live server, and
  // a server started on a copy that kept it would refuse to start.
  const lock = join(state, SERVER_LOCK_FILE);
  cpSync(state, path, { recursive: true, filter: (source) => source !== lock });
  return { path, remove: () => rmSync(parent, { recursive: true, force: true }) };
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
  const book = FileQuota.open({ stateDir, log: () => {}, clock: systemClock });
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
