/** The targets (BENCHMARKS.md), each checked against one run's figures. */
import { floorRatio, type Results, type Row } from './results.ts';

export interface TargetCheck {
  target: string;
  met: boolean;
  /** The figure the verdict rests on, with where it comes from. */
  figure: string;
}

const RPS_RATIO_MIN = 0.8;
const P99_RATIO_MAX = 2;
const PEAK_RSS_MAX_MB = 110;
const PACK_MAX_MB = 160;
const BUILD_MAX_SECONDS = 12;
const COUNTING_COST_MAX = 0.1;
const STARTUP_MAX_MS = 300;
const SHARED_STORE_MIN = 0.8;

/** The row of the worst value of a ratio among the scenarios compared with nginx at one connection count. */
function worstRow(rows: Row[], connections: number, value: (row: Row) => number, worse: (a: number, b: number) => boolean): Row | undefined {
  let worst: Row | undefined;
  for (const row of rows) if (row.connections === connections && row.nginx && (!worst || worse(value(row), value(worst)))) worst = row;
  return worst;
}

/** What the node:http floor reached in the same scenario, against nginx: the platform's share of a miss. */
function floorSays(row: Row, figure: 'rps' | 'p99Ms'): string {
  const floor = floorRatio(row, figure);
  return floor === null ? '' : `; the node:http floor's own: ${floor.toFixed(2)}`;
}

export function checkTargets(r: Results): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const c of r.connections) {
    const rps = worstRow(r.rows, c, (row) => row.rpsRatio!, (a, b) => a < b);
    const p99 = worstRow(r.rows, c, (row) => row.p99Ratio!, (a, b) => a > b);
    if (rps) checks.push({ target: `rps ratio ≥ ${RPS_RATIO_MIN} at c=${c}`, met: rps.rpsRatio! >= RPS_RATIO_MIN, figure: `worst ${rps.rpsRatio!.toFixed(2)} (${rps.scenario})${floorSays(rps, 'rps')}` });
    if (p99) checks.push({ target: `p99 ratio ≤ ${P99_RATIO_MAX} at c=${c}`, met: p99.p99Ratio! <= P99_RATIO_MAX, figure: `worst ${p99.p99Ratio!.toFixed(2)} (${p99.scenario})${floorSays(p99, 'p99Ms')}` });
  }
  const rss = r.peakRssMb;
  checks.push({ target: `peak RSS ≤ ${PEAK_RSS_MAX_MB} MB, default ${rss.defaultCacheMb} MB cache`, met: rss.defaultCache <= PEAK_RSS_MAX_MB, figure: `${rss.defaultCache.toFixed(1)} MB` });
  checks.push({ target: `peak RSS ≤ ${PEAK_RSS_MAX_MB} MB, ${rss.benchCacheMb} MB cache`, met: rss.benchCache <= PEAK_RSS_MAX_MB, figure: `${rss.benchCache.toFixed(1)} MB` });
  const packMb = r.pack.packFileBytes / 1e6;
  checks.push({ target: `pack ≤ ${PACK_MAX_MB} MB`, met: packMb <= PACK_MAX_MB, figure: `${packMb.toFixed(1)} MB` });
  checks.push({ target: `build ≤ ${BUILD_MAX_SECONDS} s`, met: r.build.seconds <= BUILD_MAX_SECONDS, figure: `${r.build.seconds.toFixed(1)} s` });
  const counting = r.countingCost.reduce<(typeof r.countingCost)[number] | undefined>((worst, c) => (!worst || c.cost > worst.cost ? c : worst), undefined);
  if (counting) checks.push({ target: `counting cost ≤ ${COUNTING_COST_MAX * 100}%`, met: counting.cost <= COUNTING_COST_MAX, figure: `worst ${(counting.cost * 100).toFixed(1)}% (c=${counting.connections})` });
  for (const s of r.sharedStore ?? []) {
    checks.push({ target: `on Redis ≥ ${SHARED_STORE_MIN}x the state folder at c=${s.connections}`, met: s.redis / s.file >= SHARED_STORE_MIN, figure: `${(s.redis / s.file).toFixed(2)} (${s.redis.toFixed(0)} against ${s.file.toFixed(0)} rps)` });
  }
  checks.push({ target: `start-up ≤ ${STARTUP_MAX_MS} ms`, met: r.startupMs <= STARTUP_MAX_MS, figure: `${r.startupMs.toFixed(0)} ms` });
  return checks;
}
