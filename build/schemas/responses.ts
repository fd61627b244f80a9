/**
 * Response schemas (JSON Schema 2020-12), per route and tier. The build checks every body it
 * writes against the schema of its route; objects are closed, so a Pro-only field in a Free
 * body, or a detail-only field in a list item, fails the build.
 */
import { MAX_PAGE, MEDIA_ARENAS, mediaRouteId, type Route, type Tier } from '../../src/shared/routes.ts';
import { closed, named, string, type Schema } from './json-schema.ts';
import {
  freeLanguageModel,
  languageModelDetail,
  modelPerformance,
  proLanguageModel,
  provider,
  providerMeasurements,
  providerPerformance,
} from './language-responses.ts';
import { LEGACY_RESPONSE_SCHEMAS } from './legacy-responses.ts';
import { changesData, modelHistory } from './changes-responses.ts';
import { freeMediaItem, proMediaItem } from './media-responses.ts';

const SCHEMA = 'https://json-schema.org/draft/2020-12/schema';

export const pagination = named(
  'PaginationMeta',
  closed({
    page: { type: 'integer', minimum: 1, maximum: MAX_PAGE },
    page_size: { type: 'integer', minimum: 1 },
    total_pages: { type: 'integer', minimum: 0 },
    has_more: { type: 'boolean' },
  }),
);

function tierField(tier: Tier): Schema {
  return { const: tier };
}

/** The envelope of a language route: tier, index version, pagination on lists, then data. */
function languageEnvelope(tier: Tier, data: Schema, paginated: boolean): Schema {
  const fields: Record<string, unknown> = { tier: tierField(tier), intelligence_index_version: { type: 'number' } };
  if (paginated) fields.pagination = pagination;
  fields.data = data;
  return closed(fields);
}

/** The envelope of other routes: tier, pagination on lists, then data. */
function plainEnvelope(tier: Tier, data: Schema, paginated = false): Schema {
  return closed(paginated ? { tier: tierField(tier), pagination, data } : { tier: tierField(tier), data });
}

/** Response schema of each route the build writes, by route id, for one tier. */
const RESPONSE_SCHEMAS: Record<string, (tier: Tier) => Schema> = {
  'language.models.free': (tier) => languageEnvelope(tier, { type: 'array', items: freeLanguageModel }, true),
  'language.models': (tier) => languageEnvelope(tier, { type: 'array', items: proLanguageModel }, true),
  'language.model': (tier) => languageEnvelope(tier, languageModelDetail(tier), false),
  'language.model.history': (tier) => plainEnvelope(tier, modelHistory),
  'language.model.performance': (tier) => plainEnvelope(tier, modelPerformance),
  'language.providers': (tier) => plainEnvelope(tier, { type: 'array', items: provider('List') }, true),
  'language.provider': (tier) => plainEnvelope(tier, provider('Detail')),
  'language.provider.performance': (tier) => plainEnvelope(tier, providerPerformance),
  'language.provider.measurements': (tier) => plainEnvelope(tier, providerMeasurements),
  'critpt.problems': (tier) => plainEnvelope(tier, { type: 'array', items: string, uniqueItems: true }),
  changes: (tier) => plainEnvelope(tier, changesData, true),
};

for (const { arena, family } of MEDIA_ARENAS) {
  const id = mediaRouteId(arena);
  RESPONSE_SCHEMAS[`${id}.free`] = (tier) => plainEnvelope(tier, { type: 'array', items: freeMediaItem(family) });
  RESPONSE_SCHEMAS[id] = (tier) => plainEnvelope(tier, { type: 'array', items: proMediaItem(family) });
}

Object.assign(RESPONSE_SCHEMAS, LEGACY_RESPONSE_SCHEMAS);

// The document's own structure is checked by the tests against the OpenAPI 3.1 layout.
RESPONSE_SCHEMAS.openapi = () =>
  closed({
    openapi: { const: '3.1.0' },
    info: {
      type: 'object',
      required: ['title', 'version', 'license'],
      properties: {
        title: string,
        version: string,
        license: { type: 'object', required: ['name'], properties: { name: string } },
      },
    },
    jsonSchemaDialect: string,
    servers: { type: 'array', minItems: 1 },
    paths: { type: 'object' },
    components: { type: 'object' },
  });

// The front door: the index as JSON, or the same as an HTML page (a string written as it is).
RESPONSE_SCHEMAS.index = () => ({
  anyOf: [
    { type: 'string', pattern: '^<!doctype html>' },
    closed({
      service: string,
      description: string,
      snapshot: closed({
        build_id: string,
        data_as_of: { type: 'string', format: 'date-time' },
        intelligence_index_version: { type: 'number' },
      }),
      links: closed({ openapi: string, healthz: string, readyz: string }),
      routes: {
        type: 'array',
        items: closed({
          method: { enum: ['GET', 'POST'] },
          path: string,
          summary: string,
          tiers: { type: 'array', items: string },
          query: { type: 'array', items: string },
          served: { type: 'boolean' },
          example: string,
        }),
      },
    }),
  ],
});
RESPONSE_SCHEMAS['index.api'] = RESPONSE_SCHEMAS.index;

export function hasResponseSchema(route: Route): boolean {
  return Object.hasOwn(RESPONSE_SCHEMAS, route.id);
}

export function responseSchema(route: Route, tier: Tier): Schema {
  const make = RESPONSE_SCHEMAS[route.id];
  if (!make) throw new Error(`no response schema for route ${route.id}`);
  return { $schema: SCHEMA, $id: `${route.id}.${tier}`, ...make(tier) };
}
