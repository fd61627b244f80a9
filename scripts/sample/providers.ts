/** Providers and their endpoints: who serves which model, at what price and context. */
import { Rng } from './rng.ts';
import type { Provider, ProviderEndpoint } from '../../build/types.ts';
import type { SampleOptions } from './options.ts';
import {
  DAY_MS,
  PROVIDER_COUNTRIES,
  PROVIDER_SUFFIXES,
  PROVIDER_WORDS,
  UNKNOWN_COUNTRY,
  YEAR_MS,
  clamp,
  companyNames,
  dayMs,
  price,
  slugMaker,
} from './world.ts';
import type { CreatorDraft } from './creators.ts';
import { CONTEXT_WINDOWS, type ModelDraft } from './models.ts';

export type ProviderRole = 'first-party' | 'cloud' | 'specialist';

export interface ProviderDraft {
  record: Provider;
  role: ProviderRole;
  /** The creator whose own API this is (first-party only). */
  creatorId: string | null;
  /** Creators whose closed models this cloud resells. */
  partners: Set<string>;
  /** How many open models it tends to host, relative to others. */
  reach: number;
  /** Serving characteristics relative to a typical provider. */
  speed: number;
  latency: number;
  /** Price relative to the model's list price. */
  markup: number;
}

/**
 * A fifth of providers are the first-party APIs of the creators with the most closed models,
 * about one in eight are big clouds reselling closed models, the rest host open weights.
 */
export function generateProviders(
  options: SampleOptions,
  creators: CreatorDraft[],
  models: ModelDraft[],
): ProviderDraft[] {
  const rng = new Rng(options.seed, 'providers');
  const closedModels = new Map<string, number>();
  for (const m of models)
    if (!m.record.licensing.is_open_weights)
      closedModels.set(m.creator.record.id, (closedModels.get(m.creator.record.id) ?? 0) + 1);
  const owners = [...creators]
    .filter((c) => closedModels.has(c.record.id))
    .sort(
      (a, b) =>
        closedModels.get(b.record.id)! - closedModels.get(a.record.id)! || (a.record.name < b.record.name ? -1 : 1),
    );
  const firstParty = owners.slice(0, Math.round(options.providers * 0.2));
  const clouds = options.providers >= 3 ? Math.max(1, Math.round(options.providers * 0.12)) : 0;
  const names = companyNames(options.providers - firstParty.length, PROVIDER_WORDS, PROVIDER_SUFFIXES, rng);
  const slugFor = slugMaker();
  const make = (name: string, role: ProviderRole, creator: CreatorDraft | null): ProviderDraft => ({
    record: {
      id: rng.uuid(),
      slug: slugFor(name),
      name,
      country: creator ? creator.record.country : rng.chance(UNKNOWN_COUNTRY) ? null : rng.weighted(PROVIDER_COUNTRIES),
    },
    role,
    creatorId: creator?.record.id ?? null,
    partners: new Set(),
    reach: role === 'cloud' ? rng.lognormal(1.5, 0.3) : rng.lognormal(1, 0.6),
    // A few specialists run custom chips and are several times faster than the rest.
    speed: role === 'specialist' && rng.chance(0.12) ? rng.lognormal(3, 0.2) : rng.lognormal(1, 0.3),
    latency: rng.lognormal(1, 0.35),
    markup: role === 'first-party' ? 1 : rng.lognormal(1, 0.2),
  });
  const drafts = [
    ...firstParty.map((c) => make(c.record.name, 'first-party', c)),
    ...names.map((name, i) => make(name, i < clouds ? 'cloud' : 'specialist', null)),
  ];
  // Each closed-model creator sells through one to three clouds, however many clouds there are.
  const cloudDrafts = drafts.filter((p) => p.role === 'cloud');
  for (const owner of owners)
    for (const cloud of rng.shuffle(cloudDrafts).slice(0, rng.int(1, 3))) cloud.partners.add(owner.record.id);
  return drafts.sort((a, b) =>
    a.record.name < b.record.name ? -1 : a.record.name > b.record.name ? 1 : a.record.id < b.record.id ? -1 : 1,
  );
}

export const MAX_PROVIDERS_PER_MODEL = 8;
/** Models this old are often no longer served by anyone. */
export const RETIRED_AFTER_MS = 540 * DAY_MS;

/** Which providers serve a model: none for retired models, many for popular open weights. */
export function servingProviders(
  model: ModelDraft,
  providers: ProviderDraft[],
  asOfMs: number,
  rng: Rng,
): ProviderDraft[] {
  const age = asOfMs - model.releaseMs;
  if (rng.chance(age > RETIRED_AFTER_MS ? 0.18 : 0.04)) return [];
  const own = providers.find((p) => p.creatorId === model.creator.record.id);
  const chosen = new Set<ProviderDraft>();
  if (own && rng.chance(model.record.licensing.is_open_weights ? 0.6 : 0.97)) chosen.add(own);
  const hosts = providers.filter((p) => p.role !== 'first-party');
  if (!model.record.licensing.is_open_weights) {
    for (const p of hosts) if (p.partners.has(model.creator.record.id) && rng.chance(0.75)) chosen.add(p);
    // A closed model without its creator's own API is sold through someone else's.
    if (chosen.size === 0 && hosts.length > 0) chosen.add(rng.pick(hosts));
    return [...chosen];
  }
  const recency = clamp(1 - age / (2 * YEAR_MS), 0, 1);
  const wanted = Math.max(
    1,
    Math.round(rng.lognormal(2.4 * model.creator.popularity * (0.4 + recency) * (1 + 0.15 * model.capability), 0.5)),
  );
  let pool = hosts;
  while (chosen.size < Math.min(wanted, MAX_PROVIDERS_PER_MODEL) && pool.length > 0) {
    const host = rng.weighted(pool.map((p) => [p, p.reach] as const));
    chosen.add(host);
    pool = pool.filter((p) => p !== host);
  }
  return [...chosen];
}

/**
 * List price of a model (USD per 1M input tokens): open weights priced by active parameters,
 * closed models by tier and capability. Output costs 2-5x input.
 */
export function listPrices(model: ModelDraft, rng: Rng): { input: number; outputRatio: number } {
  const base = model.record.licensing.is_open_weights
    ? 0.03 * model.variant.active ** 0.75
    : 1.25 * Math.exp(1.8 * model.variant.effect) * Math.exp(0.25 * (model.capability - 2));
  const spread = model.record.licensing.is_open_weights ? 0.35 : 0.5;
  return { input: clamp(base * rng.lognormal(1, spread), 0.02, 15), outputRatio: rng.pick([2, 2.5, 3, 4, 4, 4, 5]) };
}

export function endpointContext(model: number | null, rng: Rng): number | null {
  if (model === null || rng.chance(0.7)) return model;
  const smaller = CONTEXT_WINDOWS.filter((w) => w < model);
  return smaller.length > 0 ? rng.pick(smaller.slice(-3)) : model;
}

export function buildEndpoint(
  model: ModelDraft,
  provider: ProviderDraft,
  list: { input: number; outputRatio: number },
  rng: Rng,
): ProviderEndpoint {
  const unpriced = rng.chance(0.03);
  const input = clamp(list.input * provider.markup, 0.02, 15);
  const hasCacheHit = !unpriced && rng.chance(0.6);
  const hasCacheWrite = hasCacheHit && rng.chance(2 / 3);
  return {
    id: rng.uuid(),
    model_id: model.record.id,
    provider_id: provider.record.id,
    price_1m_input_tokens: unpriced ? null : price(input),
    price_1m_output_tokens: unpriced ? null : price(input * list.outputRatio),
    price_1m_cache_hit_tokens: hasCacheHit ? price(input * rng.pick([0.1, 0.125, 0.2, 0.25])) : null,
    price_1m_cache_write_tokens: hasCacheWrite ? Number((price(input) * 1.25).toPrecision(3)) : null,
    context_window_tokens: endpointContext(model.record.context_window_tokens ?? null, rng),
  };
}

export interface EndpointDraft {
  record: ProviderEndpoint;
  model: ModelDraft;
  provider: ProviderDraft;
}

export function generateEndpoints(
  options: SampleOptions,
  models: ModelDraft[],
  providers: ProviderDraft[],
): EndpointDraft[] {
  const rng = new Rng(options.seed, 'endpoints');
  const asOfMs = dayMs(options.asOf);
  const order = new Map(providers.map((p, i) => [p, i]));
  return models.flatMap((model) => {
    const list = listPrices(model, rng);
    const serving = servingProviders(model, providers, asOfMs, rng).sort((a, b) => order.get(a)! - order.get(b)!);
    return serving.map((provider) => ({ record: buildEndpoint(model, provider, list, rng), model, provider }));
  });
}
