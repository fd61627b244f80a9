/**
 * Performance figures from raw measurement records: per endpoint over the statistics window,
 * and per model as the median across its providers. Records come as columns (see
 * columns.ts) and a range `[lo, hi)` of them.
 */
import { MEDIAN_METRICS, SPREAD_LEVELS } from '../fields.ts';
import type { MeasurementRecord } from '../types.ts';
import { endToEndAt, estimateEndToEnd, type SeriesColumns } from '../columns.ts';
import { median, quantileSorted, round, roundOrNull, sortNumbers } from './stats.ts';

export { ANSWER_TOKENS_FOR_E2E } from '../columns.ts';
const PERFORMANCE_DECIMALS = 3;

export type Performance = Record<string, number | null>;

/** A record's end-to-end response time (stored, or estimated from the 500-token convention). */
export function endToEndSeconds(record: MeasurementRecord): number | null {
  return estimateEndToEnd(
    record.end_to_end_response_time_seconds,
    record.time_to_first_answer_token_seconds,
    record.output_tokens_per_second,
  );
}

/** The figures of the successful records in `[lo, hi)`, sorted, per metric. */
function successfulFigures(cols: SeriesColumns, lo: number, hi: number) {
  const speed: number[] = [];
  const ttft: number[] = [];
  const ttfat: number[] = [];
  const e2e: number[] = [];
  for (let i = lo; i < hi; i++) {
    if (!cols.success[i]) continue;
    if (!Number.isNaN(cols.speed[i])) speed.push(cols.speed[i]);
    if (!Number.isNaN(cols.ttft[i])) ttft.push(cols.ttft[i]);
    if (!Number.isNaN(cols.ttfat[i])) ttfat.push(cols.ttfat[i]);
    const end = endToEndAt(cols, i);
    if (end !== null) e2e.push(end);
  }
  return { speed: sortNumbers(speed), ttft: sortNumbers(ttft), ttfat: sortNumbers(ttfat), e2e: sortNumbers(e2e) };
}

/** The four medians of figures already gathered. */
function mediansFrom(f: ReturnType<typeof successfulFigures>): Performance {
  return {
    median_output_tokens_per_second: roundOrNull(quantileSorted(f.speed, 0.5), PERFORMANCE_DECIMALS),
    median_time_to_first_token_seconds: roundOrNull(quantileSorted(f.ttft, 0.5), PERFORMANCE_DECIMALS),
    median_time_to_first_answer_token_seconds: roundOrNull(quantileSorted(f.ttfat, 0.5), PERFORMANCE_DECIMALS),
    median_end_to_end_response_time_seconds: roundOrNull(quantileSorted(f.e2e, 0.5), PERFORMANCE_DECIMALS),
  };
}

/** Only the four medians of the successful records in `[lo, hi)` (series points need no spread). */
export function mediansOf(cols: SeriesColumns, lo = 0, hi = cols.length): Performance {
  const out = new Float64Array(MEDIAN_METRICS.length);
  mediansInto(cols, lo, hi, out, 0);
  return Object.fromEntries(MEDIAN_METRICS.map((f, j) => [f, Number.isNaN(out[j]) ? null : out[j]]));
}

/** Per metric, room for the figures of one range: reused from range to range (mediansInto). */
const scratch = {
  speed: new Float64Array(64),
  ttft: new Float64Array(64),
  ttfat: new Float64Array(64),
  e2e: new Float64Array(64),
};

/**
 * The four medians of the successful records in `[lo, hi)`, as mediansOf gives them, written
 * into `out` from `at` in MEDIAN_METRICS order, NaN for null. The figures are gathered in
 * reused arrays and no object is made: a series bucket holds a record or two (the sample has
 * 432,000 buckets of 1.7 records on average), so what each bucket allocated, not the sorting,
 * was the cost of the series: shaping the model performance bodies 2.9 -> 1.4 s of CPU (the
 * sample, shaping alone, alternated runs).
 */
export function mediansInto(cols: SeriesColumns, lo: number, hi: number, out: Float64Array, at: number): void {
  if (scratch.speed.length < hi - lo)
    for (const metric of ['speed', 'ttft', 'ttfat', 'e2e'] as const) scratch[metric] = new Float64Array(2 * (hi - lo));
  const { speed, ttft, ttfat, e2e } = scratch;
  let speeds = 0;
  let ttfts = 0;
  let ttfats = 0;
  let e2es = 0;
  for (let i = lo; i < hi; i++) {
    if (!cols.success[i]) continue;
    if (!Number.isNaN(cols.speed[i])) speed[speeds++] = cols.speed[i];
    if (!Number.isNaN(cols.ttft[i])) ttft[ttfts++] = cols.ttft[i];
    if (!Number.isNaN(cols.ttfat[i])) ttfat[ttfats++] = cols.ttfat[i];
    const end = endToEndAt(cols, i);
    if (end !== null) e2e[e2es++] = end;
  }
  out[at] = medianOfFirst(speed, speeds);
  out[at + 1] = medianOfFirst(ttft, ttfts);
  out[at + 2] = medianOfFirst(ttfat, ttfats);
  out[at + 3] = medianOfFirst(e2e, e2es);
}

/** The rounded median of the first `count` figures (reordering them), NaN for none. */
function medianOfFirst(figures: Float64Array, count: number): number {
  return count === 0
    ? Number.NaN
    : round(quantileSorted(figures.subarray(0, count).sort(), 0.5)!, PERFORMANCE_DECIMALS);
}

/** Medians, percentiles and quartiles of the successful records in `[lo, hi)` (all null for none). */
export function performanceOf(cols: SeriesColumns, lo = 0, hi = cols.length): Performance {
  // One pass over the records for all of them.
  const figures = successfulFigures(cols, lo, hi);
  const out = mediansFrom(figures);
  for (const { prefix, q } of SPREAD_LEVELS) {
    out[`${prefix}output_tokens_per_second`] = roundOrNull(quantileSorted(figures.speed, q), PERFORMANCE_DECIMALS);
    out[`${prefix}time_to_first_token_seconds`] = roundOrNull(quantileSorted(figures.ttft, q), PERFORMANCE_DECIMALS);
  }
  return out;
}

/** A model's figure for each field: the median across its providers' figures. */
export function medianAcrossProviders(perProvider: readonly Performance[], fields: readonly string[]): Performance {
  return Object.fromEntries(
    fields.map((f) => [f, roundOrNull(median(perProvider.map((p) => p[f] ?? null)), PERFORMANCE_DECIMALS)]),
  );
}

/** Only the four medians (provider list items, Free shape). */
export function mediansOnly(performance: Performance): Performance {
  return Object.fromEntries(MEDIAN_METRICS.map((f) => [f, performance[f] ?? null]));
}
