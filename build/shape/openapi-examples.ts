/**
 * Example bodies for the OpenAPI document, made by the same builders as the snapshot's own
 * bodies: for each route, the richest tier's answer with the default parameters, for the first
 * model and provider. The context given is the made-up example dataset's
 * (`example-dataset.ts`), never the served one: the document needs no key. Lists are cut to
 * their first items so the document stays small; the build checks every example against its
 * route's schema like any body.
 */
import { firstKeptDay } from './measurements.ts';
import { assembleMeasurements } from '../../src/shared/measurements.ts';
import { ROUTES, type Route } from '../../src/shared/routes.ts';
import { paginate } from './pages.ts';
import type { BuildContext, Params, RouteBuilder } from './route-builder.ts';

/** Items an example keeps of any list. */
const EXAMPLE_ITEMS = 2;

/** Every array cut to its first items, at any depth. */
export function trimmed(value: unknown, items = EXAMPLE_ITEMS): unknown {
  if (Array.isArray(value)) return value.slice(0, items).map((v) => trimmed(v, items));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, trimmed(v, items)]));
  return value;
}

/** The default value of each of the route's query parameters that has one. */
function defaultParams(route: Route): Params {
  const params: Params = {};
  for (const [name, spec] of Object.entries(route.query)) {
    if (spec.default !== undefined) params[name] = spec.default;
    else if (spec.defaultFrom) params[name] = spec.defaultFrom.map[String(params[spec.defaultFrom.param])];
  }
  return params;
}

/** A model that providers serve, and one of those providers: their answers have data in them. */
function exampleSlugs(ctx: BuildContext): { Model?: string; Provider?: string } {
  const served = ctx.models.find((m) => m.providers.length > 0) ?? ctx.models[0];
  return {
    Model: served?.model.slug,
    Provider: served?.providers[0]?.provider.slug ?? ctx.providers[0]?.provider.slug,
  };
}

/** Example 200 bodies by route id, shaped from the example context by the routes' builders. */
export function exampleBodies(ctx: BuildContext, builders: Record<string, RouteBuilder>): Record<string, unknown> {
  const slugs = exampleSlugs(ctx);
  const out: Record<string, unknown> = {};
  for (const route of ROUTES) {
    const builder = builders[route.id];
    if (!builder || builder.body || builder.available?.(ctx) === false) continue;
    const tier = route.tiers[route.tiers.length - 1];
    const params = defaultParams(route);
    const head = builder.head ? builder.head(ctx, tier, params) : { tier };
    const slug = route.slugOf ? slugs[route.slugOf] : '';
    if (slug === undefined) continue;
    let body: unknown;
    if (builder.fragments) {
      const { index, data } = builder.fragments(ctx, params, slug);
      body = JSON.parse(assembleMeasurements(index, data, firstKeptDay(ctx.asOf)).toString('utf8'));
    } else if (route.paginated) {
      const [first] = paginate(builder.items!(ctx, tier, params), ctx.pageSize);
      body = {
        ...head,
        pagination: first?.pagination ?? { page: 1, page_size: ctx.pageSize, total_pages: 0, has_more: false },
        data: first?.items ?? [],
      };
    } else body = { ...head, data: builder.data!(ctx, tier, params, slug) };
    out[route.id] = trimmed(body);
  }
  return out;
}
