/**
 * Performance over time: calendar buckets (UTC days, weeks starting Monday, months) and one
 * point per bucket with the medians of that bucket's successful records.
 *
 * A window is a whole number of buckets ending with the one that holds `asOf`: round(window
 * days / bucket days), at least one. So 90d weekly is always 13 points, 30d daily 30 points,
 * 90d monthly 3 points; the newest bucket may be partial.
 */
import { PERFORMANCE_INTERVALS, PERFORMANCE_WINDOWS } from '../../src/shared/routes.ts';
import { rangeBetween, type SeriesColumns } from '../columns.ts';
import { MEDIAN_METRICS } from '../fields.ts';
import { mediansInto, mediansOf } from './performance.ts';

export type Interval = (typeof PERFORMANCE_INTERVALS)[number];
export type WindowName = (typeof PERFORMANCE_WINDOWS)[number];

const DAY_MS = 86_400_000;
const BUCKET_DAYS: Record<Interval, number> = { daily: 1, weekly: 7, monthly: 365.25 / 12 };

export function windowDays(window: WindowName): number {
  return Number(window.slice(0, -1));
}

/** Start (ms, UTC) of the bucket holding `at`. */
export function bucketStart(at: number, interval: Interval): number {
  const day = Math.floor(at / DAY_MS) * DAY_MS;
  if (interval === 'daily') return day;
  if (interval === 'weekly') return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS; // back to Monday
  const d = new Date(day);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** Start of the bucket `steps` buckets after the one starting at `start` (negative: before). */
export function shiftBucket(start: number, interval: Interval, steps: number): number {
  if (interval === 'daily') return start + steps * DAY_MS;
  if (interval === 'weekly') return start + steps * 7 * DAY_MS;
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + steps, 1);
}

export function bucketCount(window: WindowName, interval: Interval): number {
  return Math.max(1, Math.round(windowDays(window) / BUCKET_DAYS[interval]));
}

/** Bucket starts of a window, oldest first. */
export function windowBuckets(asOf: number, window: WindowName, interval: Interval): number[] {
  const last = bucketStart(asOf, interval);
  const count = bucketCount(window, interval);
  return Array.from({ length: count }, (_, i) => shiftBucket(last, interval, i - count + 1));
}

export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export type SeriesPoint = Record<string, string | number | null>;

/**
 * An endpoint's points of every window for one interval, kept compactly (a build holds every
 * endpoint's at once): the dates, shared by every series of the interval, and each bucket's
 * figures in point order, NaN for null.
 */
export interface CompactSeries {
  dates: readonly string[];
  fields: readonly string[];
  values: Float64Array;
}

/**
 * A window's bucket starts and their dates, worked out once per as-of time, window and interval:
 * every endpoint's series of an interval has the same ones. Formatting them per endpoint and
 * prompt type was 430,000 calls of toISOString in the sample's build; with a point's figures
 * written straight into the compact array, shaping the model performance bodies went from 4.1
 * to 2.9 s of CPU (the sample, shaping alone, alternated runs).
 */
const bucketsMemo = new Map<string, { starts: readonly number[]; dates: readonly string[] }>();
/**
 * The as-of time bucketsMemo holds: a build has one, and a process that builds again (tests,
 * rebuilds) keeps only the last's.
 */
let memoAsOf = Number.NaN;
function bucketsOf(
  asOf: number,
  window: WindowName,
  interval: Interval,
): { starts: readonly number[]; dates: readonly string[] } {
  if (asOf !== memoAsOf) {
    bucketsMemo.clear();
    memoAsOf = asOf;
  }
  const key = `${window} ${interval}`;
  let buckets = bucketsMemo.get(key);
  if (!buckets) {
    const starts = windowBuckets(asOf, window, interval);
    bucketsMemo.set(key, (buckets = { starts, dates: starts.map(isoDate) }));
  }
  return buckets;
}

/** The longest window's points of one interval, compacted; every series of an interval shares one `dates` array. */
export function compactSeries(records: SeriesColumns, asOf: number, interval: Interval): CompactSeries {
  const longest = PERFORMANCE_WINDOWS.reduce((a, b) => (windowDays(b) > windowDays(a) ? b : a));
  const { starts, dates } = bucketsOf(asOf, longest, interval);
  const fields = MEDIAN_METRICS;
  const values = new Float64Array(starts.length * fields.length);
  starts.forEach((start, i) =>
    mediansInto(records, ...bucketRange(records, asOf, interval, start), values, i * fields.length),
  );
  return { dates, fields, values };
}

/** The points of one window: the last buckets of the compacted longest window. */
export function windowPoints(series: CompactSeries, window: WindowName, interval: Interval): SeriesPoint[] {
  const { dates, fields, values } = series;
  const points: SeriesPoint[] = [];
  for (let i = dates.length - bucketCount(window, interval); i < dates.length; i++) {
    const point: SeriesPoint = { date: dates[i] };
    fields.forEach((f, j) => {
      const value = values[i * fields.length + j];
      point[f] = Number.isNaN(value) ? null : value;
    });
    points.push(point);
  }
  return points;
}

/**
 * One point per bucket, in date order; a metric with no measurement in its bucket is null.
 * Records are sorted by time, so each bucket is one range of them.
 */
export function seriesPoints(
  records: SeriesColumns,
  asOf: number,
  window: WindowName,
  interval: Interval,
): SeriesPoint[] {
  const { starts, dates } = bucketsOf(asOf, window, interval);
  return starts.map((start, i) => ({
    date: dates[i],
    ...mediansOf(records, ...bucketRange(records, asOf, interval, start)),
  }));
}

/** The range of one bucket's records (the newest bucket ends at `asOf`). */
function bucketRange(records: SeriesColumns, asOf: number, interval: Interval, start: number): [number, number] {
  const end = Math.min(shiftBucket(start, interval, 1) - 1, asOf);
  return rangeBetween(records, start - 1, end);
}
