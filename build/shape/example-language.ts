/**
 * The example dataset's language models and index definitions: a model with a value in every
 * field a body can carry, so each example shows the whole shape, and a smaller one that leaves
 * some out, to show what "not measured" (null) looks like.
 */
import type { IndexComponent, IndexDefinitions, LanguageModel } from '../types.ts';
import { EXAMPLE_CREATOR, exampleId } from './example-parties.ts';

const component = (id: string, score: string, min = 0, max = 1, tasks?: number): IndexComponent => ({
  id,
  score,
  weight: 1,
  min,
  max,
  ...(tasks ? { tasks } : {}),
});

/** One plain component per index, so every headline index of the examples has a value. */
export function exampleIndices(): IndexDefinitions {
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

export function exampleModel(): LanguageModel {
  return {
    id: exampleId(21),
    slug: 'example-model',
    name: 'Example Model',
    creator_id: EXAMPLE_CREATOR.id,
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
export function exampleModelMini(): LanguageModel {
  return {
    id: exampleId(22),
    slug: 'example-model-mini',
    name: 'Example Model Mini',
    creator_id: EXAMPLE_CREATOR.id,
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
