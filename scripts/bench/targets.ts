/** The targets (BENCHMARKS.md), each checked against one run's figures. */
import type { CountingCost, Results, Row, SharedStore } from './results.ts';

export interface TargetCheck {
  target: string;
  met: boolean;
  /** The figure the verdict rests on, with where it comes from. */
  figure: string;
}

/**
 * Serving is held to the node:http floor, measured in the same rounds: a bare node:http server
 * sending the same bytes is the limit of the runtime on the machine at hand (it reached 0.47 to
 * 1.04 of nginx on two machines, with a p99 already 1.4 to 3.7 times nginx's). nginx stays in
 * the table, for information.
 */
const FLOOR_RPS_MIN = 0.9;
const FLOOR_P99_MAX = 1.5;
const PEAK_RSS_MAX_MB = 110;
const PACK_MAX_MB = 160;
const BUILD_MAX_SECONDS = 12;
const COUNTING_COST_MAX = 0.05;
const STARTUP_MAX_MS = 300;
const SHARED_STORE_MIN = 0.8;

/** One verdict a scenario and connection count compared with the floor: its rps, and its p99. */
function againstFloor(row: Row): TargetCheck[] {
  const { floor, ours, nginx } = row;
  if (!floor) return [];
  const where = `${row.scenario}, c=${row.connections}`;
  const rps = row.oursOfFloor!;
  const p99 = row.p99OfFloor!;
  const nginxSays = (figure: 'rps' | 'p99Ms', digits: number) =>
    nginx ? `; nginx ${nginx[figure].toFixed(digits)}` : '';
  return [
    {
      target: `rps ≥ ${FLOOR_RPS_MIN}x the floor: ${where}`,
      met: rps >= FLOOR_RPS_MIN,
      figure: `${rps.toFixed(2)} (${ours.rps.toFixed(0)} against ${floor.rps.toFixed(0)} rps${nginxSays('rps', 0)})`,
    },
    {
      target: `p99 ≤ ${FLOOR_P99_MAX}x the floor's: ${where}`,
      met: p99 <= FLOOR_P99_MAX,
      figure:
        `${p99.toFixed(2)} (${ours.p99Ms.toFixed(2)} against ${floor.p99Ms.toFixed(2)} ms${nginxSays('p99Ms', 2)})`,
    },
  ];
}

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

/**
 * The cost, where its median lies (about 95%), and how far the twin read from the first counting
 * server in the same rounds.
 */
export function countingCostFigure(c: CountingCost): string {
  const interval = `interval ${percent(c.interval[0])} to ${percent(c.interval[1])}`;
  return `${percent(c.cost)}, ${interval}; twin ${c.twinRatio.toFixed(2)}`;
}

export function checkTargets(r: Results): TargetCheck[] {
  const checks: TargetCheck[] = r.rows.flatMap(againstFloor);
  const rss = r.peakRssMb;
  checks.push({
    target: `peak RSS ≤ ${PEAK_RSS_MAX_MB} MB, default ${rss.defaultCacheMb} MB cache`,
    met: rss.defaultCache <= PEAK_RSS_MAX_MB,
    figure: `${rss.defaultCache.toFixed(1)} MB`,
  });
  checks.push({
    target: `peak RSS ≤ ${PEAK_RSS_MAX_MB} MB, ${rss.benchCacheMb} MB cache`,
    met: rss.benchCache <= PEAK_RSS_MAX_MB,
    figure: `${rss.benchCache.toFixed(1)} MB`,
  });
  const packMb = r.pack.packFileBytes / 1e6;
  checks.push({ target: `pack ≤ ${PACK_MAX_MB} MB`, met: packMb <= PACK_MAX_MB, figure: `${packMb.toFixed(1)} MB` });
  checks.push({
    target: `build ≤ ${BUILD_MAX_SECONDS} s`,
    met: r.build.seconds <= BUILD_MAX_SECONDS,
    figure: `${r.build.seconds.toFixed(1)} s`,
  });
  for (const c of r.countingCost) {
    checks.push({
      target: `counting cost ≤ ${COUNTING_COST_MAX * 100}% at c=${c.connections}`,
      met: c.cost <= COUNTING_COST_MAX,
      figure: `${countingCostFigure(c)} (${c.on.toFixed(0)} rps counting, ${c.off.toFixed(0)} not)`,
    });
  }
  for (const s of r.sharedStore ?? []) checks.push(sharedStoreCheck(s));
  checks.push({
    target: `start-up ≤ ${STARTUP_MAX_MS} ms`,
    met: r.startupMs <= STARTUP_MAX_MS,
    figure: `${r.startupMs.toFixed(0)} ms`,
  });
  return checks;
}

/**
 * The Redis target, judged where a Redis shared by several servers runs, on a core of its own, when
 * the run measured it so (redis-apart.ts); the figure with Redis on the server's cores beside it.
 */
function sharedStoreCheck(s: SharedStore): TargetCheck {
  const sharing = `${s.ratio.toFixed(2)} (${s.redis.toFixed(0)} against ${s.file.toFixed(0)} rps)`;
  const target = `on Redis ≥ ${SHARED_STORE_MIN}x the state folder at c=${s.connections}`;
  if (!s.apart) return { target, met: s.ratio >= SHARED_STORE_MIN, figure: sharing };
  const { apart } = s;
  return {
    target: `${target}, Redis on a core of its own`,
    met: apart.ratio >= SHARED_STORE_MIN,
    figure:
      `${apart.ratio.toFixed(2)} (${apart.redis.toFixed(0)} against ${apart.file.toFixed(0)} rps, ` +
      `Redis on core ${apart.redisCore}); sharing the cores ${sharing}`,
  };
}
