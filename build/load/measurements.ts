/**
 * The measurement files of the data folder (`measurements/<provider>.json`, one a provider):
 * their checks beyond the schema, and their series as columns. A file is read, checked and
 * turned into columns one at a time (as objects, all of them at once would fill the heap).
 */
import { toColumns } from '../columns.ts';
import { pointerOf, type Problem } from '../problems.ts';
import type { MeasurementsFile, SeriesOfColumns } from '../types.ts';
import { isUnknownReference, type LooseRecord, type RecordNamer, type Referable } from './validate.ts';

export function measurementRecordNamer(file: unknown): RecordNamer {
  return (pointer) => {
    const [, top, s, , r] = pointer.split('/');
    if (top !== 'series' || s === undefined) return undefined;
    const series = (file as MeasurementsFile).series?.[Number(s)];
    if (!series) return undefined;
    const record = r === undefined ? undefined : series.records?.[Number(r)];
    const at = record && typeof record.timestamp === 'string' ? ` at ${record.timestamp}` : '';
    return `endpoint ${String(series.endpoint_id)} ${String(series.prompt_type)}${at}`;
  };
}

export interface MeasurementContext {
  /** Null when provider-endpoints.json could not be read. */
  endpoints: ReadonlyMap<string, LooseRecord> | null;
  providers: Referable;
  seenSeries: Map<string, string>;
}

/** Each object of an array field of a parsed value, with its index, whatever the schema found wrong with it. */
function forEachObject(value: unknown, field: string, visit: (item: Record<string, unknown>, i: number) => void): void {
  const list = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[field] : undefined;
  if (!Array.isArray(list)) return;
  list.forEach((item, i) => {
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) visit(item as Record<string, unknown>, i);
  });
}

/**
 * The checks of a measurements file beyond its schema: its provider and endpoints exist and
 * match, no series is given twice, no two records of a series share a time, and a successful
 * request has its figures. Run on every file that parsed, schema errors or not (each field is
 * read only when it has the type the schema asks for; a wrong type is the schema's problem), so
 * one build reports every problem of every file.
 */
export function checkMeasurements(path: string, file: unknown, ctx: MeasurementContext, problems: Problem[]): void {
  const nameRecord = measurementRecordNamer(file);
  const report = (pointer: string, message: string) =>
    problems.push({ file: path, record: nameRecord(pointer), pointer, message });
  const providerId = (file as { provider_id?: unknown }).provider_id;
  if (isUnknownReference(ctx.providers, providerId)) report('/provider_id', `unknown provider ${String(providerId)}`);
  forEachObject(file, 'series', (series, s) => {
    const endpointId = series.endpoint_id;
    if (typeof endpointId === 'string') {
      const endpoint = ctx.endpoints?.get(endpointId);
      if (ctx.endpoints && !endpoint)
        report(pointerOf('series', s, 'endpoint_id'), `unknown provider endpoint ${endpointId}`);
      else if (endpoint && typeof providerId === 'string' && endpoint.provider_id !== providerId) {
        report(
          pointerOf('series', s, 'endpoint_id'),
          `endpoint belongs to provider ${String(endpoint.provider_id)}, not to this file's provider ${providerId}`,
        );
      }
      const seriesKey = `${endpointId} ${String(series.prompt_type)}`;
      const earlier = ctx.seenSeries.get(seriesKey);
      if (earlier)
        report(pointerOf('series', s), `series for this endpoint and prompt type already given in ${earlier}`);
      ctx.seenSeries.set(seriesKey, path);
    }
    // Compare instants, not spellings: 12:00:00.000Z and 12:00:00+00:00 are the same time.
    const times = new Set<number>();
    forEachObject(series, 'records', (record, r) => {
      const at = typeof record.timestamp === 'string' ? Date.parse(record.timestamp) : NaN;
      if (!Number.isNaN(at)) {
        if (times.has(at))
          report(pointerOf('series', s, 'records', r, 'timestamp'), 'two records of one series at the same time');
        times.add(at);
      }
      if (record.success !== true) return;
      for (const field of [
        'output_tokens_per_second',
        'time_to_first_token_seconds',
        'time_to_first_answer_token_seconds',
      ] as const) {
        if (record[field] === null)
          report(pointerOf('series', s, 'records', r, field), 'a successful request must have this figure');
      }
      if (record.output_tokens_per_second === 0)
        report(
          pointerOf('series', s, 'records', r, 'output_tokens_per_second'),
          'a successful request produced tokens, so its speed is above 0',
        );
    });
  });
}

/** A measurements file that passed its schema and its checks, as columns. */
export function seriesOf(file: MeasurementsFile): SeriesOfColumns[] {
  return file.series.map((series) => ({
    endpoint_id: series.endpoint_id,
    prompt_type: series.prompt_type,
    columns: toColumns(series.records),
  }));
}
