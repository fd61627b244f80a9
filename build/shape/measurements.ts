/**
 * The measurements route answers "records since start_date", and start_date depends on the
 * request's own day, so its bodies cannot all be precomputed. Instead the build writes, per
 * provider and prompt type, the records of the last month already serialised (one blob) and
 * an index: per model, where in the blob each day starts. The server answers by slicing and
 * concatenating those bytes; it never serialises a record.
 */
import { oneMonthBefore } from '../../src/shared/dates.ts';
import type { MeasurementIndex } from '../../src/shared/measurements.ts';
import type { PromptType } from '../../src/shared/routes.ts';
import { uuidFrom } from '../derive/ids.ts';
import { roundOrNull } from '../derive/stats.ts';
import type { ProviderView } from '../derive/providers.ts';
import { endToEndAt, indexAfter, nullFor, type SeriesColumns } from '../columns.ts';
import { isoTimeWriter } from './iso-time.ts';

/**
 * A stable id for a record the data gives none: a UUID (version 8, RFC 9562) made from the
 * endpoint, prompt type and instant (as toISOString writes it), so the same record keeps its id
 * across builds.
 */
export function derivedRecordId(endpointId: string, promptType: string, isoTime: string): string {
  return uuidFrom(`${endpointId}|${promptType}|${isoTime}`);
}

/**
 * Record `i` of the columns in the route's shape (the original service's field names), its
 * instant given as toISOString writes it: written once a record, for its date, its derived id
 * and its day, where it had been written four times (the sample's fragments hold 375,000
 * records; with the one-shot hash of their ids, shaping them went from 6.1 to 3.0 s of CPU,
 * shaping alone, alternated runs).
 */
function measurementRecordAt(
  cols: SeriesColumns,
  i: number,
  isoTime: string,
  endpointId: string,
  promptType: string,
): Record<string, unknown> {
  return {
    id: cols.ids?.[i] ?? derivedRecordId(endpointId, promptType, isoTime),
    date: isoTime,
    success: cols.success[i] === 1,
    output_tokens_per_second: nullFor(cols.speed[i]),
    time_to_first_token_seconds: nullFor(cols.ttft[i]),
    time_to_first_answer_token: nullFor(cols.ttfat[i]),
    end_to_end_response_time_seconds: roundOrNull(endToEndAt(cols, i), 3),
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
export function measurementBlob(
  view: ProviderView,
  promptType: PromptType,
  recordsOf: (endpointId: string) => SeriesColumns,
  asOf: number,
): MeasurementBlob {
  const since = firstKeptDay(asOf);
  const chunks: string[] = [];
  let offset = 0;
  const models = view.offers.map(({ model, endpoint }) => {
    const days: string[] = [];
    const offsets: number[] = [];
    let first = true;
    const cols = recordsOf(endpoint.endpoint.id);
    const isoTimeOf = isoTimeWriter();
    for (
      let i = indexAfter(cols, Date.parse(`${since}T00:00:00.000Z`) - 1);
      i < cols.length && cols.time[i] <= asOf;
      i++
    ) {
      const isoTime = isoTimeOf(cols.time[i]);
      const day = isoTime.slice(0, 10);
      if (days.at(-1) !== day) {
        days.push(day);
        offsets.push(offset + (first ? 0 : 1));
      }
      const record = measurementRecordAt(cols, i, isoTime, endpoint.endpoint.id, promptType);
      const json = `${first ? '' : ','}${JSON.stringify(record)}`;
      chunks.push(json);
      offset += Buffer.byteLength(json);
      first = false;
    }
    const modelJson = JSON.stringify({ id: model.model.id, name: model.model.name, slug: model.model.slug });
    const head = `${modelJson.slice(0, -1)},"measurements":[`;
    return { head, days, offsets, end: offset };
  });
  const { provider } = view;
  const providerJson = JSON.stringify({ id: provider.id, name: provider.name, slug: provider.slug });
  const head = `{"tier":"commercial","data":${providerJson.slice(0, -1)},"models":[`;
  return { data: Buffer.from(chunks.join('')), index: { head, tail: ']}}', models } };
}
