/**
 * Performance figures from raw measurement records: per endpoint over the statistics window,
 * and per model as the median across its providers.
 */
import { MEDIAN_METRICS, SPREAD_LEVELS } from '../fields.ts';
import type { MeasurementRecord } from '../types.ts';
import { median, quantileSorted, roundOrNull, sortNumbers } from './stats.ts';

/** The spec's convention: end-to-end response time assumes 500 answer tokens. */
export const ANSWER_TOKENS_FOR_E2E = 500;
const PERFORMANCE_DECIMALS = 3;

export type Performance = Record<string, number | null>;

/**
 * A record's end-to-end response time: the measured value when the data gives one, otherwise
 * time to first answer token plus 500 tokens at the measured output speed.
 */
export function endToEndSeconds(record: MeasurementRecord): number | null {
  if (record.end_to_end_response_time_seconds != null) return record.end_to_end_response_time_seconds;
  const { time_to_first_answer_token_seconds: ttfat, output_tokens_per_second: speed } = record;
  if (ttfat === null || speed === null || speed <= 0) return null;
  return ttfat + ANSWER_TOKENS_FOR_E2E / speed;
}

/** Records with `from < time <= to` (milliseconds), from a list sorted by time. */
export function recordsBetween(records: readonly MeasurementRecord[], from: number, to: number): MeasurementRecord[] {
  return records.filter((r) => {
    const t = Date.parse(r.timestamp);
    return t > from && t <= to;
  });
}

function present(values: (number | null)[]): number[] {
  return values.filter((v): v is number => v !== null);
}

/** Medians, percentiles and quartiles of the successful records given (all null for none). */
export function performanceOf(records: readonly MeasurementRecord[]): Performance {
  const ok = records.filter((r) => r.success);
  const speed = sortNumbers(present(ok.map((r) => r.output_tokens_per_second)));
  const ttft = sortNumbers(present(ok.map((r) => r.time_to_first_token_seconds)));
  const out: Performance = {
    median_output_tokens_per_second: roundOrNull(quantileSorted(speed, 0.5), PERFORMANCE_DECIMALS),
    median_time_to_first_token_seconds: roundOrNull(quantileSorted(ttft, 0.5), PERFORMANCE_DECIMALS),
    median_time_to_first_answer_token_seconds: roundOrNull(median(ok.map((r) => r.time_to_first_answer_token_seconds)), PERFORMANCE_DECIMALS),
    median_end_to_end_response_time_seconds: roundOrNull(median(ok.map(endToEndSeconds)), PERFORMANCE_DECIMALS),
  };
  for (const { prefix, q } of SPREAD_LEVELS) {
    out[`${prefix}output_tokens_per_second`] = roundOrNull(quantileSorted(speed, q), PERFORMANCE_DECIMALS);
    out[`${prefix}time_to_first_token_seconds`] = roundOrNull(quantileSorted(ttft, q), PERFORMANCE_DECIMALS);
  }
  return out;
}

/** Only the four medians of the successful records (series points need no spread). */
export function mediansOf(records: readonly MeasurementRecord[]): Performance {
  const ok = records.filter((r) => r.success);
  return {
    median_output_tokens_per_second: roundOrNull(median(ok.map((r) => r.output_tokens_per_second)), PERFORMANCE_DECIMALS),
    median_time_to_first_token_seconds: roundOrNull(median(ok.map((r) => r.time_to_first_token_seconds)), PERFORMANCE_DECIMALS),
    median_time_to_first_answer_token_seconds: roundOrNull(median(ok.map((r) => r.time_to_first_answer_token_seconds)), PERFORMANCE_DECIMALS),
    median_end_to_end_response_time_seconds: roundOrNull(median(ok.map(endToEndSeconds)), PERFORMANCE_DECIMALS),
  };
}

/** A model's figure for each field: the median across its providers' figures. */
export function medianAcrossProviders(perProvider: readonly Performance[], fields: readonly string[]): Performance {
  return Object.fromEntries(fields.map((f) => [f, roundOrNull(median(perProvider.map((p) => p[f] ?? null)), PERFORMANCE_DECIMALS)]));
}

/** Only the four medians (provider list items, Free shape). */
export function mediansOnly(performance: Performance): Performance {
  return Object.fromEntries(MEDIAN_METRICS.map((f) => [f, performance[f] ?? null]));
}
