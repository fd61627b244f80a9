/**
 * Measurement records held as columns: one typed array per figure, sorted by time. A large
 * dataset has millions of records; as objects they fill the heap and every garbage
 * collection walks them (the build then slows down far more than the data grows). As
 * columns they take about 45 bytes a record and nothing to trace. NaN stands for null.
 */
import type { MeasurementRecord, SeriesColumns } from './types.ts';

/** The contract's convention: end-to-end response time assumes 500 answer tokens. */
export const ANSWER_TOKENS_FOR_E2E = 500;

export type { SeriesColumns } from './types.ts';

const nanFor = (v: number | null | undefined) => (v === null || v === undefined ? NaN : v);
export const nullFor = (v: number) => (Number.isNaN(v) ? null : v);

export function toColumns(records: readonly MeasurementRecord[]): SeriesColumns {
  const n = records.length;
  // Each timestamp is parsed once; a series given in time order (the usual case) is not sorted.
  const times = new Float64Array(n);
  let inOrder = true;
  for (let i = 0; i < n; i++) {
    times[i] = Date.parse(records[i].timestamp);
    if (Number.isNaN(times[i]) || (i > 0 && times[i] < times[i - 1])) inOrder = false;
  }
  // A stable sort by time, as sorting the records themselves would give.
  const order = inOrder ? null : Array.from({ length: n }, (_, i) => i).sort((a, b) => times[a] - times[b]);
  const cols = {
    length: n,
    time: new Float64Array(n),
    speed: new Float64Array(n),
    ttft: new Float64Array(n),
    ttfat: new Float64Array(n),
    e2e: new Float64Array(n),
    success: new Uint8Array(n),
  };
  const ids: (string | undefined)[] = new Array(n);
  let anyId = false;
  for (let i = 0; i < n; i++) {
    const from = order ? order[i] : i;
    const r = records[from];
    cols.time[i] = times[from];
    cols.speed[i] = nanFor(r.output_tokens_per_second);
    cols.ttft[i] = nanFor(r.time_to_first_token_seconds);
    cols.ttfat[i] = nanFor(r.time_to_first_answer_token_seconds);
    cols.e2e[i] = nanFor(r.end_to_end_response_time_seconds);
    cols.success[i] = r.success ? 1 : 0;
    ids[i] = r.id;
    if (r.id !== undefined) anyId = true;
  }
  return { ...cols, ids: anyId ? ids : null };
}

export const EMPTY_COLUMNS = toColumns([]);

/** One record back as the data had it (timestamps normalised to UTC milliseconds). */
export function recordAt(cols: SeriesColumns, i: number): MeasurementRecord {
  const record: MeasurementRecord = {
    timestamp: new Date(cols.time[i]).toISOString(),
    success: cols.success[i] === 1,
    output_tokens_per_second: nullFor(cols.speed[i]),
    time_to_first_token_seconds: nullFor(cols.ttft[i]),
    time_to_first_answer_token_seconds: nullFor(cols.ttfat[i]),
  };
  if (!Number.isNaN(cols.e2e[i])) record.end_to_end_response_time_seconds = cols.e2e[i];
  const id = cols.ids?.[i];
  if (id !== undefined) record.id = id;
  return record;
}

/** First index whose time is after `t` (binary search over the sorted times). */
export function indexAfter(cols: SeriesColumns, t: number): number {
  let lo = 0;
  let hi = cols.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cols.time[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index range `[lo, hi)` of the records with `from < time <= to`. */
export function rangeBetween(cols: SeriesColumns, from: number, to: number): [number, number] {
  return [indexAfter(cols, from), indexAfter(cols, to)];
}

/**
 * A record's end-to-end response time: the measured value when the data gives one, otherwise
 * time to first answer token plus 500 tokens at the measured output speed.
 */
export function estimateEndToEnd(
  stored: number | null | undefined,
  ttfat: number | null,
  speed: number | null,
): number | null {
  if (stored !== null && stored !== undefined) return stored;
  if (ttfat === null || speed === null || speed <= 0) return null;
  return ttfat + ANSWER_TOKENS_FOR_E2E / speed;
}

export function endToEndAt(cols: SeriesColumns, i: number): number | null {
  return estimateEndToEnd(nullFor(cols.e2e[i]), nullFor(cols.ttfat[i]), nullFor(cols.speed[i]));
}
