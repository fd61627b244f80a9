/**
 * JSON Schemas (2020-12) of the datasets in `data/`. The build validates every file against
 * these before it derives anything; `data/README.md` explains the same fields in prose.
 */
import { PROMPT_TYPES } from '../../src/shared/routes.ts';
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from '../../src/shared/slug.ts';
import {
  HEADLINE_INDICES,
  LEGACY_EVALUATIONS,
  MATH_INDEX,
  MODALITIES,
  OMNISCIENCE_DOMAINS,
  OMNISCIENCE_METRICS,
  OPENNESS_COMPONENTS,
  RAW_EVALUATIONS,
  TOKEN_COUNT_EVALUATIONS,
  type RawEvaluation,
} from '../fields.ts';

const SCHEMA = 'https://json-schema.org/draft/2020-12/schema';

export const uuid = { type: 'string', format: 'uuid' } as const;
/** Lowercase words joined by `-`, `.` or `_`; becomes one path segment of a URL. */
export const slug = { type: 'string', pattern: SLUG_PATTERN.source, maxLength: SLUG_MAX_LENGTH } as const;
export const name = { type: 'string', minLength: 1, maxLength: 200 } as const;
export const country = { type: ['string', 'null'], pattern: '^[a-z]{2}$' } as const;
export const nullableDate = { type: ['string', 'null'], format: 'date' } as const;

function nullableNumber(minimum: number, maximum?: number) {
  return maximum === undefined ? { type: ['number', 'null'], minimum } : { type: ['number', 'null'], minimum, maximum };
}

function closedObject(properties: Record<string, object>, required = Object.keys(properties)) {
  return { type: 'object', additionalProperties: false, required, properties };
}

function everyKey(keys: readonly string[], schema: object) {
  return Object.fromEntries(keys.map((k) => [k, schema]));
}

/** Score bounds: fractions unless the evaluation is an Elo rating or a 0-100 index. */
function evaluationBounds(key: RawEvaluation) {
  if (key.endsWith('_elo')) return nullableNumber(0, 5000);
  if (key === 'platform_multilingual_index') return nullableNumber(0, 100);
  return nullableNumber(0, 1);
}

const counts = { type: 'integer', minimum: 0 } as const;

export const modelCreatorsSchema = {
  $schema: SCHEMA,
  $id: 'model-creators',
  title: 'Model creators',
  type: 'array',
  items: closedObject({ id: uuid, slug, name, country }),
};

export const providersSchema = {
  $schema: SCHEMA,
  $id: 'providers',
  title: 'Language model API providers',
  type: 'array',
  items: closedObject({ id: uuid, slug, name, country }),
};

const modalitySet = closedObject(everyKey(MODALITIES, { type: 'boolean' }));

const omniscienceScores = closedObject({
  [OMNISCIENCE_METRICS[0]]: { type: 'number', minimum: 0, maximum: 1 },
  [OMNISCIENCE_METRICS[1]]: { type: 'number', minimum: -100, maximum: 100 },
  [OMNISCIENCE_METRICS[2]]: { type: 'number', minimum: 0, maximum: 1 },
});

export const languageModelsSchema = {
  $schema: SCHEMA,
  $id: 'language-models',
  title: 'Language models',
  type: 'array',
  items: closedObject(
    {
      id: uuid,
      slug: { ...slug, not: { const: 'free' } },
      name,
      creator_id: uuid,
      release_date: nullableDate,
      reasoning_model: { type: 'boolean' },
      evaluations: closedObject(
        Object.fromEntries([
          ...RAW_EVALUATIONS.map((k) => [k, evaluationBounds(k)]),
          ...LEGACY_EVALUATIONS.map((k) => [k, nullableNumber(0, 1)]),
        ]),
        [],
      ),
      // Values of composite indices published elsewhere (imported data), used as given instead
      // of computing the index from components the data may lack.
      published_indices: closedObject(everyKey([...HEADLINE_INDICES, MATH_INDEX], nullableNumber(0, 100)), []),
      evaluation_token_counts: closedObject(
        everyKey(
          TOKEN_COUNT_EVALUATIONS,
          closedObject({ input_tokens: counts, answer_tokens: counts, reasoning_tokens: counts }),
        ),
        [],
      ),
      // The total, and each domain that was measured (a domain may be null; the total may not).
      omniscience_breakdown: {
        oneOf: [
          { type: 'null' },
          closedObject({
            total: omniscienceScores,
            ...everyKey(OMNISCIENCE_DOMAINS.slice(1), { oneOf: [{ type: 'null' }, omniscienceScores] }),
          }),
        ],
      },
      openness: {
        oneOf: [
          { type: 'null' },
          closedObject(everyKey(OPENNESS_COMPONENTS, { type: 'number', minimum: 0, maximum: 1 })),
        ],
      },
      parameters: closedObject({ total: nullableNumber(0), active: nullableNumber(0) }),
      modalities: closedObject({ input: modalitySet, output: modalitySet }),
      licensing: closedObject({ is_open_weights: { type: 'boolean' } }),
      context_window_tokens: { type: ['integer', 'null'], minimum: 1 },
      weights_hub_url: { type: ['string', 'null'], format: 'uri' },
      router_api_id: { type: ['string', 'null'], minLength: 1 },
    },
    [
      'id',
      'slug',
      'name',
      'creator_id',
      'release_date',
      'reasoning_model',
      'evaluations',
      'parameters',
      'modalities',
      'licensing',
    ],
  ),
};

const price = nullableNumber(0);

export const providerEndpointsSchema = {
  $schema: SCHEMA,
  $id: 'provider-endpoints',
  title: 'Provider endpoints (one model served by one provider)',
  type: 'array',
  items: closedObject({
    id: uuid,
    model_id: uuid,
    provider_id: uuid,
    price_1m_input_tokens: price,
    price_1m_output_tokens: price,
    price_1m_cache_hit_tokens: price,
    price_1m_cache_write_tokens: price,
    context_window_tokens: { type: ['integer', 'null'], minimum: 1 },
  }),
};

const seconds = nullableNumber(0);

export const measurementRecordSchema = closedObject(
  {
    id: uuid,
    timestamp: { type: 'string', format: 'date-time' },
    success: { type: 'boolean' },
    output_tokens_per_second: nullableNumber(0),
    time_to_first_token_seconds: seconds,
    time_to_first_answer_token_seconds: seconds,
    end_to_end_response_time_seconds: seconds,
  },
  [
    'timestamp',
    'success',
    'output_tokens_per_second',
    'time_to_first_token_seconds',
    'time_to_first_answer_token_seconds',
  ],
);

export const measurementsSchema = {
  $schema: SCHEMA,
  $id: 'measurements',
  title: 'Raw measurement records of one provider, per endpoint and prompt type',
  ...closedObject({
    provider_id: uuid,
    series: {
      type: 'array',
      items: closedObject({
        endpoint_id: uuid,
        prompt_type: { enum: PROMPT_TYPES },
        records: { type: 'array', items: measurementRecordSchema },
      }),
    },
  }),
};

/** A JSON pointer into a language model record, naming the score a component reads. */
const scorePointer = { type: 'string', pattern: '^(/[a-z0-9_]+)+$' } as const;

const component = closedObject(
  {
    id: { type: 'string', pattern: '^[a-z0-9_]+$' },
    score: scorePointer,
    weight: { type: 'number', exclusiveMinimum: 0 },
    min: { type: 'number' },
    max: { type: 'number' },
    tasks: { type: 'integer', minimum: 1 },
  },
  ['id', 'score', 'weight', 'min', 'max'],
);

const version = { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' } as const;
const indexKey = { type: 'string', pattern: '^platform_[a-z0-9_]+$' } as const;

export const indexDefinitionsSchema = {
  $schema: SCHEMA,
  $id: 'indices',
  title: 'Composite index definitions',
  ...closedObject(
    {
      intelligence_index: closedObject({
        key: indexKey,
        version,
        components: { type: 'array', minItems: 1, items: component },
        subsets: {
          type: 'array',
          items: closedObject({ key: indexKey, components: { type: 'array', minItems: 1, items: { type: 'string' } } }),
        },
      }),
      capability_indices: closedObject({
        version,
        indices: {
          type: 'array',
          items: closedObject({ key: indexKey, components: { type: 'array', minItems: 1, items: component } }),
        },
      }),
      openness_index: closedObject({
        key: indexKey,
        version,
        components: { type: 'array', minItems: 1, items: component },
      }),
      math_index: closedObject({
        key: { const: MATH_INDEX },
        version,
        components: { type: 'array', minItems: 1, items: component },
      }),
    },
    ['intelligence_index', 'capability_indices', 'openness_index'],
  ),
};

export const critptProblemsSchema = {
  $schema: SCHEMA,
  $id: 'critpt-problems',
  title: 'The public CritPt problem set: every grading batch must hold each problem exactly once',
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,100}$' },
};
