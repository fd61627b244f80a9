/**
 * Language model shapes per tier. Pure functions from a ModelView to the plain object that
 * becomes JSON; the Free shape omits every Pro-only field rather than nulling it. An object
 * that was not measured is null as a whole (parameters, index cost, token counts, omniscience
 * breakdown), never an object of nulls, as the original service's contract has it.
 */
import { DEFAULT_PROMPT_TYPE, type PromptType, type Tier } from '../../src/shared/routes.ts';
import { pick } from '../collections.ts';
import { mediansOnly } from '../derive/performance.ts';
import {
  BLENDED_PRICES,
  FREE_PRICES,
  HEADLINE_INDICES,
  OMNISCIENCE_DOMAINS,
  OMNISCIENCE_METRICS,
  OPENNESS_COMPONENTS,
} from '../fields.ts';
import type { IndexCost } from '../derive/cost.ts';
import { PERFORMANCE_FIELDS, evaluationTokenCounts, type EndpointView, type ModelView } from '../derive/language.ts';
import type { LanguageModel } from '../types.ts';

export const PRO_PRICES = [...FREE_PRICES, ...BLENDED_PRICES];

/** The fields every language model shape opens with, current and legacy alike. */
export function modelIdentity({ model }: ModelView): Record<string, unknown> {
  return { id: model.id, name: model.name, slug: model.slug, release_date: model.release_date };
}

/** The Free subset of the index cost: totals only. */
function freeIndexCost(cost: IndexCost | null): Record<string, unknown> | null {
  if (cost === null) return null;
  return {
    total_cost: cost.total_cost,
    cost_per_task: cost.cost_per_task && { total_cost: cost.cost_per_task.total_cost },
  };
}

function proIndexCost(cost: IndexCost | null): Record<string, unknown> | null {
  if (cost === null) return null;
  const { total_cost, input_cost, reasoning_cost, answer_cost, cost_per_task } = cost;
  return { total_cost, input_cost, reasoning_cost, answer_cost, cost_per_task };
}

/** Parameter counts are an object only when the total is known (`active` may still be null). */
function parameterCounts({ total, active }: LanguageModel['parameters']): Record<string, unknown> | null {
  return total === null ? null : { total, active };
}

export function freeLanguageModel(view: ModelView): Record<string, unknown> {
  const { creator } = view;
  return {
    ...modelIdentity(view),
    model_creator: { id: creator.id, name: creator.name },
    evaluations: pick(view.evaluations, HEADLINE_INDICES),
    platform_intelligence_index_cost: freeIndexCost(view.cost),
    pricing: pick(view.pricing, FREE_PRICES),
    performance: mediansOnly(view.performance[DEFAULT_PROMPT_TYPE]),
  };
}

export function proLanguageModel(view: ModelView, promptType: PromptType): Record<string, unknown> {
  const { model, creator } = view;
  return {
    ...modelIdentity(view),
    model_creator: { id: creator.id, name: creator.name, country: creator.country },
    reasoning_model: model.reasoning_model,
    evaluations: view.evaluations,
    platform_intelligence_index_cost: proIndexCost(view.cost),
    platform_intelligence_index_token_counts: view.tokenCounts,
    pricing: pick(view.pricing, PRO_PRICES),
    performance: pick(view.performance[promptType], PERFORMANCE_FIELDS),
    context_window_tokens: model.context_window_tokens ?? null,
    parameters: parameterCounts(model.parameters),
    modalities: model.modalities,
    licensing: { is_open_weights: model.licensing.is_open_weights },
    weights_hub_url: model.weights_hub_url ?? null,
    router_api_id: model.router_api_id ?? null,
  };
}

/** Null unless the total was measured; a domain that was not is null on its own. */
function omniscienceBreakdown(view: ModelView): Record<string, unknown> | null {
  const breakdown = view.model.omniscience_breakdown;
  if (!breakdown?.total) return null;
  return Object.fromEntries(
    OMNISCIENCE_DOMAINS.map((d) => [d, breakdown[d] ? pick(breakdown[d], OMNISCIENCE_METRICS) : null]),
  );
}

/** Always an object (the contract never lets it be null); a component not assessed is null. */
function opennessBreakdown(view: ModelView): Record<string, unknown> {
  const openness = view.model.openness ?? {};
  return { ...pick(openness, OPENNESS_COMPONENTS), platform_openness_index: view.evaluations.platform_openness_index };
}

/** A provider's offer of one model, as the Commercial detail route lists it. */
export function modelProvider(endpoint: EndpointView, promptType: PromptType): Record<string, unknown> {
  return {
    id: endpoint.provider.id,
    name: endpoint.provider.name,
    slug: endpoint.provider.slug,
    pricing: pick(endpoint.pricing, PRO_PRICES),
    performance: pick(endpoint.performance[promptType], PERFORMANCE_FIELDS),
    context_window_tokens: endpoint.endpoint.context_window_tokens,
  };
}

/** The detail route: the Pro shape plus detail-only fields; `providers` for Commercial keys only. */
export function languageModelDetail(view: ModelView, promptType: PromptType, tier: Tier): Record<string, unknown> {
  const detail: Record<string, unknown> = {
    ...proLanguageModel(view, promptType),
    evaluation_token_counts: evaluationTokenCounts(view.model),
    platform_omniscience_breakdown: omniscienceBreakdown(view),
    platform_openness_index_breakdown: opennessBreakdown(view),
  };
  if (tier === 'commercial') detail.providers = view.providers.map((e) => modelProvider(e, promptType));
  return detail;
}
