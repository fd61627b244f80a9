/**
 * Language model shapes per tier. Pure functions from a ModelView to the plain object that
 * becomes JSON; the Free shape omits every Pro-only field rather than nulling it.
 */
import { DEFAULT_PROMPT_TYPE, type PromptType, type Tier } from '../../src/routes.ts';
import { pick } from '../collections.ts';
import { mediansOnly } from '../derive/performance.ts';
import { BLENDED_PRICES, FREE_PRICES, HEADLINE_INDICES, OMNISCIENCE_DOMAINS, OMNISCIENCE_METRICS, OPENNESS_COMPONENTS } from '../fields.ts';
import { PERFORMANCE_FIELDS, evaluationTokenCounts, type EndpointView, type ModelView } from '../language.ts';

export const PRO_PRICES = [...FREE_PRICES, ...BLENDED_PRICES];

/** The fields every language model shape opens with, current and legacy alike. */
export function modelIdentity({ model }: ModelView): Record<string, unknown> {
  return { id: model.id, name: model.name, slug: model.slug, release_date: model.release_date };
}

export function freeLanguageModel(view: ModelView): Record<string, unknown> {
  const { creator, cost } = view;
  return {
    ...modelIdentity(view),
    model_creator: { id: creator.id, name: creator.name },
    evaluations: pick(view.evaluations, HEADLINE_INDICES),
    platform_intelligence_index_cost: { total_cost: cost.total_cost, cost_per_task: { total_cost: cost.cost_per_task.total_cost } },
    pricing: pick(view.pricing, FREE_PRICES),
    performance: mediansOnly(view.performance[DEFAULT_PROMPT_TYPE]),
  };
}

export function proLanguageModel(view: ModelView, promptType: PromptType): Record<string, unknown> {
  const { model, creator, cost } = view;
  return {
    ...modelIdentity(view),
    model_creator: { id: creator.id, name: creator.name, country: creator.country },
    reasoning_model: model.reasoning_model,
    evaluations: view.evaluations,
    platform_intelligence_index_cost: {
      total_cost: cost.total_cost,
      input_cost: cost.input_cost,
      reasoning_cost: cost.reasoning_cost,
      answer_cost: cost.answer_cost,
      cost_per_task: cost.cost_per_task,
    },
    platform_intelligence_index_token_counts: view.tokenCounts,
    pricing: pick(view.pricing, PRO_PRICES),
    performance: pick(view.performance[promptType], PERFORMANCE_FIELDS),
    context_window_tokens: model.context_window_tokens ?? null,
    parameters: { total: model.parameters.total, active: model.parameters.active },
    modalities: model.modalities,
    licensing: { is_open_weights: model.licensing.is_open_weights },
    weights_hub_url: model.weights_hub_url ?? null,
    router_api_id: model.router_api_id ?? null,
  };
}

function omniscienceBreakdown(view: ModelView): Record<string, unknown> | null {
  const breakdown = view.model.omniscience_breakdown;
  if (!breakdown) return null;
  return Object.fromEntries(OMNISCIENCE_DOMAINS.map((d) => [d, pick(breakdown[d], OMNISCIENCE_METRICS)]));
}

function opennessBreakdown(view: ModelView): Record<string, unknown> | null {
  const openness = view.model.openness;
  if (!openness) return null;
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
