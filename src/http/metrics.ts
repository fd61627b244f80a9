/**
 * Prometheus metrics in the text exposition format, with no dependency: counters and one
 * latency histogram, labelled by route and status. Off unless the server runs with --metrics.
 */
import type { ConnectionStats } from './connection-caps.ts';
import type { FirstReadStats } from './first-read.ts';
import { MANIFEST_FORMAT } from '../shared/manifest.ts';
import { VERSION } from '../shared/version.ts';

/** Upper bounds (seconds) of the latency histogram buckets. */
export const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120,
];

type Labels = Record<string, string>;

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(
    ([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`,
  );
  return parts.length ? `{${parts.join(',')}}` : '';
}

interface CounterSeries {
  labels: Labels;
  value: number;
}

interface HistogramSeries {
  labels: Labels;
  counts: number[];
  sum: number;
  count: number;
}

class Counter {
  private readonly values = new Map<string, CounterSeries>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    this.series(labels).value += by;
  }

  /** The series of these labels, made at 0 the first time. */
  series(labels: Labels): CounterSeries {
    const key = labelText(labels);
    let entry = this.values.get(key);
    if (!entry) this.values.set(key, (entry = { labels, value: 0 }));
    return entry;
  }

  get(labels: Labels = {}): number {
    return this.values.get(labelText(labels))?.value ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { labels, value } of this.values.values()) lines.push(`${this.name}${labelText(labels)} ${value}`);
    return lines.join('\n');
  }
}

class Histogram {
  private readonly values = new Map<string, HistogramSeries>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** The series of these labels, made empty the first time. */
  series(labels: Labels): HistogramSeries {
    const key = labelText(labels);
    let entry = this.values.get(key);
    if (!entry) this.values.set(key, (entry = { labels, counts: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 }));
    return entry;
  }

  static add(entry: HistogramSeries, seconds: number): void {
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) if (seconds <= LATENCY_BUCKETS[i]) entry.counts[i]++;
    entry.sum += seconds;
    entry.count++;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, counts, sum, count } of this.values.values()) {
      LATENCY_BUCKETS.forEach((le, i) =>
        lines.push(`${this.name}_bucket${labelText({ ...labels, le: String(le) })} ${counts[i]}`),
      );
      lines.push(`${this.name}_bucket${labelText({ ...labels, le: '+Inf' })} ${count}`);
      lines.push(`${this.name}_sum${labelText(labels)} ${sum}`);
      lines.push(`${this.name}_count${labelText(labels)} ${count}`);
    }
    return lines.join('\n');
  }
}

/** Values read when the metrics are rendered (snapshot, its check, cache). */
export interface MetricsSources {
  snapshot: () => { buildId: string; builtAt: number };
  /** Stored parts found failing their checksum since start; how much of the served build's pack is checked (0 to 1). */
  integrity: () => { corruptParts: number; checkedRatio: number };
  cache: () => { hits: number; misses: number; bytes: number };
  now: () => number;
  /**
   * Connections open, caps, the descriptor limit, and the shed and refused since start
   * (src/http/connection-caps.ts).
   */
  connections?: () => ConnectionStats;
  /** New connections' first reads held for their turn (src/http/first-read.ts). */
  firstReads?: () => FirstReadStats;
  /** With --snapshot-from: the release served and the pulls since start (src/pull/puller.ts). */
  pulls?: () => PullStats;
}

/** What the metrics say of pulling from an origin (src/pull/puller.ts's PullStatus has these). */
export interface PullStats {
  version: number | null;
  expires: string | null;
  pulls: number;
  failedPulls: number;
  fetchedBytes: number;
  heldBytes: number;
}

function pullLines(stats: PullStats, now: number): string[] {
  return [
    '# HELP bda_snapshot_release The version of the release the served build came from (0: built on this host).',
    '# TYPE bda_snapshot_release gauge',
    `bda_snapshot_release ${stats.version ?? 0}`,
    ...(stats.expires === null
      ? []
      : [
          "# HELP bda_snapshot_release_expiry_seconds Seconds until the served build's release expires (below 0: " +
            'expired; publish again).',
          '# TYPE bda_snapshot_release_expiry_seconds gauge',
          `bda_snapshot_release_expiry_seconds ${(Date.parse(stats.expires) - now) / 1000}`,
        ]),
    '# HELP bda_snapshot_pulls_total Pulls of a release from the origin since start, by outcome.',
    '# TYPE bda_snapshot_pulls_total counter',
    `bda_snapshot_pulls_total{outcome="done"} ${stats.pulls}`,
    `bda_snapshot_pulls_total{outcome="failed"} ${stats.failedPulls}`,
    '# HELP bda_snapshot_pulled_bytes_total Bytes of the builds pulled since start, by where they came from: ' +
      'fetched from the origin (as stored there), or copied from a build held here.',
    '# TYPE bda_snapshot_pulled_bytes_total counter',
    `bda_snapshot_pulled_bytes_total{source="origin"} ${stats.fetchedBytes}`,
    `bda_snapshot_pulled_bytes_total{source="held"} ${stats.heldBytes}`,
  ];
}

function firstReadLines(stats: FirstReadStats): string[] {
  return [
    '# HELP bda_first_reads_held New connections whose first read pipelines more requests than they may have ' +
      'answered at once, held for their turn.',
    '# TYPE bda_first_reads_held gauge',
    `bda_first_reads_held ${stats.held}`,
    '# HELP bda_first_reads_total Such first reads since start: parsed in a later turn, or closed unparsed past the ' +
      'waiting budget.',
    '# TYPE bda_first_reads_total counter',
    `bda_first_reads_total{outcome="parsed_later"} ${stats.parsedLater}`,
    `bda_first_reads_total{outcome="closed"} ${stats.closed}`,
  ];
}

function connectionLines(stats: ConnectionStats): string[] {
  return [
    '# HELP bda_connections_open Connections open now, every listener of the process.',
    '# TYPE bda_connections_open gauge',
    `bda_connections_open ${stats.open}`,
    '# HELP bda_connections_cap Connections open at once before new ones shed others or are refused ' +
      '(--max-connections).',
    '# TYPE bda_connections_cap gauge',
    `bda_connections_cap ${stats.cap}`,
    '# HELP bda_connections_per_client_cap Connections of one client address (loopback exempt; ' +
      '--max-connections-per-client).',
    '# TYPE bda_connections_per_client_cap gauge',
    `bda_connections_per_client_cap ${stats.perClientCap}`,
    '# HELP bda_descriptor_limit Open files the process may have (soft limit, read at start).',
    '# TYPE bda_descriptor_limit gauge',
    `bda_descriptor_limit ${stats.descriptorLimit}`,
    '# HELP bda_connections_shed_total Connections closed at a cap to make room, by reason.',
    '# TYPE bda_connections_shed_total counter',
    ...Object.entries(stats.shed).map(([reason, n]) => `bda_connections_shed_total${labelText({ reason })} ${n}`),
    '# HELP bda_connections_refused_total New connections refused at a cap: answered 503, or closed unanswered ' +
      '(every refusal slot busy).',
    '# TYPE bda_connections_refused_total counter',
    `bda_connections_refused_total{answer="503"} ${stats.refused.answered}`,
    `bda_connections_refused_total{answer="none"} ${stats.refused.closed}`,
  ];
}

export class Metrics {
  readonly requests = new Counter('bda_http_requests_total', 'HTTP requests answered, by route and status.');
  readonly latency = new Histogram(
    'bda_http_request_duration_seconds',
    'Time from request to the end of the response, by route.',
  );
  readonly quotaRejections = new Counter('bda_quota_rejections_total', 'Requests refused with 429, by quota kind.');
  readonly gradings = new Counter('bda_critpt_gradings_total', 'CritPt gradings by outcome.');
  readonly accessLogDropped = new Counter(
    'bda_access_log_dropped_total',
    'Access log lines dropped because stdout was not being read.',
  );

  /**
   * A request's series, found by its route and status themselves: their label text, built and
   * hashed for each request, was two strings made with three regular expressions each.
   */
  private readonly requestSeries = new Map<string, Map<number, CounterSeries>>();
  private readonly latencySeries = new Map<string, HistogramSeries>();

  constructor(private readonly sources: MetricsSources) {
    // Shown as 0 from the start, so an alert on its increase has a series to watch.
    this.accessLogDropped.inc({}, 0);
  }

  observe(route: string, status: number, seconds: number): void {
    let byStatus = this.requestSeries.get(route);
    if (!byStatus) this.requestSeries.set(route, (byStatus = new Map()));
    let requests = byStatus.get(status);
    if (!requests) byStatus.set(status, (requests = this.requests.series({ route, status: String(status) })));
    requests.value++;
    let latency = this.latencySeries.get(route);
    if (!latency) this.latencySeries.set(route, (latency = this.latency.series({ route })));
    Histogram.add(latency, seconds);
  }

  render(): string {
    const { buildId, builtAt } = this.sources.snapshot();
    const cache = this.sources.cache();
    const integrity = this.sources.integrity();
    const lookups = cache.hits + cache.misses;
    const gauges = [
      "# HELP bda_version_info The program's version and the snapshot format it reads.",
      '# TYPE bda_version_info gauge',
      `bda_version_info${labelText({ version: VERSION, snapshot_format: String(MANIFEST_FORMAT) })} 1`,
      '# HELP bda_snapshot_info The snapshot being served.',
      '# TYPE bda_snapshot_info gauge',
      `bda_snapshot_info${labelText({ build_id: buildId })} 1`,
      "# HELP bda_snapshot_age_seconds Seconds since the served snapshot's time: its data's as-of time (or the " +
        'SOURCE_DATE_EPOCH its build was given).',
      '# TYPE bda_snapshot_age_seconds gauge',
      `bda_snapshot_age_seconds ${Math.max(0, (this.sources.now() - builtAt) / 1000)}`,
      '# HELP bda_snapshot_corrupt_parts_total Stored parts (variants, fragments, index files) found failing their ' +
        'checksum; never served.',
      '# TYPE bda_snapshot_corrupt_parts_total counter',
      `bda_snapshot_corrupt_parts_total ${integrity.corruptParts}`,
      '# HELP bda_snapshot_checked_ratio Share of the served build whose checksums have been checked since it was ' +
        'loaded.',
      '# TYPE bda_snapshot_checked_ratio gauge',
      `bda_snapshot_checked_ratio ${integrity.checkedRatio}`,
      '# HELP bda_cache_lookups_total Response body lookups in the in-memory cache, by result.',
      '# TYPE bda_cache_lookups_total counter',
      `bda_cache_lookups_total{result="hit"} ${cache.hits}`,
      `bda_cache_lookups_total{result="miss"} ${cache.misses}`,
      '# HELP bda_cache_hit_ratio Share of body lookups answered from memory.',
      '# TYPE bda_cache_hit_ratio gauge',
      `bda_cache_hit_ratio ${lookups ? cache.hits / lookups : 0}`,
      '# HELP bda_cache_bytes Bytes of response bodies held in memory.',
      '# TYPE bda_cache_bytes gauge',
      `bda_cache_bytes ${cache.bytes}`,
      ...(this.sources.connections ? connectionLines(this.sources.connections()) : []),
      ...(this.sources.firstReads ? firstReadLines(this.sources.firstReads()) : []),
      ...(this.sources.pulls ? pullLines(this.sources.pulls(), this.sources.now()) : []),
    ];
    const counters = [this.requests, this.latency, this.quotaRejections, this.gradings, this.accessLogDropped];
    return `${[...counters.map((counter) => counter.render()), ...gauges].join('\n')}\n`;
  }
}
