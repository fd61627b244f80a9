/**
 * Performance figures from raw measurement records: per endpoint over the statistics window,
 * and per model as the median across its providers. Records come as columns (see
 * columns.ts) and a range `[lo, hi)` of them.
 */
import { MEDIAN_METRICS, SPREAD_LEVELS } from '../fields.ts';
import type { MeasurementRecord } from '../types.ts';
import { endToEndAt, estimateEndToEnd, type SeriesColumns } from '../columns.ts';
import { median, quantileSorted, roundOrNull, sortNumbers } from './stats.ts';

export { ANSWER_TOKENS_FOR_E2E } from '../columns.ts';
const PERFORMANCE_DECIMALS = 3;

export type Performance = Record<string, number | null>;

/** A record's end-to-end response time (stored, or estimated from the 500-token convention). */
export function endToEndSeconds(record: MeasurementRecord): number | null {
  return estimateEndToEnd(record.end_to_end_response_time_seconds, record.time_to_first_answer_token_seconds, record.output_tokens_per_second);
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
  return mediansFrom(successfulFigures(cols, lo, hi));
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
  return Object.fromEntries(fields.map((f) => [f, roundOrNull(median(perProvider.map((p) => p[f] ?? null)), PERFORMANCE_DECIMALS)]));
}

/** Only the four medians (provider list items, Free shape). */
export function mediansOnly(performance: Performance): Performance {
  return Object.fromEntries(MEDIAN_METRICS.map((f) => [f, performance[f] ?? null]));
}
