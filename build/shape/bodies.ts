/**
 * Walk the route table and produce every response body of the snapshot: for each route the
 * build knows how to answer, each tier it admits, each value of its key parameters, and each
 * page or slug. Per-route builders say what the data is; this module does the enumeration,
 * the envelope and the pagination, the same way for every route.
 */
import { ROUTES, entryName, isJoined, type Route, type Tier } from '../../src/shared/routes.ts';
import type { MeasurementBlob } from './measurements.ts';
import { keyParamCombinations } from './key-params.ts';
import { emptyPageTemplate, paginate } from './pages.ts';
import type { BuildContext, RouteBuilder } from './route-builder.ts';
import { routeBuilders } from './route-builders.ts';

/** One precomputed body, named by its entry name in the index. */
export interface ProducedBody {
  key: string;
  route: Route;
  tier: Tier;
  body: unknown;
}

/** Serialised records for a route answered at request time (see shape/measurements.ts). */
export interface ProducedFragments {
  key: string;
  route: Route;
  tier: Tier;
  blob: MeasurementBlob;
}

/**
 * The body of any page past the last: the same envelope with `data: []`; the server puts the
 * requested page number between `before` and `after`.
 */
export interface EmptyPage {
  key: string;
  route: Route;
  tier: Tier;
  before: string;
  after: string;
}

const tierOnly = (_ctx: BuildContext, tier: Tier) => ({ tier });

/** Every body and empty-page template of the snapshot, in route table order. */
export function* produceBodies(
  ctx: BuildContext,
  builders: Record<string, RouteBuilder> = routeBuilders(),
): Generator<ProducedBody | EmptyPage | ProducedFragments> {
  for (const route of ROUTES) {
    const builder = builders[route.id];
    // The changes and a model's history are joined by the server from the history's parts
    // (build/history/stored.ts); the build checks them apart (build/history/changes-parts.ts).
    if (!builder || builder.available?.(ctx) === false || isJoined(route)) continue;
    const headOf = builder.head ?? tierOnly;
    for (const tier of route.tiers) {
      for (const params of route.slugOf ? [] : keyParamCombinations(route)) {
        const head = headOf(ctx, tier, params);
        if (route.paginated) {
          const items = builder.items!(ctx, tier, params);
          const pages = paginate(items, ctx.pageSize);
          for (const { pagination, items: pageItems } of pages) {
            yield {
              key: entryName(route, tier, { ...params, page: pagination.page }),
              route,
              tier,
              body: { ...head, pagination, data: pageItems },
            };
          }
          yield {
            key: entryName(route, tier, { ...params, page: '*' }),
            route,
            tier,
            ...emptyPageTemplate(head, ctx.pageSize, pages.length),
          };
        } else if (!route.slugOf) {
          const body = builder.body
            ? builder.body(ctx, params)
            : { ...head, data: builder.data!(ctx, tier, params, '') };
          yield { key: entryName(route, tier, params), route, tier, body };
        }
      }
      // Slug routes go slug by slug, every parameter combination of one slug together, so
      // what is shared between them (a model's series) is made once and soon dropped.
      if (!route.slugOf) continue;
      for (const slug of builder.slugs!(ctx)) {
        for (const params of keyParamCombinations(route)) {
          const key = entryName(route, tier, params, slug);
          if (builder.fragments) yield { key, route, tier, blob: builder.fragments(ctx, params, slug) };
          else
            yield {
              key,
              route,
              tier,
              body: { ...headOf(ctx, tier, params), data: builder.data!(ctx, tier, params, slug) },
            };
        }
      }
    }
  }
}
