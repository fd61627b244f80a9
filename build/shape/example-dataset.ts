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
import type { MediaFamily } from '../schemas/media.ts';
import { toColumns } from '../columns.ts';
import type {
  CategoryScore,
  Dataset,
  IndexComponent,
  IndexDefinitions,
  LanguageModel,
  MediaEntry,
  MeasurementRecord,
  ModelCreator,
  ProviderEndpoint,
  SeriesOfColumns,
} from '../types.ts';

/** The examples' "now": the newest example measurement and the end of every window. */
export const EXAMPLE_AS_OF = Date.parse('2025-06-30T12:00:00.000Z');
/** The statistics window of the examples (the build's default). */
export const EXAMPLE_STATS_DAYS = 14;

const DAY_MS = 86_400_000;
/** Days of example measurements before EXAMPLE_AS_OF: the longest performance window. */
const MEASURED_DAYS = 90;

/** An id that is plainly no real one: zeros but a number. */
function exampleId(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

const CREATOR: ModelCreator = { id: exampleId(1), slug: 'example-creator', name: 'Example Creator', country: 'us' };
const PROVIDER = { id: exampleId(11), slug: 'example-provider', name: 'Example Provider', country: 'us' };
const PROVIDER_TWO = { id: exampleId(12), slug: 'example-provider-two', name: 'Example Provider Two', country: null };

const component = (id: string, score: string, min = 0, max = 1, tasks?: number): IndexComponent => ({
  id,
  score,
  weight: 1,
  min,
  max,
  ...(tasks ? { tasks } : {}),
});

/** One plain component per index, so every headline index of the examples has a value. */
function exampleIndices(): IndexDefinitions {
  return {
    intelligence_index: {
      key: 'platform_intelligence_index',
      version: '1.0.0',
      components: [
        component('gdpval_platform', '/evaluations/gdpval_platform_elo', 800, 1600, 100),
        component('scicode', '/evaluations/scicode', 0, 1, 100),
        component('platform_omniscience', '/omniscience_breakdown/total/omniscience', -100, 100, 100),
      ],
      subsets: [
        { key: 'platform_coding_index', components: ['scicode'] },
        { key: 'platform_agentic_index', components: ['gdpval_platform', 'platform_omniscience'] },
      ],
    },
    capability_indices: {
      version: '1.0.0',
      indices: [
        {
          key: 'platform_finance_and_accounting_index',
          components: [component('tau_banking', '/evaluations/tau_banking')],
        },
        { key: 'platform_strategy_and_ops_index', components: [component('gdp_pdf', '/evaluations/gdp_pdf')] },
        { key: 'platform_legal_index', components: [component('ifbench', '/evaluations/ifbench')] },
        { key: 'platform_healthcare_and_medical_index', components: [component('hle', '/evaluations/hle')] },
        {
          key: 'platform_engineering_index',
          components: [component('terminalbench_hard', '/evaluations/terminalbench_hard')],
        },
        { key: 'platform_economics_index', components: [component('gpqa_diamond', '/evaluations/gpqa_diamond')] },
      ],
    },
    openness_index: {
      key: 'platform_openness_index',
      version: '1.0.0',
      components: [
        component('weights_access', '/openness/weights_access'),
        component('methodology_disclosure', '/openness/methodology_disclosure'),
      ],
    },
    math_index: {
      key: 'platform_math_index',
      version: '1.0.0',
      components: [component('aime_25', '/evaluations/aime_25')],
    },
  };
}

const TEXT_ONLY = { text: true, image: false, video: false, speech: false };
const TOKENS = { input_tokens: 1_000_000, answer_tokens: 200_000, reasoning_tokens: 300_000 };
const SCORES = { accuracy: 0.6, omniscience: 20, hallucination_rate: 0.4 };

function exampleModel(): LanguageModel {
  return {
    id: exampleId(21),
    slug: 'example-model',
    name: 'Example Model',
    creator_id: CREATOR.id,
    release_date: '2025-01-01',
    reasoning_model: true,
    evaluations: {
      tau2_telecom: 0.8,
      tau_banking: 0.6,
      terminalbench_hard: 0.3,
      terminalbench_v2_1: 0.4,
      terminalbench_v4_0: 0.2,
      platform_briefcase_elo: 1100,
      automationbench_platform: 0.5,
      gdp_pdf: 0.7,
      scicode: 0.4,
      platform_lcr: 0.6,
      ifbench: 0.7,
      hle: 0.2,
      gpqa_diamond: 0.8,
      critpt: 0.1,
      gdpval_platform_elo: 1200,
      mmmu_pro: 0.7,
      platform_multilingual_index: 80,
      mmlu_pro: 0.8,
      livecodebench: 0.7,
      math_500: 0.9,
      aime: 0.8,
      aime_25: 0.7,
    },
    evaluation_token_counts: { gdpval_platform: TOKENS, scicode: TOKENS, platform_omniscience: TOKENS, hle: TOKENS },
    omniscience_breakdown: {
      total: SCORES,
      law: SCORES,
      health: SCORES,
      business: SCORES,
      humanities_and_social_sciences: SCORES,
      science_engineering_and_mathematics: SCORES,
      software_engineering: null,
    },
    openness: {
      weights_access: 1,
      weights_license: 1,
      data_pretrain_access: 0,
      data_pretrain_license: 0,
      data_posttrain_access: 0,
      data_posttrain_license: 0,
      methodology_license: 1,
      methodology_disclosure: 0.5,
    },
    parameters: { total: 100, active: 10 },
    modalities: { input: { ...TEXT_ONLY, image: true }, output: TEXT_ONLY },
    licensing: { is_open_weights: true },
    context_window_tokens: 128_000,
    weights_hub_url: 'https://example.com/example-creator/example-model',
    router_api_id: 'example-creator/example-model',
  };
}

/** Measured less: what is missing is null, as a whole (no token counts: no index cost). */
function exampleModelMini(): LanguageModel {
  return {
    id: exampleId(22),
    slug: 'example-model-mini',
    name: 'Example Model Mini',
    creator_id: CREATOR.id,
    release_date: '2025-03-01',
    reasoning_model: false,
    evaluations: {
      tau_banking: 0.4,
      gdp_pdf: 0.5,
      scicode: 0.3,
      ifbench: 0.6,
      hle: 0.1,
      gpqa_diamond: 0.6,
      gdpval_platform_elo: 1000,
      critpt: null,
      aime_25: 0.5,
    },
    omniscience_breakdown: {
      total: { accuracy: 0.4, omniscience: -10, hallucination_rate: 0.5 },
      law: null,
      health: null,
      business: null,
      humanities_and_social_sciences: null,
      science_engineering_and_mathematics: null,
      software_engineering: null,
    },
    openness: null,
    parameters: { total: null, active: null },
    modalities: { input: TEXT_ONLY, output: TEXT_ONLY },
    licensing: { is_open_weights: false },
    context_window_tokens: 32_000,
  };
}

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

/** The arena entries' family-specific fields, by family; two entries an arena, the second a step behind. */
function arenaFields(family: MediaFamily, second: boolean): Partial<MediaEntry> {
  const elo = second ? 1100 : 1200;
  const rated = { elo, ci_95: second ? 10 : 5, samples: second ? 5000 : 10_000 };
  const score = (label: string, kind?: CategoryScore['kind']): CategoryScore => ({
    ...(kind ? { kind } : {}),
    label,
    elo: elo + 10,
    ci_95: 20,
    samples: 1000,
  });
  switch (family) {
    case 'image':
      return {
        ...rated,
        superseded_by: null,
        first_party: true,
        price_per_1k_images: second ? 20 : 40,
        open_weights_url: null,
        categories: [score('Example Style', 'style'), score('Example Subject', 'subject_matter')],
      };
    case 'video':
      return {
        ...rated,
        superseded_by: null,
        price_per_minute: second ? 3 : 6,
        open_weights_url: null,
        categories: [
          score('Example Style', 'style'),
          score('Example Subject', 'subject_matter'),
          score('Example Format', 'format'),
        ],
      };
    case 'text-to-speech':
      return { ...rated, superseded_by: null, price_per_1m_characters: second ? 10 : 20 };
    case 'music':
      return { ...rated, superseded_by: null, genres: [score('Example Genre')] };
    case 'speech-to-speech':
      return {
        bba_score: second ? 0.6 : 0.8,
        fdb_score: second ? 0.5 : 0.7,
        providers: [
          {
            provider_id: PROVIDER.id,
            price_per_hour_input: 1,
            price_per_hour_output: 4,
            time_to_first_audio_seconds: second ? 0.8 : 0.5,
            tau_voice_score: second ? 0.4 : 0.6,
          },
        ],
      };
    case 'speech-to-text':
      return {
        open_weights: second,
        providers: [
          {
            provider_id: PROVIDER.id,
            price_per_1k_minutes: second ? 3 : 6,
            median_speed_factor: second ? 100 : 50,
            platform_agenttalk: second ? 0.1 : 0.05,
            voxpopuli_cleaned_platform: 0.1,
            earnings_22_cleaned_platform: second ? 0.1 : 0.15,
          },
        ],
      };
  }
}

const FAMILY_NAMES: Record<MediaFamily, string> = {
  image: 'Image',
  video: 'Video',
  'text-to-speech': 'Voice',
  'speech-to-speech': 'Speech',
  'speech-to-text': 'Transcription',
  music: 'Music',
};

/** Two entries for an arena of the given family. */
function exampleArena(family: MediaFamily, firstId: number): MediaEntry[] {
  const name = `Example ${FAMILY_NAMES[family]} Model`;
  return [false, true].map((second, i) => ({
    id: exampleId(firstId + i),
    name: second ? `${name} Mini` : name,
    slug: `${name.toLowerCase().replaceAll(' ', '-')}${second ? '-mini' : ''}`,
    creator_id: CREATOR.id,
    release_date: second ? '2025-03-01' : '2025-01-01',
    ...arenaFields(family, second),
  }));
}

/** The made-up dataset: two models, two providers, three endpoints, every arena, a few CritPt problems. */
export function exampleDataset(): Dataset {
  const model = exampleModel();
  const mini = exampleModelMini();
  const endpoints = [
    endpoint(31, model, PROVIDER, [1, 4, 0.2, null], 128_000),
    endpoint(32, model, PROVIDER_TWO, [3, 8, 0.4, 2.5], 128_000),
    endpoint(33, mini, PROVIDER, [0.1, 0.4, 0.05, null], 32_000),
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
    creators: [CREATOR],
    providers: [PROVIDER, PROVIDER_TWO],
    models: [model, mini],
    endpoints,
    series: endpoints.flatMap((e, i) => exampleSeries(e.id, cycles[i], 10_000 * (i + 1))),
    indices: exampleIndices(),
    media: Object.fromEntries(MEDIA_ARENAS.map(({ arena, family }, i) => [arena, exampleArena(family, 100 + 10 * i)])),
    critptProblems: ['example_problem_1', 'example_problem_2', 'example_problem_3'],
  };
}
