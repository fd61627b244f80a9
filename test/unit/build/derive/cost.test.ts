import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { indexCost, indexTokenCounts, withOutputTokens, type TokenTotals } from '../../../../build/derive/cost.ts';
import { modelOne, modelTwo, tinyIndices } from '../../../helpers/tiny-dataset.ts';


const outputTokens = suite('withOutputTokens');

outputTokens('should count output tokens as answer plus reasoning tokens', () => {
  // output = 200 + 300 = 500
  assert.equal(withOutputTokens({ input_tokens: 1000, answer_tokens: 200, reasoning_tokens: 300 }), {
    input_tokens: 1000,
    answer_tokens: 200,
    output_tokens: 500,
    reasoning_tokens: 300,
  });
});

outputTokens.run();

const tokenCounts = suite('indexTokenCounts');

tokenCounts("should sum the components' evaluation token counts", () => {
  const components = tinyIndices().intelligence_index.components;
  // input 1,000,000 + 2,000,000 + 500,000 = 3,500,000
  // answer 200,000 + 100,000 + 50,000 = 350,000
  // reasoning 300,000 + 0 + 150,000 = 450,000; output = 350,000 + 450,000 = 800,000
  // (hle's counts are not a component's and stay out)
  assert.equal(indexTokenCounts(modelOne(), components), {
    input_tokens: 3_500_000,
    answer_tokens: 350_000,
    output_tokens: 800_000,
    reasoning_tokens: 450_000,
  });
});

tokenCounts('should sum only the components given (a subset)', () => {
  const components = tinyIndices().intelligence_index.components.filter((c) => c.id === 'scicode');
  // scicode alone: output = 100,000 + 0
  assert.equal(indexTokenCounts(modelOne(), components), {
    input_tokens: 2_000_000,
    answer_tokens: 100_000,
    output_tokens: 100_000,
    reasoning_tokens: 0,
  });
});

tokenCounts('should be null as a whole when one component lacks counts', () => {
  const model = modelOne();
  delete model.evaluation_token_counts!.platform_omniscience;
  assert.is(indexTokenCounts(model, tinyIndices().intelligence_index.components), null);
});

tokenCounts('should be null for a model without token counts', () => {
  assert.is(indexTokenCounts(modelTwo(), tinyIndices().intelligence_index.components), null);
});

tokenCounts('should be null for an index with no components, not zero', () => {
  assert.is(indexTokenCounts(modelOne(), []), null);
});

tokenCounts.run();

const cost = suite('indexCost');

const TOKENS: TokenTotals = { input_tokens: 2_000_000, answer_tokens: 500_000, output_tokens: 2_000_000, reasoning_tokens: 1_500_000 };

cost('should price input tokens at the input price and answer and reasoning tokens at the output price', () => {
  const result = indexCost(TOKENS, 1.25, 10, 60)!;
  // input 2M * $1.25/1M = 2.5; reasoning 1.5M * $10/1M = 15; answer 0.5M * $10/1M = 5
  // total = 2.5 + 15 + 5 = 22.5
  assert.is(result.input_cost, 2.5);
  assert.is(result.reasoning_cost, 15);
  assert.is(result.answer_cost, 5);
  assert.is(result.total_cost, 22.5);
});

cost("should divide by the index's task count per task, rounded to 6 decimals", () => {
  // 22.5 / 60 = 0.375; 2.5 / 60 = 0.0416666.. -> 0.041667; 15 / 60 = 0.25; 5 / 60 = 0.083333.. -> 0.083333
  assert.equal(indexCost(TOKENS, 1.25, 10, 60)!.cost_per_task, {
    total_cost: 0.375,
    input_cost: 0.041667,
    reasoning_cost: 0.25,
    answer_cost: 0.083333,
  });
});

cost('should round whole-index costs to 6 decimals', () => {
  // input 1 token * $1/1M = 0.000001; answer 1 * $0.4/1M = 0.0000004 -> 0; total 0.0000014 -> 0.000001
  const result = indexCost({ input_tokens: 1, answer_tokens: 1, output_tokens: 1, reasoning_tokens: 0 }, 1, 0.4, 1)!;
  assert.is(result.input_cost, 0.000001);
  assert.is(result.answer_cost, 0);
  assert.is(result.total_cost, 0.000001);
});

cost('should cost nothing at zero prices, not null', () => {
  const result = indexCost(TOKENS, 0, 0, 60);
  assert.equal(result, { total_cost: 0, input_cost: 0, reasoning_cost: 0, answer_cost: 0, cost_per_task: { total_cost: 0, input_cost: 0, reasoning_cost: 0, answer_cost: 0 } });
});

cost('should be null as a whole when the input price is missing', () => {
  assert.is(indexCost(TOKENS, null, 10, 60), null);
});

cost('should be null as a whole when the output price is missing', () => {
  assert.is(indexCost(TOKENS, 1.25, null, 60), null);
});

cost('should be null as a whole when the token counts are missing', () => {
  assert.is(indexCost(null, 1.25, 10, 60), null);
});

cost('should give the whole-index cost but no per-task cost when the index counts no tasks', () => {
  assert.equal(indexCost(TOKENS, 1.25, 10, 0), { total_cost: 22.5, input_cost: 2.5, reasoning_cost: 15, answer_cost: 5, cost_per_task: null });
});

cost.run();
