/**
 * What it costs to run the intelligence index on a model: its token counts (the sum over the
 * index's evaluations) priced at the model's input and output prices, and the same per task.
 * What was not measured is null as a whole, never an object of nulls: that is the contract's
 * rule ("null means not measured"), and what clients generated from it check.
 */
import type { IndexComponent, LanguageModel } from '../types.ts';
import { round } from './stats.ts';

const COST_DECIMALS = 6;

export interface TokenTotals {
  input_tokens: number;
  answer_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
}

export interface CostSplit {
  total_cost: number;
  input_cost: number;
  reasoning_cost: number;
  answer_cost: number;
}

/** Output tokens are answer tokens plus reasoning tokens. */
export function withOutputTokens(counts: {
  input_tokens: number;
  answer_tokens: number;
  reasoning_tokens: number;
}): TokenTotals {
  return {
    input_tokens: counts.input_tokens,
    answer_tokens: counts.answer_tokens,
    output_tokens: counts.answer_tokens + counts.reasoning_tokens,
    reasoning_tokens: counts.reasoning_tokens,
  };
}

/** Sum of the components' evaluation token counts; null when any component lacks counts. */
export function indexTokenCounts(model: LanguageModel, components: readonly IndexComponent[]): TokenTotals | null {
  if (components.length === 0) return null;
  let input = 0;
  let answer = 0;
  let reasoning = 0;
  for (const { id } of components) {
    const counts = model.evaluation_token_counts?.[id as keyof NonNullable<LanguageModel['evaluation_token_counts']>];
    if (!counts) return null;
    input += counts.input_tokens;
    answer += counts.answer_tokens;
    reasoning += counts.reasoning_tokens;
  }
  return withOutputTokens({ input_tokens: input, answer_tokens: answer, reasoning_tokens: reasoning });
}

export interface IndexCost extends CostSplit {
  /** Null when the index definition counts no tasks. */
  cost_per_task: CostSplit | null;
}

function split(input: number, reasoning: number, answer: number, divisor: number): CostSplit {
  const r = (v: number) => round(v / divisor, COST_DECIMALS);
  return {
    total_cost: r(input + reasoning + answer),
    input_cost: r(input),
    reasoning_cost: r(reasoning),
    answer_cost: r(answer),
  };
}

/**
 * Cost in USD of running the index: input tokens at the input price, answer and reasoning
 * tokens at the output price; per task, the same divided by the index's task count. Null when
 * the token counts or either price is unknown.
 */
export function indexCost(
  tokens: TokenTotals | null,
  inputPrice: number | null,
  outputPrice: number | null,
  tasks: number,
): IndexCost | null {
  if (tokens === null || inputPrice === null || outputPrice === null) return null;
  const input = (tokens.input_tokens * inputPrice) / 1e6;
  const reasoning = (tokens.reasoning_tokens * outputPrice) / 1e6;
  const answer = (tokens.answer_tokens * outputPrice) / 1e6;
  return {
    ...split(input, reasoning, answer, 1),
    cost_per_task: tasks > 0 ? split(input, reasoning, answer, tasks) : null,
  };
}
