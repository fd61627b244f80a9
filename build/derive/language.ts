/**
 * Everything the build derives for language models, before any shaping: indices, costs,
 * model-level prices and performance (median across providers), per prompt type.
 */
import { PROMPT_TYPES, type PromptType } from '../../src/shared/routes.ts';
import { indexCost, indexTokenCounts, withOutputTokens, type IndexCost, type TokenTotals } from './cost.ts';
import { compositeIndex, computeIndices, normalizedScore, publishedVersion, scoreReader } from './indices.ts';
import { EMPTY_COLUMNS, rangeBetween, type SeriesColumns } from '../columns.ts';
import { medianAcrossProviders, performanceOf, type Performance } from './performance.ts';
import { blended3To1, blended7To2To1 } from './pricing.ts';
import { median, round } from './stats.ts';
import {
  FREE_PRICES,
  HEADLINE_INDICES,
  MATH_INDEX,
  MEDIAN_METRICS,
  PRO_EVALUATIONS,
  SPREAD_FIELDS,
  TOKEN_COUNT_EVALUATIONS,
  type EndpointPrice,
} from '../fields.ts';
import { groupBy } from '../collections.ts';
import { pointerOf } from '../problems.ts';
import type { Dataset, LanguageModel, ModelCreator, Provider, ProviderEndpoint } from '../types.ts';

export const PERFORMANCE_FIELDS = [...MEDIAN_METRICS, ...SPREAD_FIELDS];
const DAY_MS = 86_400_000;
const RATE_DECIMALS = 6;

export type Pricing = Record<EndpointPrice | 'price_1m_blended_3_to_1' | 'price_1m_blended_7_to_2_to_1', number | null>;

export interface EndpointView {
  provider: Provider;
  endpoint: ProviderEndpoint;
  pricing: Pricing;
  performance: Record<PromptType, Performance>;
}

export interface ModelView {
  model: LanguageModel;
  creator: ModelCreator;
  /** Headline indices and every Pro evaluation, in the contract's order. */
  evaluations: Record<string, number | null>;
  /** Null when any index component lacks token counts. */
  tokenCounts: TokenTotals | null;
  /** Null when the token counts or the model's input or output price is unknown. */
  cost: IndexCost | null;
  pricing: Pricing;
  performance: Record<PromptType, Performance>;
  /** The model's endpoints, by provider name then id. */
  providers: EndpointView[];
  /** The legacy route's math index (published, or computed from its definition). */
  mathIndex: number | null;
}

export interface StatsOptions {
  /** End of every statistics window (milliseconds since the epoch). */
  asOf: number;
  /** Width of the window the medians and percentiles are taken over. */
  statsDays: number;
}

export function withBlends(prices: Record<EndpointPrice, number | null>): Pricing {
  return {
    ...prices,
    price_1m_blended_3_to_1: blended3To1(prices.price_1m_input_tokens, prices.price_1m_output_tokens),
    price_1m_blended_7_to_2_to_1: blended7To2To1(
      prices.price_1m_cache_hit_tokens,
      prices.price_1m_input_tokens,
      prices.price_1m_output_tokens,
    ),
  };
}

function endpointPrices(endpoint: ProviderEndpoint): Record<EndpointPrice, number | null> {
  return Object.fromEntries(FREE_PRICES.map((f) => [f, endpoint[f]])) as Record<EndpointPrice, number | null>;
}

/** Model-level prices: the median across providers of each price, then the blends of those. */
export function modelPricing(endpoints: readonly ProviderEndpoint[]): Pricing {
  const medians = Object.fromEntries(FREE_PRICES.map((f) => [f, median(endpoints.map((e) => e[f]))])) as Record<
    EndpointPrice,
    number | null
  >;
  for (const f of FREE_PRICES) if (medians[f] !== null) medians[f] = round(medians[f], RATE_DECIMALS);
  return withBlends(medians);
}

export function compareByNameThenId(a: { name: string; id: string }, b: { name: string; id: string }): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Design order: intelligence index descending with nulls last, then name, then id. */
export function compareModels(a: ModelView, b: ModelView): number {
  const x = a.evaluations.platform_intelligence_index;
  const y = b.evaluations.platform_intelligence_index;
  if (x !== y) {
    if (x === null) return 1;
    if (y === null) return -1;
    return y - x;
  }
  return compareByNameThenId(a.model, b.model);
}

/** Records by endpoint id, then prompt type. */
export function recordsByEndpoint(dataset: Dataset): Map<string, Map<PromptType, SeriesColumns>> {
  const out = new Map<string, Map<PromptType, SeriesColumns>>();
  for (const s of dataset.series) {
    let byPrompt = out.get(s.endpoint_id);
    if (!byPrompt) out.set(s.endpoint_id, (byPrompt = new Map()));
    byPrompt.set(s.prompt_type, s.columns);
  }
  return out;
}

/**
 * The evaluations object of a model: indices (a published value wins over the computed one)
 * and derived scores, then raw ones.
 */
export function modelEvaluations(dataset: Dataset, model: LanguageModel): Record<string, number | null> {
  const defs = dataset.indices;
  const read = scoreReader(model);
  const indices = computeIndices(defs, read);
  const total = model.omniscience_breakdown?.total;
  const derived: Record<string, number | null> = {
    platform_omniscience_index: total?.omniscience ?? null,
    platform_omniscience_accuracy: total?.accuracy ?? null,
    platform_omniscience_non_hallucination_rate: total ? round(1 - total.hallucination_rate, RATE_DECIMALS) : null,
    gdpval_platform_normalized: normalizedScore(defs, pointerOf('evaluations', 'gdpval_platform_elo'), read),
    platform_openness_index: indices[defs.openness_index.key],
  };
  const out: Record<string, number | null> = {};
  for (const key of HEADLINE_INDICES) out[key] = model.published_indices?.[key] ?? indices[key] ?? null;
  for (const key of PRO_EVALUATIONS)
    out[key] = key in derived ? derived[key] : (model.evaluations[key as keyof LanguageModel['evaluations']] ?? null);
  return out;
}

/** The legacy math index: a published value wins over the one computed from its definition. */
export function mathIndex(dataset: Dataset, model: LanguageModel): number | null {
  const definition = dataset.indices.math_index;
  return (
    model.published_indices?.[MATH_INDEX] ??
    (definition ? compositeIndex(definition.components, scoreReader(model)) : null)
  );
}

/**
 * Per-evaluation token counts of the detail route, output tokens added: an entry for each
 * evaluation that was run (in the contract's order), none for one that was not; null when none was.
 */
export function evaluationTokenCounts(model: LanguageModel): Record<string, TokenTotals> | null {
  const entries = TOKEN_COUNT_EVALUATIONS.flatMap((key) => {
    const counts = model.evaluation_token_counts?.[key];
    return counts ? [[key, withOutputTokens(counts)] as const] : [];
  });
  return entries.length ? Object.fromEntries(entries) : null;
}

function perPromptType(build: (promptType: PromptType) => Performance): Record<PromptType, Performance> {
  return Object.fromEntries(PROMPT_TYPES.map((p) => [p, build(p)])) as Record<PromptType, Performance>;
}

/** Derive every model's view. Pure: the same dataset and options give the same views. */
export function deriveModelViews(dataset: Dataset, options: StatsOptions): ModelView[] {
  const creators = new Map(dataset.creators.map((c) => [c.id, c]));
  const providers = new Map(dataset.providers.map((p) => [p.id, p]));
  const records = recordsByEndpoint(dataset);
  const from = options.asOf - options.statsDays * DAY_MS;
  const endpointsByModel = groupBy(dataset.endpoints, (e) => e.model_id);
  const defs = dataset.indices;
  const tasks = defs.intelligence_index.components.reduce((sum, c) => sum + (c.tasks ?? 0), 0);

  const views = dataset.models.map((model): ModelView => {
    const endpoints = endpointsByModel.get(model.id) ?? [];
    const endpointViews = endpoints
      .map((endpoint): EndpointView => ({
        provider: providers.get(endpoint.provider_id)!,
        endpoint,
        pricing: withBlends(endpointPrices(endpoint)),
        performance: perPromptType((p) => {
          const cols = records.get(endpoint.id)?.get(p) ?? EMPTY_COLUMNS;
          return performanceOf(cols, ...rangeBetween(cols, from, options.asOf));
        }),
      }))
      .sort((a, b) => compareByNameThenId(a.provider, b.provider));
    const pricing = modelPricing(endpoints);
    const tokenCounts = indexTokenCounts(model, defs.intelligence_index.components);
    return {
      model,
      creator: creators.get(model.creator_id)!,
      evaluations: modelEvaluations(dataset, model),
      tokenCounts,
      cost: indexCost(tokenCounts, pricing.price_1m_input_tokens, pricing.price_1m_output_tokens, tasks),
      pricing,
      performance: perPromptType((p) =>
        medianAcrossProviders(
          endpointViews.map((e) => e.performance[p]),
          PERFORMANCE_FIELDS,
        ),
      ),
      providers: endpointViews,
      mathIndex: mathIndex(dataset, model),
    };
  });
  return views.sort(compareModels);
}

export function intelligenceIndexVersion(dataset: Dataset): number {
  return publishedVersion(dataset.indices.intelligence_index.version);
}

/** How many index values came from `published_indices` rather than being computed. */
export function publishedIndexCount(dataset: Dataset): number {
  return dataset.models.reduce(
    (n, m) => n + HEADLINE_INDICES.filter((k) => typeof m.published_indices?.[k] === 'number').length,
    0,
  );
}
