/**
 * Response schemas (JSON Schema 2020-12), per route and tier. The build checks every body it
 * writes against the schema of its route; objects are closed, so a Pro-only field in a Free
 * body, or a detail-only field in a list item, fails the build.
 */
import {
  MAX_PAGE,
  MEDIA_ARENAS,
  ROUTES,
  legacyArenaRouteId,
  mediaRouteId,
  type Route,
  type Tier,
} from '../../src/shared/routes.ts';
import {
  closed,
  fieldsOf,
  named,
  nullable,
  nullableDate,
  nullableInteger,
  nullableNumber,
  nullableString,
  number,
  string,
  uuid,
  type Schema,
} from './json-schema.ts';
import { freeMediaItem, proMediaItem } from './media-responses.ts';
import {
  BLENDED_PRICES,
  COST_PARTS,
  FREE_PRICES,
  HEADLINE_INDICES,
  LEGACY_ROUTE_EVALUATIONS,
  MEDIAN_METRICS,
  MODALITIES,
  OMNISCIENCE_DOMAINS,
  OMNISCIENCE_METRICS,
  OPENNESS_COMPONENTS,
  PRO_EVALUATIONS,
  SPREAD_FIELDS,
  TOKEN_COUNT_EVALUATIONS,
  TOKEN_KINDS,
} from '../fields.ts';

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

const modalitySet = named('ModalitySet', closed(fieldsOf(MODALITIES, { type: 'boolean' })));
const costSplit = named('IntelligenceIndexCostPerTask', closed(fieldsOf(['total_cost', ...COST_PARTS], number)));
const tokenTotals = closed(fieldsOf(TOKEN_KINDS, { type: 'integer', minimum: 0 }));
const omniscienceScores = named('OmniscienceDomainBreakdown', closed(fieldsOf(OMNISCIENCE_METRICS, number)));

export const freePricing = named('FreePricing', closed(fieldsOf(FREE_PRICES, nullableNumber)));
export const proPricing = named('Pricing', closed(fieldsOf([...FREE_PRICES, ...BLENDED_PRICES], nullableNumber)));
export const medianPerformance = closed(fieldsOf(MEDIAN_METRICS, nullableNumber));
export const proPerformance = closed(fieldsOf([...MEDIAN_METRICS, ...SPREAD_FIELDS], nullableNumber));

export const freeLanguageModel = named(
  'FreeModelData',
  closed({
    id: uuid,
    name: string,
    slug: string,
    release_date: nullableDate,
    model_creator: named('FreeModelCreator', closed({ id: uuid, name: string })),
    evaluations: named('FreeEvaluations', closed(fieldsOf(HEADLINE_INDICES, nullableNumber))),
    platform_intelligence_index_cost: nullable(
      named(
        'FreeIntelligenceIndexCost',
        closed({
          total_cost: number,
          cost_per_task: nullable(named('FreeIntelligenceIndexCostPerTask', closed({ total_cost: number }))),
        }),
      ),
    ),
    pricing: freePricing,
    performance: named('FreeModelPerformance', medianPerformance),
  }),
);

const proLanguageModelFields = {
  id: uuid,
  name: string,
  slug: string,
  release_date: nullableDate,
  model_creator: named('ModelCreator', closed({ id: uuid, name: string, country: nullableString })),
  reasoning_model: { type: 'boolean' },
  evaluations: named('Evaluations', closed(fieldsOf([...HEADLINE_INDICES, ...PRO_EVALUATIONS], nullableNumber))),
  platform_intelligence_index_cost: nullable(
    named(
      'IntelligenceIndexCost',
      closed({ ...fieldsOf(['total_cost', ...COST_PARTS], number), cost_per_task: nullable(costSplit) }),
    ),
  ),
  platform_intelligence_index_token_counts: nullable(named('IntelligenceIndexTokenCounts', tokenTotals)),
  pricing: proPricing,
  performance: named('ModelPerformance', proPerformance),
  context_window_tokens: nullableInteger,
  parameters: nullable(named('Parameters', closed({ total: number, active: nullableNumber }))),
  modalities: named('Modalities', closed({ input: modalitySet, output: modalitySet })),
  licensing: named('Licensing', closed({ is_open_weights: { type: 'boolean' } })),
  weights_hub_url: nullableString,
  router_api_id: nullableString,
};

export const proLanguageModel = named('ModelDataExternalList', closed(proLanguageModelFields));

export const modelProvider = named(
  'ModelProviderDataExternal',
  closed({
    id: uuid,
    name: string,
    slug: string,
    pricing: proPricing,
    performance: named('ProviderModelPerformance', proPerformance),
    context_window_tokens: nullableInteger,
  }),
);

const detailFields = {
  ...proLanguageModelFields,
  // An entry per evaluation that was run, none for one that was not; null when none was.
  evaluation_token_counts: nullable(
    named('EvaluationTokenCounts', {
      ...closed(fieldsOf(TOKEN_COUNT_EVALUATIONS, named('EvalTokenCounts', tokenTotals)), []),
      minProperties: 1,
    }),
  ),
  platform_omniscience_breakdown: nullable(
    named(
      'OmniscienceBreakdown',
      closed({ total: omniscienceScores, ...fieldsOf(OMNISCIENCE_DOMAINS.slice(1), nullable(omniscienceScores)) }),
    ),
  ),
  platform_openness_index_breakdown: named(
    'OpennessBreakdown',
    closed(fieldsOf([...OPENNESS_COMPONENTS, 'platform_openness_index'], nullableNumber)),
  ),
};

export function languageModelDetail(tier: Tier): Schema {
  // The original names one shape, with every field, for its list and detail; ours differ (the
  // detail-only fields, Commercial's providers), so the one with every field has its name.
  return tier === 'commercial'
    ? named('ModelDataExternal', closed({ ...detailFields, providers: { type: 'array', items: modelProvider } }))
    : named('ModelDataExternalPro', closed(detailFields));
}

/** A provider with the models it serves: medians only in the list, the spread too in the detail. */
function provider(view: 'List' | 'Detail'): Schema {
  const performance = named(`ProviderModelPerformance${view}`, view === 'List' ? medianPerformance : proPerformance);
  const offered = named(
    `ProviderModelExternal${view}`,
    closed({
      id: uuid,
      name: string,
      slug: string,
      pricing: proPricing,
      performance,
      context_window_tokens: nullableInteger,
    }),
  );
  return named(
    `ProviderDataExternal${view}`,
    closed({
      id: uuid,
      name: string,
      slug: string,
      country: nullableString,
      models: { type: 'array', items: offered },
    }),
  );
}

const seriesPoint = named(
  'PerformanceSnapshot',
  closed({ date: { type: 'string', format: 'date' }, ...fieldsOf(MEDIAN_METRICS, nullableNumber) }),
);
/** One model at one provider over time (or one provider of one model): whose it is, then its points. */
const performanceSeries = named(
  'PerformanceSeries',
  closed({ id: uuid, name: string, slug: string, series: { type: 'array', items: seriesPoint } }),
);
const series = (members: string) => ({ type: 'array', items: performanceSeries, description: members });

const modelPerformance = named(
  'ModelPerformanceOverTime',
  closed({ id: uuid, slug: string, name: string, providers: series('one series per provider offering the model') }),
);
const providerPerformance = named(
  'ProviderPerformanceOverTime',
  closed({ id: uuid, name: string, slug: string, models: series('one series per model the provider serves') }),
);

const measurementRecord = named(
  'Measurement',
  closed({
    id: uuid,
    date: { type: 'string', format: 'date-time' },
    success: { type: 'boolean' },
    output_tokens_per_second: nullableNumber,
    time_to_first_token_seconds: nullableNumber,
    time_to_first_answer_token: nullableNumber,
    end_to_end_response_time_seconds: nullableNumber,
  }),
);

const providerMeasurements = named(
  'ProviderMeasurements',
  closed({
    id: uuid,
    name: string,
    slug: string,
    models: {
      type: 'array',
      items: named(
        'MeasurementModel',
        closed({ id: uuid, name: string, slug: string, measurements: { type: 'array', items: measurementRecord } }),
      ),
    },
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
  'language.model.performance': (tier) => plainEnvelope(tier, modelPerformance),
  'language.providers': (tier) => plainEnvelope(tier, { type: 'array', items: provider('List') }, true),
  'language.provider': (tier) => plainEnvelope(tier, provider('Detail')),
  'language.provider.performance': (tier) => plainEnvelope(tier, providerPerformance),
  'language.provider.measurements': (tier) => plainEnvelope(tier, providerMeasurements),
  'critpt.problems': (tier) => plainEnvelope(tier, { type: 'array', items: string, uniqueItems: true }),
};

for (const { arena, family } of MEDIA_ARENAS) {
  const id = mediaRouteId(arena);
  RESPONSE_SCHEMAS[`${id}.free`] = (tier) => plainEnvelope(tier, { type: 'array', items: freeMediaItem(family) });
  RESPONSE_SCHEMAS[id] = (tier) => plainEnvelope(tier, { type: 'array', items: proMediaItem(family) });
}

const legacyCreator = closed({ id: uuid, name: string, slug: string });
const ci95Text = { type: ['string', 'null'], pattern: '^-\\d+/\\+\\d+$' };

RESPONSE_SCHEMAS['legacy.llms.models'] = () =>
  closed({
    status: { const: 200 },
    prompt_options: closed({
      parallel_queries: { enum: [1, 10] },
      prompt_length: { enum: ['medium', 'long', '100k'] },
    }),
    data: {
      type: 'array',
      items: closed({
        id: uuid,
        name: string,
        slug: string,
        release_date: nullableDate,
        model_creator: legacyCreator,
        evaluations: closed(
          fieldsOf(
            LEGACY_ROUTE_EVALUATIONS.map(([name]) => name),
            nullableNumber,
          ),
        ),
        pricing: closed(
          fieldsOf(['price_1m_blended_3_to_1', 'price_1m_input_tokens', 'price_1m_output_tokens'], nullableNumber),
        ),
        median_output_tokens_per_second: nullableNumber,
        median_time_to_first_token_seconds: nullableNumber,
        median_time_to_first_answer_token: nullableNumber,
      }),
    },
  });

for (const { arena, family } of MEDIA_ARENAS.filter((a) => ROUTES.some((r) => r.id === legacyArenaRouteId(a.arena)))) {
  const category = closed({
    style_category: nullableString,
    subject_matter_category: nullableString,
    ...(family === 'video' ? { format_category: nullableString } : {}),
    elo: { type: 'number' },
    ci95: ci95Text,
    appearances: { type: 'integer', minimum: 0 },
  });
  const fields = {
    id: uuid,
    name: string,
    slug: string,
    model_creator: legacyCreator,
    elo: number,
    rank: { type: 'integer', minimum: 1 },
    ci95: ci95Text,
    appearances: { type: 'integer', minimum: 0 },
    release_date: nullableDate,
  };
  RESPONSE_SCHEMAS[legacyArenaRouteId(arena)] = () =>
    closed({
      status: { const: 200 },
      include_categories: { type: 'boolean' },
      data: {
        type: 'array',
        items: closed({ ...fields, categories: { type: 'array', items: category } }, Object.keys(fields)),
      },
    });
}

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
