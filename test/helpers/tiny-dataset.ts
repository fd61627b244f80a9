/**
 * A hand-made dataset small enough to derive everything from by hand: 2 models, 2 providers,
 * 3 endpoints and a few measurement records per endpoint and prompt type. The expected
 * figures live next to the tests that check them, each with its arithmetic.
 */
import { toColumns } from '../../build/columns.ts';
import type { Dataset, IndexDefinitions, LanguageModel, MeasurementRecord } from '../../build/types.ts';

/**
 * Intelligence index: gdpval_platform (weight 2, Elo 800..1600), scicode (weight 3, 0..1) and
 * platform_omniscience (weight 1, anchors -100..100). Coding = [scicode]; agentic =
 * [gdpval_platform, platform_omniscience]. Two capability indices and the openness index.
 */
export function tinyIndices(): IndexDefinitions {
  return {
    intelligence_index: {
      key: 'platform_intelligence_index',
      version: '4.3.0',
      components: [
        { id: 'gdpval_platform', score: '/evaluations/gdpval_platform_elo', weight: 2, min: 800, max: 1600, tasks: 10 },
        { id: 'scicode', score: '/evaluations/scicode', weight: 3, min: 0, max: 1, tasks: 20 },
        { id: 'platform_omniscience', score: '/omniscience_breakdown/total/omniscience', weight: 1, min: -100, max: 100, tasks: 30 },
      ],
      subsets: [
        { key: 'platform_coding_index', components: ['scicode'] },
        { key: 'platform_agentic_index', components: ['gdpval_platform', 'platform_omniscience'] },
      ],
    },
    capability_indices: {
      version: '1.1.0',
      indices: [
        {
          key: 'platform_legal_index',
          components: [
            { id: 'scicode', score: '/evaluations/scicode', weight: 1, min: 0, max: 1 },
            { id: 'tau_banking', score: '/evaluations/tau_banking', weight: 1, min: 0, max: 0.8 },
          ],
        },
        { key: 'platform_economics_index', components: [{ id: 'ifbench', score: '/evaluations/ifbench', weight: 1, min: 0, max: 1 }] },
      ],
    },
    openness_index: {
      key: 'platform_openness_index',
      version: '1.0.0',
      components: [
        { id: 'weights_access', score: '/openness/weights_access', weight: 2, min: 0, max: 1 },
        { id: 'data_pretrain_access', score: '/openness/data_pretrain_access', weight: 1, min: 0, max: 1 },
      ],
    },
  };
}

const MODALITIES = { input: { text: true, image: false, video: false, speech: false }, output: { text: true, image: false, video: false, speech: false } };

/**
 * Every intelligence component scored; token counts for the three components plus hle. The
 * tiny openness index reads only weights_access and data_pretrain_access.
 */
export function modelOne(): LanguageModel {
  return {
    id: 'model-1',
    slug: 'model-one',
    name: 'Model One',
    creator_id: 'creator-1',
    release_date: '2025-01-15',
    reasoning_model: true,
    evaluations: { gdpval_platform_elo: 1400, scicode: 0.7, tau_banking: 0.4, ifbench: null, hle: 0.2 },
    evaluation_token_counts: {
      gdpval_platform: { input_tokens: 1_000_000, answer_tokens: 200_000, reasoning_tokens: 300_000 },
      scicode: { input_tokens: 2_000_000, answer_tokens: 100_000, reasoning_tokens: 0 },
      platform_omniscience: { input_tokens: 500_000, answer_tokens: 50_000, reasoning_tokens: 150_000 },
      hle: { input_tokens: 9_000_000, answer_tokens: 9_000_000, reasoning_tokens: 9_000_000 },
    },
    omniscience_breakdown: {
      total: { accuracy: 0.55, omniscience: 22, hallucination_rate: 0.123 },
      law: { accuracy: 0.5, omniscience: 10, hallucination_rate: 0.2 },
      health: { accuracy: 0.6, omniscience: 30, hallucination_rate: 0.1 },
      business: { accuracy: 0.5, omniscience: 20, hallucination_rate: 0.1 },
      humanities_and_social_sciences: { accuracy: 0.5, omniscience: 20, hallucination_rate: 0.1 },
      science_engineering_and_mathematics: { accuracy: 0.6, omniscience: 25, hallucination_rate: 0.15 },
      software_engineering: { accuracy: 0.55, omniscience: 23, hallucination_rate: 0.12 },
    },
    openness: {
      weights_access: 0.5,
      weights_license: 1,
      data_pretrain_access: 0.25,
      data_pretrain_license: 0,
      data_posttrain_access: 0,
      data_posttrain_license: 0,
      methodology_license: 1,
      methodology_disclosure: 0.5,
    },
    parameters: { total: 100, active: 10 },
    modalities: MODALITIES,
    licensing: { is_open_weights: true },
    context_window_tokens: 128_000,
  };
}

/** No GDPval score (so no intelligence index), no breakdowns, no token counts. */
export function modelTwo(): LanguageModel {
  return {
    id: 'model-2',
    slug: 'model-two',
    name: 'Model Two',
    creator_id: 'creator-1',
    release_date: null,
    reasoning_model: false,
    evaluations: { gdpval_platform_elo: null, scicode: 0.9 },
    omniscience_breakdown: null,
    openness: null,
    parameters: { total: null, active: null },
    modalities: MODALITIES,
    licensing: { is_open_weights: false },
  };
}

function record(timestamp: string, speed: number | null, ttft: number | null, ttfat: number | null, success = true): MeasurementRecord {
  return {
    timestamp,
    success,
    output_tokens_per_second: speed,
    time_to_first_token_seconds: ttft,
    time_to_first_answer_token_seconds: ttfat,
  };
}

/** The statistics window: 7 days ending 2025-06-30T00:00Z, so (2025-06-23T00:00Z, 2025-06-30T00:00Z]. */
export const TINY_STATS = { asOf: Date.parse('2025-06-30T00:00:00.000Z'), statsDays: 7 };

/**
 * Model Two is listed first and Model One's endpoints are listed Beta before Alpha, so that
 * the derivation's own ordering shows.
 */
export function tinyDataset(): Dataset {
  return {
    media: {},
    critptProblems: [],
    creators: [{ id: 'creator-1', slug: 'acme', name: 'Acme', country: 'us' }],
    providers: [
      { id: 'prov-b', slug: 'beta-cloud', name: 'Beta Cloud', country: null },
      { id: 'prov-a', slug: 'alpha-cloud', name: 'Alpha Cloud', country: 'fr' },
    ],
    models: [modelTwo(), modelOne()],
    endpoints: [
      {
        id: 'e1',
        model_id: 'model-1',
        provider_id: 'prov-b',
        price_1m_input_tokens: 1,
        price_1m_output_tokens: 4,
        price_1m_cache_hit_tokens: 0.25,
        price_1m_cache_write_tokens: null,
        context_window_tokens: 128_000,
      },
      {
        id: 'e2',
        model_id: 'model-1',
        provider_id: 'prov-a',
        price_1m_input_tokens: 3,
        price_1m_output_tokens: 8,
        price_1m_cache_hit_tokens: null,
        price_1m_cache_write_tokens: null,
        context_window_tokens: 64_000,
      },
      {
        id: 'e3',
        model_id: 'model-2',
        provider_id: 'prov-a',
        price_1m_input_tokens: 0.5,
        price_1m_output_tokens: 1.5,
        price_1m_cache_hit_tokens: 0.1,
        price_1m_cache_write_tokens: 0.2,
        context_window_tokens: null,
      },
    ],
    series: [
      {
        endpoint_id: 'e1',
        prompt_type: 'long',
        columns: toColumns([
          record('2025-06-20T12:00:00.000Z', 1000, 9, 9), // before the window
          record('2025-06-23T00:00:00.000Z', 900, 8, 8), // on the window's open start
          record('2025-06-24T00:00:00.000Z', 100, 0.5, 1.0),
          record('2025-06-26T00:00:00.000Z', 200, 0.3, 0.5),
          record('2025-06-28T00:00:00.000Z', 5, 50, 50, false), // failed
          record('2025-06-29T00:00:00.000Z', 150, 0.4, 0.8),
          record('2025-06-30T00:00:00.000Z', 50, 0.2, 0.6), // on the window's closed end
          record('2025-07-01T00:00:00.000Z', 7777, 7, 7), // after as-of
        ]),
      },
      {
        endpoint_id: 'e1',
        prompt_type: 'medium',
        columns: toColumns([record('2025-06-25T00:00:00.000Z', 300, 0.1, 0.2)]),
      },
      {
        endpoint_id: 'e2',
        prompt_type: 'long',
        columns: toColumns([
          record('2025-06-10T00:00:00.000Z', 1, 1, 1), // before the window
          record('2025-06-25T00:00:00.000Z', 50, 0.7, 1.2),
          record('2025-06-27T00:00:00.000Z', 80, 1.0, 1.0),
        ]),
      },
      {
        endpoint_id: 'e3',
        prompt_type: 'long',
        columns: toColumns([
          record('2025-06-01T00:00:00.000Z', 40, 0.5, 0.5), // before the window
          record('2025-06-29T00:00:00.000Z', 40, 0.5, 0.5, false), // failed
        ]),
      },
    ],
    indices: tinyIndices(),
  };
}
