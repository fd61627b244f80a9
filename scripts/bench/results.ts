/**
 * bench/results.json, bench/scale.json and bench/history.json: what the last comparison, scaling
 * and history runs measured, the sources of BENCHMARKS.md.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../processes.ts';
import type { PackSizes } from './pack-sizes.ts';
import { roundRatio, type Summary } from './rounds.ts';
import type { FloorFormRun } from './floor-form.ts';
import type { FloorForm } from './floor.ts';

/**
 * 2: rounds with medians, the floor and nginx in every row, pack sizes by route, RSS at two cache
 * sizes. 3: every ratio the median of the rounds' own ratios (rounds.ts, roundRatio), not a ratio
 * of medians; the rows' p99 over the floor's; the shared store's ratios. 4: the counting cost
 * measured in rounds of its own, with a twin counting server, and its interval; counting's own work.
 * 5: the floor's form (floor-form.ts): every form's figures on the list page, and the one kept.
 */
export const RESULTS_FORMAT = 5;
const RESULTS_FILE = join(ROOT, 'bench', 'results.json');
const SCALE_FILE = join(ROOT, 'bench', 'scale.json');
const HISTORY_FILE = join(ROOT, 'bench', 'history.json');

export interface Row {
  scenario: string;
  connections: number;
  ours: Summary;
  nginx: Summary | null;
  floor: Summary | null;
  /** The baseline checkout (--baseline), loaded in the same rounds; null without one. */
  before?: Summary | null;
  /** Ours over nginx: rps, and p99 (above 1 is slower). Each ratio here the median of the rounds' own. */
  rpsRatio: number | null;
  p99Ratio: number | null;
  /** Ours over the node:http floor: rps, and p99. */
  oursOfFloor: number | null;
  p99OfFloor: number | null;
}

/** a / b, or null when there is no b. */
export const ratio = (a: number, b: number | undefined) => (b ? a / b : null);

/**
 * The floor's figure over nginx's in a row (null without a floor): how much of a target's budget
 * node:http itself uses.
 */
export const floorRatio = (row: Row, figure: 'rps' | 'p99Ms') =>
  row.floor ? roundRatio(row.floor, row.nginx, figure) : null;

/** The Pro list page counting (two servers) and not, in rounds of their own (counting-cost.ts). */
export interface CountingCost {
  connections: number;
  /** Median rps with counting on (both counting servers' runs) and off. */
  on: number;
  off: number;
  /**
   * The median of the rounds' own costs, 1 - (the counting servers' mean) / off: the share of
   * throughput that counting costs.
   */
  cost: number;
  /** Where that median lies with about 95% confidence, from the rounds' costs (counting-cost.ts, medianInterval). */
  interval: [number, number];
  /**
   * The twin counting server over the first (the median of the rounds' ratios): how far two
   * identical servers read apart in the same rounds.
   */
  twinRatio: number;
  rounds: number;
}

/** The Pro list page on a shared store against the same server on its state folder, in the same rounds. */
export interface SharedStore {
  connections: number;
  /** Median rps: on the state folder, on Redis, and on Redis over TLS (null when not measured). */
  file: number;
  redis: number;
  redisTls: number | null;
  /** On Redis over the state folder, and over TLS (null when not measured): medians of the rounds' own ratios. */
  ratio: number;
  ratioTls: number | null;
  /**
   * The same comparison in rounds of its own with Redis alone on a core (redis-apart.ts): absent in
   * results written before it was measured, null where Redis could not have a core of its own.
   */
  apart?: StoreApart | null;
}

/** The Pro list page on Redis against the state folder, Redis alone on one core and the rest on the others. */
export interface StoreApart {
  /** Redis's core, and the cores of the servers and wrk (taskset lists). */
  redisCore: string;
  otherCores: string;
  /** Median rps on the state folder and on Redis, and the median of the rounds' own ratios. */
  file: number;
  redis: number;
  ratio: number;
}

export interface Results {
  format: typeof RESULTS_FORMAT;
  date: string;
  machine: { cpus: number; model?: string; node: string };
  /**
   * Seconds of unrecorded load each server got before a scenario's rounds (rounds.ts); absent in
   * runs made before there was one.
   */
  warmUpSeconds?: number;
  seconds: number;
  rounds: number;
  /** wrk on one core and every server on another (--pin); absent in runs made before the option. */
  pinned?: boolean;
  /** The floor's forms on the list page and the fastest, every row's floor (floor-form.ts); absent before format 5. */
  floorForm?: { form: FloorForm; runs: FloorFormRun[] };
  connections: number[];
  build: { seconds: number; entries: number };
  pack: PackSizes;
  startupMs: number;
  /** VmHWM of our server after every scenario, with the bench's cache and with the server's default. */
  peakRssMb: {
    benchCache: number;
    benchCacheMb: number;
    defaultCache: number;
    defaultCacheMb: number;
    nginxWorker: number;
    before?: number | null;
  };
  /** The baseline's label (--baseline), or null. */
  baseline?: string | null;
  rows: Row[];
  countingCost: CountingCost[];
  /** Counting's own CPU a request apart from any server, in ns (counting-cost.ts, countingWork). */
  countingWork: { countedNs: number; uncountedNs: number };
  /** Absent in results written before it was measured, empty when redis-server was missing. */
  sharedStore?: SharedStore[];
}

export interface ScaleRow {
  scale: number;
  models: number;
  records: number;
  buildSeconds: number;
  packMB: number;
  entries: number;
  startupMs: number;
  rssMb: number;
  rps: number;
}

export interface ScaleResults {
  date: string;
  rows: ScaleRow[];
}

/** One day of `--history`'s month of daily builds. */
export interface HistoryDay {
  day: number;
  seconds: number;
  packBytes: number;
  historyBytes: number;
}

/** One route of `--history`'s load, against the model detail route in the same rounds. */
export interface HistoryRow {
  route: string;
  connections: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  p99VsDetail: number;
}

export interface HistoryResults {
  date: string;
  /** Builds the last build's history holds. */
  builds: number;
  days: HistoryDay[];
  rows: HistoryRow[];
}

function writeJson(path: string, value: unknown): void {
  mkdirSync(join(ROOT, 'bench'), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

export const writeResults = (results: Results) => writeJson(RESULTS_FILE, results);
export const writeScale = (scale: ScaleResults) => writeJson(SCALE_FILE, scale);
export const writeHistoryResults = (results: HistoryResults) => writeJson(HISTORY_FILE, results);

export function readHistoryResults(): HistoryResults | null {
  return existsSync(HISTORY_FILE) ? (JSON.parse(readFileSync(HISTORY_FILE, 'utf8')) as HistoryResults) : null;
}

export function readScale(): ScaleResults | null {
  return existsSync(SCALE_FILE) ? (JSON.parse(readFileSync(SCALE_FILE, 'utf8')) as ScaleResults) : null;
}

/** The last run's results, or null when there is none or it predates this format. */
export function readResults(): Results | null {
  if (!existsSync(RESULTS_FILE)) return null;
  const results = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Results;
  return results.format === RESULTS_FORMAT ? results : null;
}
