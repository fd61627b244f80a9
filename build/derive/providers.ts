/**
 * Providers as the Commercial routes see them: each with the models it serves (in the model
 * list's order), built from the same endpoint views as the model routes, so every figure on
 * a provider route is the figure the model routes derive from.
 */
import { compareByNameThenId, type EndpointView, type ModelView } from './language.ts';
import type { Dataset, Provider } from '../types.ts';

export interface ProviderOffer {
  model: ModelView;
  endpoint: EndpointView;
}

export interface ProviderView {
  provider: Provider;
  offers: ProviderOffer[];
}

/** Every provider, by name then id, with its offers; a provider with no endpoint has none. */
export function deriveProviderViews(dataset: Dataset, models: readonly ModelView[]): ProviderView[] {
  const views = new Map(
    dataset.providers.map((provider) => [provider.id, { provider, offers: [] as ProviderOffer[] }]),
  );
  for (const model of models)
    for (const endpoint of model.providers) views.get(endpoint.provider.id)!.offers.push({ model, endpoint });
  return [...views.values()].sort((a, b) => compareByNameThenId(a.provider, b.provider));
}
