/**
 * The measurements route answers "records since start_date", and start_date depends on the
 * request's own day, so its bodies cannot all be precomputed. Instead the build writes, per
 * provider and prompt type, the records of the last month already serialised (one blob) and
 * an index: per model, where in the blob each day starts. The server answers by slicing and
 * concatenating those bytes; it never serialises a record.
 */
import { isoDay, oneMonthBefore } from '../../src/shared/dates.ts';
import type { MeasurementIndex } from '../../src/shared/measurements.ts';
import type { PromptType } from '../../src/shared/routes.ts';
import { uuidFrom } from '../derive/ids.ts';
import { endToEndSeconds } from '../derive/performance.ts';
import { roundOrNull } from '../derive/stats.ts';
import type { ProviderView } from '../derive/providers.ts';
import type { MeasurementRecord } from '../types.ts';
import { indexAfter, recordAt, type SeriesColumns } from '../columns.ts';

/**
 * A stable id for a record the data gives none: a UUID (version 8, RFC 9562) made from the
 * endpoint, prompt type and instant, so the same record keeps its id across builds.
 */
export function derivedRecordId(endpointId: string, promptType: string, timestamp: string): string {
  return uuidFrom(`${endpointId}|${promptType}|${new Date(timestamp).toISOString()}`);
}

/** A record in the route's shape (the original service's field names). */
export function measurementRecord(record: MeasurementRecord, endpointId: string, promptType: string): Record<string, unknown> {
  return {
    id: record.id ?? derivedRecordId(endpointId, promptType, record.timestamp),
    date: new Date(record.timestamp).toISOString(),
    success: record.success,
    output_tokens_per_second: record.output_tokens_per_second,
    time_to_first_token_seconds: record.time_to_first_token_seconds,
    time_to_first_answer_token: record.time_to_first_answer_token_seconds,
    end_to_end_response_time_seconds: roundOrNull(endToEndSeconds(record), 3),
  };
}

export interface MeasurementBlob {
  /** Records of every model, serialised and joined by commas within a model. */
  data: Buffer;
  index: MeasurementIndex;
}

/** The first day the snapshot keeps: no request made after `asOf` can start earlier. */
export function firstKeptDay(asOf: number): string {
  return oneMonthBefore(asOf);
}

/** Serialise one provider's records for one prompt type, with the index the server slices by. */
export function measurementBlob(view: ProviderView, promptType: PromptType, recordsOf: (endpointId: string) => SeriesColumns, asOf: number): MeasurementBlob {
  const since = firstKeptDay(asOf);
  const chunks: string[] = [];
  let offset = 0;
  const models = view.offers.map(({ model, endpoint }) => {
    const days: string[] = [];
    const offsets: number[] = [];
    let first = true;
    const cols = recordsOf(endpoint.endpoint.id);
    for (let i = indexAfter(cols, Date.parse(`${since}T00:00:00.000Z`) - 1); i < cols.length && cols.time[i] <= asOf; i++) {
      const record = recordAt(cols, i);
      const day = isoDay(cols.time[i]);
      if (days.at(-1) !== day) {
        days.push(day);
        offsets.push(offset + (first ? 0 : 1));
      }
      const json = `${first ? '' : ','}${JSON.stringify(measurementRecord(record, endpoint.endpoint.id, promptType))}`;
      chunks.push(json);
      offset += Buffer.byteLength(json);
      first = false;
    }
    const head = `${JSON.stringify({ id: model.model.id, name: model.model.name, slug: model.model.slug }).slice(0, -1)},"measurements":[`;
    return { head, days, offsets, end: offset };
  });
  const { provider } = view;
  const head = `{"tier":"commercial","data":${JSON.stringify({ id: provider.id, name: provider.name, slug: provider.slug }).slice(0, -1)},"models":[`;
  return { data: Buffer.from(chunks.join('')), index: { head, tail: ']}}', models } };
}
