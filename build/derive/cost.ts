/**
 * What it costs to run the intelligence index on a model: its token counts (the sum over the
 * index's evaluations) priced at the model's input and output prices, and the same per task.
 */
import type { IndexComponent, LanguageModel } from '../types.ts';
import { round } from './stats.ts';

const COST_DECIMALS = 6;

export interface TokenTotals {
  input_tokens: number | null;
  answer_tokens: number | null;
  output_tokens: number | null;
  reasoning_tokens: number | null;
}

export interface CostSplit {
  total_cost: number | null;
  input_cost: number | null;
  reasoning_cost: number | null;
  answer_cost: number | null;
}

const NO_TOKENS: TokenTotals = { input_tokens: null, answer_tokens: null, output_tokens: null, reasoning_tokens: null };
const NO_COST: CostSplit = { total_cost: null, input_cost: null, reasoning_cost: null, answer_cost: null };

/** Output tokens are answer tokens plus reasoning tokens. */
export function withOutputTokens(counts: { input_tokens: number; answer_tokens: number; reasoning_tokens: number }): TokenTotals {
  return {
    input_tokens: counts.input_tokens,
    answer_tokens: counts.answer_tokens,
    output_tokens: counts.answer_tokens + counts.reasoning_tokens,
    reasoning_tokens: counts.reasoning_tokens,
  };
}

/** Sum of the components' evaluation token counts; all null when any component lacks counts. */
export function indexTokenCounts(model: LanguageModel, components: readonly IndexComponent[]): TokenTotals {
  let input = 0;
  let answer = 0;
  let reasoning = 0;
  for (const { id } of components) {
    const counts = model.evaluation_token_counts?.[id as keyof NonNullable<LanguageModel['evaluation_token_counts']>];
    if (!counts) return NO_TOKENS;
    input += counts.input_tokens;
    answer += counts.answer_tokens;
    reasoning += counts.reasoning_tokens;
  }
  return withOutputTokens({ input_tokens: input, answer_tokens: answer, reasoning_tokens: reasoning });
}

export interface IndexCost extends CostSplit {
  cost_per_task: CostSplit;
}

function split(input: number, reasoning: number, answer: number, divisor: number): CostSplit {
  const r = (v: number) => round(v / divisor, COST_DECIMALS);
  return { total_cost: r(input + reasoning + answer), input_cost: r(input), reasoning_cost: r(reasoning), answer_cost: r(answer) };
}

/**
 * Cost in USD of running the index: input tokens at the input price, answer and reasoning
 * tokens at the output price; per task, the same divided by the index's task count.
 */
export function indexCost(tokens: TokenTotals, inputPrice: number | null, outputPrice: number | null, tasks: number): IndexCost {
  if (tokens.input_tokens === null || tokens.answer_tokens === null || tokens.reasoning_tokens === null || inputPrice === null || outputPrice === null) {
    return { ...NO_COST, cost_per_task: NO_COST };
  }
  const input = (tokens.input_tokens * inputPrice) / 1e6;
  const reasoning = (tokens.reasoning_tokens * outputPrice) / 1e6;
  const answer = (tokens.answer_tokens * outputPrice) / 1e6;
  return { ...split(input, reasoning, answer, 1), cost_per_task: split(input, reasoning, answer, tasks) };
}
