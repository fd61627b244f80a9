/**
 * Shapes of the Commercial routes: providers with their models, and performance series.
 * Pure functions of the views; series points come in through a function so the build can
 * compute each endpoint's series once and share it between the model and provider routes.
 */
import { DEFAULT_PROMPT_TYPE, type PromptType } from '../../src/shared/routes.ts';
import { pick } from '../collections.ts';
import { mediansOnly } from '../derive/performance.ts';
import type { SeriesPoint } from '../derive/series.ts';
import { PERFORMANCE_FIELDS, type EndpointView, type ModelView } from '../derive/language.ts';
import type { ProviderOffer, ProviderView } from '../derive/providers.ts';
import { PRO_PRICES } from './language.ts';

function offeredModel(
  { model, endpoint }: ProviderOffer,
  performance: Record<string, unknown>,
): Record<string, unknown> {
  return {
    id: model.model.id,
    name: model.model.name,
    slug: model.model.slug,
    pricing: pick(endpoint.pricing, PRO_PRICES),
    performance,
    context_window_tokens: endpoint.endpoint.context_window_tokens,
  };
}

function providerHead({ provider }: ProviderView): Record<string, unknown> {
  return { id: provider.id, name: provider.name, slug: provider.slug, country: provider.country };
}

/** A provider list item: its models with the four medians (default prompt type). */
export function providerListItem(view: ProviderView): Record<string, unknown> {
  return {
    ...providerHead(view),
    models: view.offers.map((o) => offeredModel(o, mediansOnly(o.endpoint.performance[DEFAULT_PROMPT_TYPE]))),
  };
}

/** The single-provider route: percentiles and quartiles added per model. */
export function providerDetail(view: ProviderView, promptType: PromptType): Record<string, unknown> {
  return {
    ...providerHead(view),
    models: view.offers.map((o) => offeredModel(o, pick(o.endpoint.performance[promptType], PERFORMANCE_FIELDS))),
  };
}

export type SeriesOf = (endpoint: EndpointView) => SeriesPoint[];

/** A model's performance over time: one series per provider offering it. */
export function modelPerformance(view: ModelView, seriesOf: SeriesOf): Record<string, unknown> {
  return {
    id: view.model.id,
    slug: view.model.slug,
    name: view.model.name,
    providers: view.providers.map((e) => ({
      id: e.provider.id,
      name: e.provider.name,
      slug: e.provider.slug,
      series: seriesOf(e),
    })),
  };
}

/** A provider's performance over time: one series per model it serves. */
export function providerPerformance(view: ProviderView, seriesOf: SeriesOf): Record<string, unknown> {
  return {
    id: view.provider.id,
    name: view.provider.name,
    slug: view.provider.slug,
    models: view.offers.map(({ model, endpoint }) => ({
      id: model.model.id,
      name: model.model.name,
      slug: model.model.slug,
      series: seriesOf(endpoint),
    })),
  };
}
