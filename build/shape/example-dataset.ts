/**
 * A made-up dataset for the OpenAPI document's examples. The document is served without a key,
 * so its examples must not come from the served data (a model's scores, a provider's raw
 * measurements, its prices): they are shaped by the same builders from this instead. Every
 * name says "Example", ids are all zeros but a counter, numbers are round and dates fixed, so
 * nobody mistakes an example for data, and the document is the same whatever data is served.
 * Every field a body can carry has a value, so each example shows the whole shape; the second
 * model leaves some out, to show what "not measured" (null) looks like.
 */
import { MEDIA_ARENAS, PROMPT_TYPES } from '../../src/shared/routes.ts';
import { toColumns } from '../columns.ts';
import type { Dataset, LanguageModel, MeasurementRecord, ProviderEndpoint, SeriesOfColumns } from '../types.ts';
import { exampleArena } from './example-arenas.ts';
import { exampleIndices, exampleModel, exampleModelMini } from './example-language.ts';
import { EXAMPLE_CREATOR, EXAMPLE_PROVIDER, EXAMPLE_PROVIDER_TWO, exampleId } from './example-parties.ts';

/** The examples' "now": the newest example measurement and the end of every window. */
export const EXAMPLE_AS_OF = Date.parse('2025-06-30T12:00:00.000Z');
/** The statistics window of the examples (the build's default). */
export const EXAMPLE_STATS_DAYS = 14;

const DAY_MS = 86_400_000;
/** Days of example measurements before EXAMPLE_AS_OF: the longest performance window. */
const MEASURED_DAYS = 90;

const endpoint = (
  n: number,
  model: LanguageModel,
  provider: { id: string },
  prices: [number, number, number | null, number | null],
  context: number,
): ProviderEndpoint => ({
  id: exampleId(n),
  model_id: model.id,
  provider_id: provider.id,
  price_1m_input_tokens: prices[0],
  price_1m_output_tokens: prices[1],
  price_1m_cache_hit_tokens: prices[2],
  price_1m_cache_write_tokens: prices[3],
  context_window_tokens: context,
});

/**
 * Figures an endpoint's records go round, a day each: speed, time to first token, to first answer
 * token, end to end.
 */
type Cycle = readonly (readonly [number, number, number, number])[];

/**
 * One record a day at noon for the last MEASURED_DAYS days, for every prompt type, each with
 * an id as plainly made up as the rest (`first` and up; the build would derive real-looking ones).
 */
function exampleSeries(endpointId: string, cycle: Cycle, first: number): SeriesOfColumns[] {
  return PROMPT_TYPES.map((prompt_type, p) => {
    const records: MeasurementRecord[] = [];
    for (let day = MEASURED_DAYS; day >= 0; day--) {
      const [speed, ttft, ttfat, e2e] = cycle[day % cycle.length];
      records.push({
        id: exampleId(first + p * 1000 + MEASURED_DAYS - day),
        timestamp: new Date(EXAMPLE_AS_OF - day * DAY_MS).toISOString(),
        success: true,
        output_tokens_per_second: speed,
        time_to_first_token_seconds: ttft,
        time_to_first_answer_token_seconds: ttfat,
        end_to_end_response_time_seconds: e2e,
      });
    }
    return { endpoint_id: endpointId, prompt_type, columns: toColumns(records) };
  });
}

/** The made-up dataset: two models, two providers, three endpoints, every arena, a few CritPt problems. */
export function exampleDataset(): Dataset {
  const model = exampleModel();
  const mini = exampleModelMini();
  const endpoints = [
    endpoint(31, model, EXAMPLE_PROVIDER, [1, 4, 0.2, null], 128_000),
    endpoint(32, model, EXAMPLE_PROVIDER_TWO, [3, 8, 0.4, 2.5], 128_000),
    endpoint(33, mini, EXAMPLE_PROVIDER, [0.1, 0.4, 0.05, null], 32_000),
  ];
  const cycles: Cycle[] = [
    [
      [90, 0.4, 1.4, 7],
      [100, 0.5, 1.5, 6.5],
      [110, 0.6, 1.6, 6],
      [100, 0.5, 1.5, 6.5],
    ],
    [
      [60, 0.8, 1.8, 10],
      [70, 0.9, 1.9, 9],
      [80, 1, 2, 8],
      [70, 0.9, 1.9, 9],
    ],
    [
      [180, 0.2, 0.2, 3],
      [200, 0.3, 0.3, 2.8],
      [220, 0.4, 0.4, 2.6],
      [200, 0.3, 0.3, 2.8],
    ],
  ];
  return {
    creators: [EXAMPLE_CREATOR],
    providers: [EXAMPLE_PROVIDER, EXAMPLE_PROVIDER_TWO],
    models: [model, mini],
    endpoints,
    series: endpoints.flatMap((e, i) => exampleSeries(e.id, cycles[i], 10_000 * (i + 1))),
    indices: exampleIndices(),
    media: Object.fromEntries(MEDIA_ARENAS.map(({ arena, family }, i) => [arena, exampleArena(family, 100 + 10 * i)])),
    critptProblems: ['example_problem_1', 'example_problem_2', 'example_problem_3'],
  };
}
