/**
 * Response schemas of the language routes' data: models (Free, Pro, the detail with its
 * detail-only fields, Commercial's providers), providers with the models they serve, performance
 * over time and measurements. Each shape is named as a client generated from the document would
 * import it; the envelopes around them are build/schemas/responses.ts's.
 */
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
import type { Tier } from '../../src/shared/routes.ts';
import {
  BLENDED_PRICES,
  COST_PARTS,
  FREE_PRICES,
  HEADLINE_INDICES,
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
export function provider(view: 'List' | 'Detail'): Schema {
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

export const modelPerformance = named(
  'ModelPerformanceOverTime',
  closed({ id: uuid, slug: string, name: string, providers: series('one series per provider offering the model') }),
);
export const providerPerformance = named(
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

export const providerMeasurements = named(
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
