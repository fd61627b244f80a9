/**
 * The builders of the routes the build answers, by route id: what each route's data is, from
 * the build context (the enumeration, envelope and pagination are build/shape/bodies.ts's), and
 * which routes they answer in a build.
 */
import {
  LEGACY_PROMPT_OPTIONS,
  MEDIA_ARENAS,
  ROUTES,
  legacyArenaRouteId,
  mediaRouteId,
  type PromptType,
  type Tier,
} from '../../src/shared/routes.ts';
import { deriveArena, isEligible } from '../derive/media.ts';
import type { MediaFamily } from '../schemas/media.ts';
import { legacyArenaEntry, legacyLanguageModel } from './legacy.ts';
import { freeMediaEntry, proMediaEntry } from './media.ts';
import { openApiDocument } from '../schemas/openapi.ts';
import { compactSeries, windowPoints, type CompactSeries, type Interval, type WindowName } from '../derive/series.ts';
import type { EndpointView } from '../derive/language.ts';
import { measurementBlob } from './measurements.ts';
import { freeLanguageModel, languageModelDetail, proLanguageModel } from './language.ts';
import { modelPerformance, providerDetail, providerListItem, providerPerformance } from './providers.ts';
import { EMPTY_COLUMNS } from '../columns.ts';
import { EXAMPLE_AS_OF, EXAMPLE_STATS_DAYS, exampleDataset } from './example-dataset.ts';
import { exampleBodies } from './openapi-examples.ts';
import { exampleChanges, exampleModelHistory } from './example-changes.ts';
import { frontDoor, frontDoorHtml } from './front-door.ts';
import { createBuildContext } from './build-context.ts';
import { perContext } from './per-context.ts';
import type { BuildContext, Params, RouteBuilder } from './route-builder.ts';

const withIndexVersion = (ctx: BuildContext, tier: Tier) => ({
  tier,
  intelligence_index_version: ctx.intelligenceIndexVersion,
});

/** The builders of the routes the build answers, by route id. */
export function routeBuilders(): Record<string, RouteBuilder> {
  // Items of the Pro list do not depend on the tier; shape them once per prompt type.
  const proItems = perContext(Infinity, (ctx, promptType) =>
    ctx.models.map((m) => proLanguageModel(m, promptType as PromptType)),
  );
  const modelsBySlug = perContext(Infinity, (ctx) => new Map(ctx.models.map((m) => [m.model.slug, m])));
  const providersBySlug = perContext(Infinity, (ctx) => new Map(ctx.providers.map((p) => [p.provider.slug, p])));
  // An endpoint's series serve every window of its model's bodies and of its provider's: made
  // once per endpoint, prompt type and interval, and kept compactly (dates shared) for the build.
  const compacted = perContext(Infinity, () => new Map<string, CompactSeries>());
  const seriesOf = (ctx: BuildContext, params: Params) => {
    const cache = compacted(ctx, '');
    const interval = params.interval as Interval;
    return (e: EndpointView) => {
      const key = `${e.endpoint.id} ${params.prompt_type} ${interval}`;
      let series = cache.get(key);
      if (!series) {
        const records = ctx.records.get(e.endpoint.id)?.get(params.prompt_type as PromptType) ?? EMPTY_COLUMNS;
        cache.set(key, (series = compactSeries(records, ctx.asOf, interval)));
      }
      return windowPoints(series, params.window as WindowName, interval);
    };
  };
  const providerSlugs = (ctx: BuildContext) => ctx.providers.map((p) => p.provider.slug);
  const builders: Record<string, RouteBuilder> = {
    'language.models.free': {
      head: withIndexVersion,
      items: (ctx) => ctx.models.map(freeLanguageModel),
    },
    'language.models': {
      head: withIndexVersion,
      items: (ctx, _tier, params) => proItems(ctx, String(params.prompt_type)),
    },
    'language.model': {
      head: withIndexVersion,
      slugs: (ctx) => ctx.models.map((m) => m.model.slug),
      data: (ctx, tier, params, slug) =>
        languageModelDetail(modelsBySlug(ctx, '').get(slug)!, params.prompt_type as PromptType, tier),
    },
    'language.model.performance': {
      slugs: (ctx) => ctx.models.map((m) => m.model.slug),
      data: (ctx, _tier, params, slug) => modelPerformance(modelsBySlug(ctx, '').get(slug)!, seriesOf(ctx, params)),
    },
    'language.providers': {
      items: (ctx) => ctx.providers.map(providerListItem),
    },
    'language.provider': {
      slugs: providerSlugs,
      data: (ctx, _tier, params, slug) =>
        providerDetail(providersBySlug(ctx, '').get(slug)!, params.prompt_type as PromptType),
    },
    'language.provider.performance': {
      slugs: providerSlugs,
      data: (ctx, _tier, params, slug) =>
        providerPerformance(providersBySlug(ctx, '').get(slug)!, seriesOf(ctx, params)),
    },
    'language.provider.measurements': {
      slugs: providerSlugs,
      fragments: (ctx, params, slug) =>
        measurementBlob(
          providersBySlug(ctx, '').get(slug)!,
          params.prompt_type as PromptType,
          (id) => ctx.records.get(id)?.get(params.prompt_type as PromptType) ?? EMPTY_COLUMNS,
          ctx.asOf,
        ),
    },
  };
  const arenaViews = perContext(Infinity, (ctx, arena) =>
    deriveArena(ctx.dataset, ctx.dataset.media[arena], arenaFamily(arena), ctx.arenaOptions),
  );
  for (const { arena, family, flag } of MEDIA_ARENAS) {
    const available = (ctx: BuildContext) => Object.hasOwn(ctx.dataset.media, arena);
    builders[`${mediaRouteId(arena)}.free`] = {
      available,
      data: (ctx) => arenaViews(ctx, arena).map((v) => freeMediaEntry(v, family)),
    };
    builders[mediaRouteId(arena)] = {
      available,
      data: (ctx, _tier, params) =>
        arenaViews(ctx, arena).map((v) => proMediaEntry(v, family, flag !== null && params[flag] === true)),
    };
  }
  builders['legacy.llms.models'] = {
    head: (_ctx, _tier, params) => ({
      status: 200,
      prompt_options: { parallel_queries: params.parallel_queries, prompt_length: params.prompt_length },
    }),
    data: (ctx, _tier, params) => ctx.models.map((m) => legacyLanguageModel(m, legacyPromptType(params))),
  };
  for (const arena of LEGACY_ARENAS) {
    const family = arenaFamily(arena);
    builders[legacyArenaRouteId(arena)] = {
      available: (ctx) => Object.hasOwn(ctx.dataset.media, arena),
      head: (_ctx, _tier, params) => ({ status: 200, include_categories: params.include_categories }),
      // The legacy leaderboards list ranked entries only, for every arena they cover.
      data: (ctx, _tier, params) =>
        arenaViews(ctx, arena)
          .filter((v) => isEligible(v.entry, family, ctx.arenaOptions))
          .map((v, i) =>
            legacyArenaEntry(
              v,
              i + 1,
              family === 'video',
              params.include_categories === true && family !== 'text-to-speech',
            ),
          ),
    };
  }
  builders['critpt.problems'] = { data: (ctx) => ctx.dataset.critptProblems };
  const door = (ctx: BuildContext, params: Params) => {
    const index = frontDoor(ctx, new Set(builtRouteIds(ctx, builders)), { metrics: params.metrics === true });
    return params.format === 'html' ? frontDoorHtml(index) : index;
  };
  // Joined by the server from the history every build carries (build/history/); the items here are
  // the OpenAPI document's example only (build/shape/bodies.ts makes no body of this route).
  builders.changes = { items: (ctx, tier, params) => exampleChanges(ctx, tier, params) };
  builders['language.model.history'] = {
    slugs: (ctx) => ctx.models.map((m) => m.model.slug),
    data: (ctx, _tier, params, slug) => exampleModelHistory(ctx, params.prompt_type as PromptType, slug),
  };
  builders.index = { body: door };
  builders['index.api'] = { body: door };
  // The document is public: its examples are shaped from the made-up example dataset, never
  // from the served one (whose answers need a key), with this build's page size and ranking.
  builders.openapi = {
    body: (ctx) => {
      const example = createBuildContext(exampleDataset(), {
        asOf: EXAMPLE_AS_OF,
        statsDays: EXAMPLE_STATS_DAYS,
        pageSize: ctx.pageSize,
        arenaOptions: ctx.arenaOptions,
      });
      return openApiDocument({
        examples: exampleBodies(example, builders),
        critptProblems: example.dataset.critptProblems,
      });
    },
  };
  return builders;
}

const LEGACY_ARENAS = ['text-to-image', 'image-editing', 'text-to-speech', 'text-to-video', 'image-to-video'];

function arenaFamily(arena: string): MediaFamily {
  return MEDIA_ARENAS.find((a) => a.arena === arena)!.family;
}

/** The prompt type a legacy prompt option stands for. */
function legacyPromptType(params: Params): PromptType {
  return LEGACY_PROMPT_OPTIONS.find(
    (o) => o.prompt_length === params.prompt_length && o.parallel_queries === params.parallel_queries,
  )!.prompt_type;
}

/** Route ids the build answers (the manifest lists them; the server answers the rest with 501). */
export function builtRouteIds(ctx: BuildContext, builders: Record<string, RouteBuilder> = routeBuilders()): string[] {
  return ROUTES.filter((r) => builders[r.id] && builders[r.id].available?.(ctx) !== false).map((r) => r.id);
}
