import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  compareByNameThenId,
  compareModels,
  deriveModelViews,
  evaluationTokenCounts,
  intelligenceIndexVersion,
  mathIndex,
  modelEvaluations,
  modelPricing,
  recordsByEndpoint,
  withBlends,
  type ModelView,
} from '../../../../build/derive/language.ts';
import { HEADLINE_INDICES, PRO_EVALUATIONS, TOKEN_COUNT_EVALUATIONS } from '../../../../build/fields.ts';
import type { ProviderEndpoint } from '../../../../build/types.ts';
import { PROMPT_TYPES } from '../../../../src/shared/routes.ts';
import { TINY_STATS, modelOne, modelTwo, tinyDataset } from '../../../helpers/tiny-dataset.ts';

function endpoint(id: string, input: number | null, output: number | null, cacheHit: number | null, cacheWrite: number | null): ProviderEndpoint {
  return {
    id,
    model_id: 'model-1',
    provider_id: `provider-${id}`,
    price_1m_input_tokens: input,
    price_1m_output_tokens: output,
    price_1m_cache_hit_tokens: cacheHit,
    price_1m_cache_write_tokens: cacheWrite,
    context_window_tokens: null,
  };
}

const NULL_PERFORMANCE = {
  median_output_tokens_per_second: null,
  median_time_to_first_token_seconds: null,
  median_time_to_first_answer_token_seconds: null,
  median_end_to_end_response_time_seconds: null,
  percentile_05_output_tokens_per_second: null,
  percentile_05_time_to_first_token_seconds: null,
  quartile_25_output_tokens_per_second: null,
  quartile_25_time_to_first_token_seconds: null,
  quartile_75_output_tokens_per_second: null,
  quartile_75_time_to_first_token_seconds: null,
  percentile_95_output_tokens_per_second: null,
  percentile_95_time_to_first_token_seconds: null,
};

const blends = suite('withBlends');

blends('should add both blends of the prices given', () => {
  // 3:1 = (3*1 + 4) / 4 = 1.75; 7:2:1 = (7*0.25 + 2*1 + 4) / 10 = 7.75 / 10 = 0.775
  assert.equal(withBlends({ price_1m_input_tokens: 1, price_1m_output_tokens: 4, price_1m_cache_hit_tokens: 0.25, price_1m_cache_write_tokens: null }), {
    price_1m_input_tokens: 1,
    price_1m_output_tokens: 4,
    price_1m_cache_hit_tokens: 0.25,
    price_1m_cache_write_tokens: null,
    price_1m_blended_3_to_1: 1.75,
    price_1m_blended_7_to_2_to_1: 0.775,
  });
});

blends.run();

const pricing = suite('modelPricing');

pricing('should take the median across providers of each price, then blend the medians', () => {
  const endpoints = [endpoint('a', 1, 4, 0.25, null), endpoint('b', 2, 8, null, 1.5), endpoint('c', 4, 6, 0.5, null)];
  // input [1, 2, 4] -> 2; output [4, 8, 6] -> 6; cache hit [0.25, 0.5] -> 0.375 (b skipped); cache write [1.5] -> 1.5
  // 3:1 = (3*2 + 6) / 4 = 3 (the median of the endpoints' own blends 1.75, 3.5, 4.5 would be 3.5)
  // 7:2:1 = (7*0.375 + 2*2 + 6) / 10 = (2.625 + 4 + 6) / 10 = 1.2625
  assert.equal(modelPricing(endpoints), {
    price_1m_input_tokens: 2,
    price_1m_output_tokens: 6,
    price_1m_cache_hit_tokens: 0.375,
    price_1m_cache_write_tokens: 1.5,
    price_1m_blended_3_to_1: 3,
    price_1m_blended_7_to_2_to_1: 1.2625,
  });
});

pricing('should skip a provider whose price is null, not count it as zero', () => {
  // input [1, 3] -> 2 (null skipped; counting it as 0 would give 1)
  const prices = modelPricing([endpoint('a', 1, 4, null, null), endpoint('b', null, 4, null, null), endpoint('c', 3, 4, null, null)]);
  assert.is(prices.price_1m_input_tokens, 2);
  // (3*2 + 4) / 4 = 2.5
  assert.is(prices.price_1m_blended_3_to_1, 2.5);
  assert.is(prices.price_1m_blended_7_to_2_to_1, null);
});

pricing('should round the medians to 6 decimals', () => {
  // input (0.1 + 0.2) / 2 = 0.15 (not 0.15000000000000002); output (0.7 + 0.1) / 2 = 0.4
  const prices = modelPricing([endpoint('a', 0.1, 0.7, null, null), endpoint('b', 0.2, 0.1, null, null)]);
  assert.is(prices.price_1m_input_tokens, 0.15);
  assert.is(prices.price_1m_output_tokens, 0.4);
  // (3*0.15 + 0.4) / 4 = 0.85 / 4 = 0.2125
  assert.is(prices.price_1m_blended_3_to_1, 0.2125);
});

pricing('should be all null for a model without providers', () => {
  assert.ok(Object.values(modelPricing([])).every((v) => v === null));
  assert.is(Object.keys(modelPricing([])).length, 6);
});

pricing.run();

const byNameThenId = suite('compareByNameThenId');

byNameThenId('should order by name, then by id', () => {
  const items = [
    { name: 'B', id: '1' },
    { name: 'A', id: '2' },
    { name: 'A', id: '1' },
  ];
  assert.equal(items.sort(compareByNameThenId), [
    { name: 'A', id: '1' },
    { name: 'A', id: '2' },
    { name: 'B', id: '1' },
  ]);
  assert.is(compareByNameThenId({ name: 'A', id: '1' }, { name: 'A', id: '1' }), 0);
});

byNameThenId.run();

const comparing = suite('compareModels');

/** Only what the order reads: the intelligence index, the name and the id. */
function view(id: string, name: string, index: number | null): ModelView {
  return { model: { id, name }, evaluations: { platform_intelligence_index: index } } as unknown as ModelView;
}

comparing('should order by intelligence index descending, nulls last, then name, then id', () => {
  const views = [view('n2', 'B', null), view('z', 'Z', 50), view('n1', 'A', null), view('m2', 'M', 50), view('b', 'B', 60), view('m1', 'M', 50), view('low', 'A', 0.5)];
  assert.equal(
    views.sort(compareModels).map((v) => v.model.id),
    ['b', 'm1', 'm2', 'z', 'low', 'n1', 'n2'],
  );
});

comparing('should put a zero index before a null one', () => {
  assert.ok(compareModels(view('a', 'Z', 0), view('b', 'A', null)) < 0);
  assert.ok(compareModels(view('b', 'A', null), view('a', 'Z', 0)) > 0);
});

comparing.run();

const byEndpoint = suite('recordsByEndpoint');

byEndpoint('should group the series by endpoint, then prompt type', () => {
  const grouped = recordsByEndpoint(tinyDataset());
  assert.equal([...grouped.keys()], ['e1', 'e2', 'e3']);
  assert.equal([...grouped.get('e1')!.keys()], ['long', 'medium']);
  assert.is(grouped.get('e1')!.get('long')!.length, 8);
  assert.is(grouped.get('e2')!.get('medium'), undefined);
});

byEndpoint.run();

const evaluations = suite('modelEvaluations');

evaluations('should list the headline indices, then every Pro evaluation, in the contract order', () => {
  assert.equal(Object.keys(modelEvaluations(tinyDataset(), modelOne())), [...HEADLINE_INDICES, ...PRO_EVALUATIONS]);
});

evaluations('should compute the indices and derive the omniscience, GDPval and openness figures', () => {
  assert.equal(modelEvaluations(tinyDataset(), modelOne()), {
    // (2*0.75 + 3*0.7 + 1*0.61) / 6 = 0.70167 -> 70.2 (see indices.test.ts)
    platform_intelligence_index: 70.2,
    platform_coding_index: 70,
    platform_agentic_index: 70.3,
    platform_finance_and_accounting_index: null, // not defined in the tiny indices
    platform_strategy_and_ops_index: null,
    platform_legal_index: 60,
    platform_healthcare_and_medical_index: null,
    platform_engineering_index: null,
    platform_economics_index: null,
    tau2_telecom: null, // absent from the record
    tau_banking: 0.4,
    terminalbench_hard: null,
    terminalbench_v2_1: null,
    terminalbench_v4_0: null,
    platform_briefcase_elo: null,
    automationbench_platform: null,
    gdp_pdf: null,
    scicode: 0.7,
    platform_lcr: null,
    platform_omniscience_index: 22, // omniscience_breakdown.total.omniscience
    platform_omniscience_accuracy: 0.55, // omniscience_breakdown.total.accuracy
    platform_omniscience_non_hallucination_rate: 0.877, // 1 - 0.123
    ifbench: null, // null in the record
    hle: 0.2,
    gpqa_diamond: null,
    critpt: null,
    gdpval_platform_elo: 1400,
    gdpval_platform_normalized: 0.75, // (1400 - 800) / (1600 - 800)
    mmmu_pro: null,
    platform_openness_index: 41.7, // (2*0.5 + 1*0.25) / 3 = 0.41667
    platform_multilingual_index: null,
  });
});

evaluations('should be null where a model lacks the breakdowns and scores', () => {
  const evaluated = modelEvaluations(tinyDataset(), modelTwo());
  // scicode 0.9 -> coding 90; everything else needs a score Model Two lacks
  assert.is(evaluated.platform_coding_index, 90);
  assert.is(evaluated.scicode, 0.9);
  for (const key of Object.keys(evaluated).filter((k) => k !== 'platform_coding_index' && k !== 'scicode')) {
    assert.is(evaluated[key], null, key);
  }
});

evaluations("should normalise GDPval by the intelligence component's anchors", () => {
  const dataset = tinyDataset();
  const gdpval = dataset.indices.intelligence_index.components[0];
  gdpval.min = 1000;
  gdpval.max = 1800;
  // (1400 - 1000) / (1800 - 1000) = 0.5
  assert.is(modelEvaluations(dataset, modelOne()).gdpval_platform_normalized, 0.5);
});

evaluations('should compute the openness index from its definition', () => {
  const dataset = tinyDataset();
  dataset.indices.openness_index.components[0].weight = 1;
  // (1*0.5 + 1*0.25) / 2 = 0.375 -> 37.5
  assert.is(modelEvaluations(dataset, modelOne()).platform_openness_index, 37.5);
});

evaluations('should give a non-hallucination rate of 1 for a model that never hallucinates', () => {
  const model = modelOne();
  model.omniscience_breakdown!.total.hallucination_rate = 0;
  assert.is(modelEvaluations(tinyDataset(), model).platform_omniscience_non_hallucination_rate, 1);
});

evaluations.run();

const math = suite('mathIndex');

math('should compute the legacy math index from its definition (AIME 2025 on 0..100)', () => {
  const dataset = tinyDataset();
  dataset.indices.math_index = { key: 'platform_math_index', version: '1.0.0', components: [{ id: 'aime_25', score: '/evaluations/aime_25', weight: 1, min: 0, max: 1 }] };
  const model = modelOne();
  model.evaluations.aime_25 = 0.934416;
  // 100 * 0.934416 = 93.4416 -> 93.4
  assert.is(mathIndex(dataset, model), 93.4);
  model.evaluations.aime_25 = null;
  assert.is(mathIndex(dataset, model), null);
});

math('should take a published value over the computed one, and be null with neither', () => {
  const model = modelOne();
  assert.is(mathIndex(tinyDataset(), model), null, 'no definition, nothing published');
  model.published_indices = { platform_math_index: 70 };
  assert.is(mathIndex(tinyDataset(), model), 70);
});

math.run();

const tokenCounts = suite('evaluationTokenCounts');

tokenCounts('should list only the evaluations that were run, in the contract order, with output tokens added', () => {
  const counts = evaluationTokenCounts(modelOne())!;
  const run = Object.keys(modelOne().evaluation_token_counts!);
  assert.equal(Object.keys(counts), TOKEN_COUNT_EVALUATIONS.filter((k) => run.includes(k)));
  // output = 200,000 + 300,000 = 500,000
  assert.equal(counts.gdpval_platform, { input_tokens: 1_000_000, answer_tokens: 200_000, output_tokens: 500_000, reasoning_tokens: 300_000 });
  // output = 9,000,000 + 9,000,000
  assert.equal(counts.hle, { input_tokens: 9_000_000, answer_tokens: 9_000_000, output_tokens: 18_000_000, reasoning_tokens: 9_000_000 });
  assert.not.ok('gpqa_diamond' in counts, 'an evaluation that was not run has no entry');
});

tokenCounts('should be null, not an empty object, for a model with no evaluation run', () => {
  assert.is(evaluationTokenCounts(modelTwo()), null);
});

tokenCounts.run();

const views = suite('deriveModelViews');

views('should order the models by intelligence index, nulls last', () => {
  assert.equal(
    deriveModelViews(tinyDataset(), TINY_STATS).map((v) => v.model.id),
    ['model-1', 'model-2'],
  );
});

views("should join each model's creator and list its endpoints by provider name", () => {
  const [one, two] = deriveModelViews(tinyDataset(), TINY_STATS);
  assert.is(one.creator.name, 'Acme');
  // e1 is Beta Cloud, e2 Alpha Cloud: Alpha first
  assert.equal(
    one.providers.map((p) => [p.provider.name, p.endpoint.id]),
    [
      ['Alpha Cloud', 'e2'],
      ['Beta Cloud', 'e1'],
    ],
  );
  assert.equal(
    two.providers.map((p) => p.endpoint.id),
    ['e3'],
  );
});

views('should price each endpoint with its own blends', () => {
  const [one] = deriveModelViews(tinyDataset(), TINY_STATS);
  const [alpha, beta] = one.providers;
  // e2: 3:1 = (3*3 + 8) / 4 = 4.25; 7:2:1 needs a cache-hit price -> null
  assert.equal(alpha.pricing, {
    price_1m_input_tokens: 3,
    price_1m_output_tokens: 8,
    price_1m_cache_hit_tokens: null,
    price_1m_cache_write_tokens: null,
    price_1m_blended_3_to_1: 4.25,
    price_1m_blended_7_to_2_to_1: null,
  });
  // e1: 3:1 = (3*1 + 4) / 4 = 1.75; 7:2:1 = (7*0.25 + 2*1 + 4) / 10 = 0.775
  assert.is(beta.pricing.price_1m_blended_3_to_1, 1.75);
  assert.is(beta.pricing.price_1m_blended_7_to_2_to_1, 0.775);
});

views('should price the model at the median across its providers', () => {
  const [one, two] = deriveModelViews(tinyDataset(), TINY_STATS);
  // input [1, 3] -> 2; output [4, 8] -> 6; cache hit [0.25] -> 0.25 (e2's null skipped); cache write none -> null
  // 3:1 = (3*2 + 6) / 4 = 3; 7:2:1 = (7*0.25 + 2*2 + 6) / 10 = 11.75 / 10 = 1.175
  // (the median of the endpoints' 7:2:1 blends would be 0.775, e2 having none)
  assert.equal(one.pricing, {
    price_1m_input_tokens: 2,
    price_1m_output_tokens: 6,
    price_1m_cache_hit_tokens: 0.25,
    price_1m_cache_write_tokens: null,
    price_1m_blended_3_to_1: 3,
    price_1m_blended_7_to_2_to_1: 1.175,
  });
  // one endpoint: its own prices; 3:1 = (1.5 + 1.5) / 4 = 0.75; 7:2:1 = (0.7 + 1 + 1.5) / 10 = 0.32
  assert.equal(two.pricing, {
    price_1m_input_tokens: 0.5,
    price_1m_output_tokens: 1.5,
    price_1m_cache_hit_tokens: 0.1,
    price_1m_cache_write_tokens: 0.2,
    price_1m_blended_3_to_1: 0.75,
    price_1m_blended_7_to_2_to_1: 0.32,
  });
});

views('should sum the intelligence components token counts and cost them at the model-level prices', () => {
  const [one, two] = deriveModelViews(tinyDataset(), TINY_STATS);
  assert.equal(one.tokenCounts, { input_tokens: 3_500_000, answer_tokens: 350_000, output_tokens: 800_000, reasoning_tokens: 450_000 });
  // model prices: input $2, output $6 per 1M
  // input 3.5 * 2 = 7; reasoning 0.45 * 6 = 2.7; answer 0.35 * 6 = 2.1; total 11.8
  // tasks 10 + 20 + 30 = 60: 11.8/60 = 0.196667; 7/60 = 0.116667; 2.7/60 = 0.045; 2.1/60 = 0.035
  assert.equal(one.cost, {
    total_cost: 11.8,
    input_cost: 7,
    reasoning_cost: 2.7,
    answer_cost: 2.1,
    cost_per_task: { total_cost: 0.196667, input_cost: 0.116667, reasoning_cost: 0.045, answer_cost: 0.035 },
  });
  assert.is(two.tokenCounts, null);
  assert.is(two.cost, null);
});

views('should compute each endpoint figure over the window (asOf - statsDays, asOf], successes only', () => {
  const [one] = deriveModelViews(tinyDataset(), TINY_STATS);
  const [alpha, beta] = one.providers;
  // e1 (Beta) long, in the window: speeds 100, 200, 150, 50; TTFT 0.5, 0.3, 0.4, 0.2; TTFAT 1.0, 0.5, 0.8, 0.6
  // (out: 06-20, 06-23T00:00 exactly, 07-01, and the failure on 06-28)
  // speeds sorted 50, 100, 150, 200 (position 3q): 57.5, 87.5, 125, 162.5, 192.5
  // TTFT sorted 0.2..0.5: 0.215, 0.275, 0.35, 0.425, 0.485; TTFAT (0.6 + 0.8) / 2 = 0.7
  // E2E: 1 + 5 = 6; 0.5 + 2.5 = 3; 0.8 + 3.333333 = 4.133333; 0.6 + 10 = 10.6 -> (4.133333 + 6) / 2 = 5.066667 -> 5.067
  assert.equal(beta.performance.long, {
    median_output_tokens_per_second: 125,
    median_time_to_first_token_seconds: 0.35,
    median_time_to_first_answer_token_seconds: 0.7,
    median_end_to_end_response_time_seconds: 5.067,
    percentile_05_output_tokens_per_second: 57.5,
    percentile_05_time_to_first_token_seconds: 0.215,
    quartile_25_output_tokens_per_second: 87.5,
    quartile_25_time_to_first_token_seconds: 0.275,
    quartile_75_output_tokens_per_second: 162.5,
    quartile_75_time_to_first_token_seconds: 0.425,
    percentile_95_output_tokens_per_second: 192.5,
    percentile_95_time_to_first_token_seconds: 0.485,
  });
  // e2 (Alpha) long: speeds 50, 80 (position q): 51.5, 57.5, 65, 72.5, 78.5
  // TTFT 0.7, 1.0: 0.715, 0.775, 0.85, 0.925, 0.985; TTFAT (1.2 + 1.0) / 2 = 1.1
  // E2E: 1.2 + 500/50 = 11.2; 1.0 + 500/80 = 7.25 -> 9.225
  assert.equal(alpha.performance.long, {
    median_output_tokens_per_second: 65,
    median_time_to_first_token_seconds: 0.85,
    median_time_to_first_answer_token_seconds: 1.1,
    median_end_to_end_response_time_seconds: 9.225,
    percentile_05_output_tokens_per_second: 51.5,
    percentile_05_time_to_first_token_seconds: 0.715,
    quartile_25_output_tokens_per_second: 57.5,
    quartile_25_time_to_first_token_seconds: 0.775,
    quartile_75_output_tokens_per_second: 72.5,
    quartile_75_time_to_first_token_seconds: 0.925,
    percentile_95_output_tokens_per_second: 78.5,
    percentile_95_time_to_first_token_seconds: 0.985,
  });
  assert.equal(alpha.performance.medium, NULL_PERFORMANCE);
});

views('should take the model-level performance as the median across providers of each endpoint figure', () => {
  const [one] = deriveModelViews(tinyDataset(), TINY_STATS);
  // Two providers, so each figure is the mean of Beta's and Alpha's (above):
  assert.equal(one.performance.long, {
    median_output_tokens_per_second: 95, // (125 + 65) / 2
    median_time_to_first_token_seconds: 0.6, // (0.35 + 0.85) / 2
    median_time_to_first_answer_token_seconds: 0.9, // (0.7 + 1.1) / 2
    median_end_to_end_response_time_seconds: 7.146, // (5.067 + 9.225) / 2
    percentile_05_output_tokens_per_second: 54.5, // (57.5 + 51.5) / 2
    percentile_05_time_to_first_token_seconds: 0.465, // (0.215 + 0.715) / 2
    quartile_25_output_tokens_per_second: 72.5, // (87.5 + 57.5) / 2
    quartile_25_time_to_first_token_seconds: 0.525, // (0.275 + 0.775) / 2
    quartile_75_output_tokens_per_second: 117.5, // (162.5 + 72.5) / 2
    quartile_75_time_to_first_token_seconds: 0.675, // (0.425 + 0.925) / 2
    percentile_95_output_tokens_per_second: 135.5, // (192.5 + 78.5) / 2
    percentile_95_time_to_first_token_seconds: 0.735, // (0.485 + 0.985) / 2
  });
});

views('should take the one measured provider when the others have no figures', () => {
  const [one] = deriveModelViews(tinyDataset(), TINY_STATS);
  // medium: only Beta measured, one record (300 tok/s, TTFT 0.1, TTFAT 0.2): E2E 0.2 + 500/300 = 1.866667 -> 1.867
  assert.equal(one.performance.medium, {
    median_output_tokens_per_second: 300,
    median_time_to_first_token_seconds: 0.1,
    median_time_to_first_answer_token_seconds: 0.2,
    median_end_to_end_response_time_seconds: 1.867,
    percentile_05_output_tokens_per_second: 300,
    percentile_05_time_to_first_token_seconds: 0.1,
    quartile_25_output_tokens_per_second: 300,
    quartile_25_time_to_first_token_seconds: 0.1,
    quartile_75_output_tokens_per_second: 300,
    quartile_75_time_to_first_token_seconds: 0.1,
    percentile_95_output_tokens_per_second: 300,
    percentile_95_time_to_first_token_seconds: 0.1,
  });
});

views('should be null for every prompt type nobody measured in the window', () => {
  const [one, two] = deriveModelViews(tinyDataset(), TINY_STATS);
  assert.equal(Object.keys(one.performance), [...PROMPT_TYPES]);
  for (const p of ['100k', 'vision_single_image', 'medium_coding', 'medium_parallel'] as const) assert.equal(one.performance[p], NULL_PERFORMANCE, p);
  // Model Two: one record before the window, one failure inside it
  for (const p of PROMPT_TYPES) assert.equal(two.performance[p], NULL_PERFORMANCE, p);
});

views('should move with the window', () => {
  // One day earlier: (06-22, 06-29]: e1 long loses 06-30 (50 tok/s) and gains 06-23 (900 tok/s)
  // speeds 100, 200, 150, 900 -> sorted 100, 150, 200, 900 -> median 175
  const [one] = deriveModelViews(tinyDataset(), { asOf: TINY_STATS.asOf - 86_400_000, statsDays: 7 });
  assert.is(one.providers[1].performance.long.median_output_tokens_per_second, 175);
});

views('should be the same for the same dataset and options', () => {
  assert.equal(deriveModelViews(tinyDataset(), TINY_STATS), deriveModelViews(tinyDataset(), TINY_STATS));
});

views.run();

const version = suite('intelligenceIndexVersion');

version("should publish the intelligence index definition's major.minor", () => {
  // '4.3.0' -> 4.3
  assert.is(intelligenceIndexVersion(tinyDataset()), 4.3);
});

version.run();
