/**
 * The field vocabulary of the language model data, in the contract's order. Dataset schemas,
 * derivations, shaping and response schemas all read these lists, so a field is named once.
 */

/** Evaluations only the legacy route reports; datasets may carry them (nullable). */
export const LEGACY_EVALUATIONS = ['mmlu_pro', 'livecodebench', 'math_500', 'aime', 'aime_25'] as const;
export type LegacyEvaluation = (typeof LEGACY_EVALUATIONS)[number];

/** The composite only the legacy route reports: defined in `indices.json` (optional) or published. */
export const MATH_INDEX = 'platform_math_index';

/** Headline indices: on Free and Pro shapes. The first three come from the intelligence index. */
export const HEADLINE_INDICES = [
  'platform_intelligence_index',
  'platform_coding_index',
  'platform_agentic_index',
  'platform_finance_and_accounting_index',
  'platform_strategy_and_ops_index',
  'platform_legal_index',
  'platform_healthcare_and_medical_index',
  'platform_engineering_index',
  'platform_economics_index',
] as const;
export type HeadlineIndex = (typeof HEADLINE_INDICES)[number];

/** The Pro-only evaluation keys, in the contract's order; some are raw, some derived by the build. */
export const PRO_EVALUATIONS = [
  'tau2_telecom',
  'tau_banking',
  'terminalbench_hard',
  'terminalbench_v2_1',
  'terminalbench_v4_0',
  'platform_briefcase_elo',
  'automationbench_platform',
  'gdp_pdf',
  'scicode',
  'platform_lcr',
  'platform_omniscience_index',
  'platform_omniscience_accuracy',
  'platform_omniscience_non_hallucination_rate',
  'ifbench',
  'hle',
  'gpqa_diamond',
  'critpt',
  'gdpval_platform_elo',
  'gdpval_platform_normalized',
  'mmmu_pro',
  'platform_openness_index',
  'platform_multilingual_index',
] as const;
export type ProEvaluation = (typeof PRO_EVALUATIONS)[number];

/** Pro evaluations the build derives (from breakdowns and index definitions), never typed in. */
export const DERIVED_EVALUATIONS = [
  'platform_omniscience_index',
  'platform_omniscience_accuracy',
  'platform_omniscience_non_hallucination_rate',
  'gdpval_platform_normalized',
  'platform_openness_index',
] as const;

/** Raw evaluation scores a maintainer types into `data/language-models.json` (all nullable): the rest. */
export type RawEvaluation = Exclude<ProEvaluation, (typeof DERIVED_EVALUATIONS)[number]>;
export const RAW_EVALUATIONS = PRO_EVALUATIONS.filter(
  (k): k is RawEvaluation => !(DERIVED_EVALUATIONS as readonly string[]).includes(k),
);

/** Keys of `evaluation_token_counts` (detail route) and of the dataset's token counts. */
export const TOKEN_COUNT_EVALUATIONS = [
  'hle',
  'platform_lcr',
  'gpqa_diamond',
  'tau2_telecom',
  'tau_banking',
  'critpt',
  'gdpval_platform',
  'ifbench',
  'scicode',
  'mmmu_pro',
  'platform_omniscience',
  'terminalbench_hard',
  'terminalbench_v2_1',
  'terminalbench_v4_0',
  'platform_briefcase',
  'automationbench_platform',
  'gdp_pdf',
] as const;
export type TokenCountEvaluation = (typeof TOKEN_COUNT_EVALUATIONS)[number];

export const OMNISCIENCE_DOMAINS = [
  'total',
  'law',
  'health',
  'business',
  'humanities_and_social_sciences',
  'science_engineering_and_mathematics',
  'software_engineering',
] as const;
export const OMNISCIENCE_METRICS = ['accuracy', 'omniscience', 'hallucination_rate'] as const;

/** The openness components a maintainer enters; `platform_openness_index` is computed from them. */
export const OPENNESS_COMPONENTS = [
  'weights_access',
  'weights_license',
  'data_pretrain_access',
  'data_pretrain_license',
  'data_posttrain_access',
  'data_posttrain_license',
  'methodology_license',
  'methodology_disclosure',
] as const;

export const MODALITIES = ['text', 'image', 'video', 'speech'] as const;

export const FREE_PRICES = [
  'price_1m_input_tokens',
  'price_1m_output_tokens',
  'price_1m_cache_hit_tokens',
  'price_1m_cache_write_tokens',
] as const;
export const BLENDED_PRICES = ['price_1m_blended_3_to_1', 'price_1m_blended_7_to_2_to_1'] as const;
export type EndpointPrice = (typeof FREE_PRICES)[number];

export const MEDIAN_METRICS = [
  'median_output_tokens_per_second',
  'median_time_to_first_token_seconds',
  'median_time_to_first_answer_token_seconds',
  'median_end_to_end_response_time_seconds',
] as const;

/** Percentile and quartile fields (Pro), for output speed and time to first token. */
export const SPREAD_METRICS = ['output_tokens_per_second', 'time_to_first_token_seconds'] as const;
export const SPREAD_LEVELS = [
  { prefix: 'percentile_05_', q: 0.05 },
  { prefix: 'quartile_25_', q: 0.25 },
  { prefix: 'quartile_75_', q: 0.75 },
  { prefix: 'percentile_95_', q: 0.95 },
] as const;
export const SPREAD_FIELDS = SPREAD_LEVELS.flatMap(({ prefix }) => SPREAD_METRICS.map((m) => `${prefix}${m}`));

export const TOKEN_KINDS = ['input_tokens', 'answer_tokens', 'output_tokens', 'reasoning_tokens'] as const;
export const COST_PARTS = ['input_cost', 'reasoning_cost', 'answer_cost'] as const;

/**
 * Legacy evaluation name -> where its value comes from (today's evaluation of the same
 * measurement, a legacy-only evaluation, or the math index), in the order of a real legacy body.
 */
export const LEGACY_ROUTE_EVALUATIONS: readonly (readonly [string, string])[] = [
  ['platform_intelligence_index', 'platform_intelligence_index'],
  ['platform_coding_index', 'platform_coding_index'],
  ['platform_math_index', MATH_INDEX],
  ['mmlu_pro', 'mmlu_pro'],
  ['gpqa', 'gpqa_diamond'],
  ['hle', 'hle'],
  ['livecodebench', 'livecodebench'],
  ['scicode', 'scicode'],
  ['math_500', 'math_500'],
  ['aime', 'aime'],
  ['aime_25', 'aime_25'],
  ['ifbench', 'ifbench'],
  ['lcr', 'platform_lcr'],
  ['terminalbench_hard', 'terminalbench_hard'],
  ['terminalbench_v2_1', 'terminalbench_v2_1'],
  ['tau2', 'tau2_telecom'],
  ['tau_banking', 'tau_banking'],
];
