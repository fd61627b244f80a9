/**
 * The OpenAPI 3.1 document of the API, generated from the route table and the response
 * schemas the build checks every body against; never written by hand. The build stores it as
 * a precomputed body like any other (route `openapi`), with an example answer per operation.
 * The document needs no key, so its examples come from a made-up dataset
 * (`build/shape/example-dataset.ts`), never from the data the snapshot serves.
 */
import { critptRequestSchema } from '../../src/shared/critpt-schema.ts';
import { querySchema } from '../../src/shared/query-schema.ts';
import { isPrecomputed, ROUTES, type ParamSpec, type Route } from '../../src/shared/routes.ts';
import type { Schema } from './json-schema.ts';
import { components, COMPONENT_REF } from './components.ts';
import { hasResponseSchema, responseSchema } from './responses.ts';

const ERROR = { $ref: `${COMPONENT_REF}Error` };
const JSON_TYPE = 'application/json';

/** Answers any request can get before a route is matched, or from node:http itself. */
const PROTOCOL_ERRORS: Record<string, string> = {
  '400': 'Malformed request (request line, percent-encoding)',
  '405': 'Method not allowed on this path; the Allow header lists the allowed ones',
  '408': 'The request did not arrive in time',
  '414': 'Request target longer than 8 KiB',
  '431': 'Request headers larger than 16 KiB',
  '500': 'Server error; retry with exponential backoff',
};

export interface DocumentOptions {
  /** Example 200 bodies by route id. */
  examples?: Readonly<Record<string, unknown>>;
  /** Problem ids for the example batch (made up, as the examples are: the served set needs a key). */
  critptProblems?: readonly string[];
}
const QUOTA_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

/** A response schema without the keys that only make sense at the top of a schema file. */
function embedded(schema: Schema): Schema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

function parameterOf(name: string, spec: ParamSpec): Record<string, unknown> {
  const schema = (querySchema({ [name]: spec }).properties as Record<string, unknown>)[name] as Record<string, unknown>;
  const description = spec.defaultFrom
    ? `${spec.description} Default: ${Object.entries(spec.defaultFrom.map)
        .map(([k, v]) => `${v} for ${spec.defaultFrom!.param}=${k}`)
        .join(', ')}.`
    : spec.description;
  return { name, in: 'query', required: false, description, schema };
}

/** A tier's envelope with its `tier` field given as the tiers that share it (a `const` for one). */
function forTiers(schema: Schema, tiers: readonly string[]): Schema {
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (!properties?.tier) return schema;
  return {
    ...schema,
    properties: { ...properties, tier: tiers.length === 1 ? { const: tiers[0] } : { enum: [...tiers] } },
  };
}

function successSchema(route: Route, withRefs: (schema: Schema) => Schema): Schema | null {
  if (route.answer === 'critpt') return CRITPT_VERDICT;
  if (route.answer === 'health')
    return { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } };
  if (route.answer === 'ready')
    return {
      type: 'object',
      required: ['status', 'snapshot'],
      properties: { status: { const: 'ready' }, snapshot: { type: 'string' } },
    };
  if (route.id === 'openapi' || !hasResponseSchema(route)) return null;
  // One schema per shape: tiers whose answers differ only in the `tier` they name share one.
  const distinct = new Map<string, { tiers: string[]; schema: Schema }>();
  for (const tier of route.tiers) {
    const schema = embedded(responseSchema(route, tier));
    const key = JSON.stringify(forTiers(schema, []));
    const seen = distinct.get(key);
    if (seen) seen.tiers.push(tier);
    else distinct.set(key, { tiers: [tier], schema });
  }
  const perShape = [...distinct.values()].map(({ tiers, schema }) => ({
    title: `${tiers.join(', ')} key`,
    ...withRefs(forTiers(schema, tiers)),
  }));
  return perShape.length === 1 ? perShape[0] : { oneOf: perShape };
}

function jsonContent(schema: Schema | null, example?: unknown): Record<string, unknown> {
  return { [JSON_TYPE]: { schema: schema ?? { type: 'object' }, ...(example === undefined ? {} : { example }) } };
}

const errorResponse = (description: string) => ({ description, content: jsonContent(ERROR) });

const CRITPT_VERDICT = { $ref: `${COMPONENT_REF}CritptVerdict` };

/** The events of a streamed grading, one JSON object a line. */
const CRITPT_EVENT = {
  type: 'object',
  description:
    'With stream_progress=true and a grader that streams: one event a line as grading goes, ' +
    'ending with a result or an error event.',
  required: ['type'],
  properties: {
    type: { enum: ['progress', 'result', 'error'] },
    result: { description: 'On the `result` event: the verdict, as in the JSON answer' },
    error: { type: 'string', description: 'On the `error` event: what went wrong; nothing is counted' },
  },
  additionalProperties: true,
};

/** Every status the server can give for one route, with its meaning. */
function responsesOf(route: Route, example: unknown, withRefs: (schema: Schema) => Schema): Record<string, unknown> {
  const schema = successSchema(route, withRefs);
  const ok: Record<string, unknown> = {
    description: 'Success',
    content:
      route.answer === 'metrics'
        ? { 'text/plain': { schema: { type: 'string' }, example } }
        : jsonContent(schema, example),
  };
  const out: Record<string, unknown> = { '200': ok };
  if (route.method === 'GET' && isPrecomputed(route)) {
    out['304'] = { description: 'Not modified (If-None-Match matched); not counted against the quota' };
    out['406'] = errorResponse('No acceptable content encoding (br, gzip and identity all refused)');
  }
  if (route.public) {
    if (route.answer === 'ready') out['503'] = errorResponse('Not ready; the reason is in details');
    if (route.answer === 'metrics') out['404'] = errorResponse('Metrics are off (start the server with --metrics)');
  } else {
    ok.headers = {
      'X-Platform-Tier': { $ref: '#/components/headers/X-Platform-Tier' },
      ...QUOTA_HEADERS,
      ...(route.answer === 'snapshot' ? { ETag: { schema: { type: 'string' } } } : {}),
    };
    out['400'] = errorResponse(
      route.answer === 'critpt'
        ? 'Invalid body: the message names the field or the problem ids'
        : 'Invalid query parameter: the message names the field',
    );
    out['401'] = errorResponse('Missing or invalid API key');
    const below = route.tiers.length < 3;
    if (route.answer === 'critpt')
      out['403'] = errorResponse('CritPt grading access not granted; details.contact says where to ask');
    else if (below || route.needsProviderGrant)
      out['403'] = errorResponse(
        route.needsProviderGrant
          ? "The key's tier does not cover this route, or the key holds no grant for the provider"
          : "The key's tier does not cover this route",
      );
    if (route.slugOf) out['404'] = errorResponse(`${route.slugOf} not found`);
    if (route.answer === 'critpt') {
      out['413'] = errorResponse('Body larger than the limit');
      out['415'] = errorResponse('Content-Type is not application/json');
    }
    out['429'] = {
      description: 'Quota exhausted',
      headers: {
        ...QUOTA_HEADERS,
        'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until the window ends' },
      },
      content: jsonContent(route.answer === 'critpt' ? { $ref: '#/components/schemas/CritptLimitError' } : ERROR),
    };
    if (route.answer === 'snapshot' || route.answer === 'fragments')
      out['501'] = errorResponse('Known route the current snapshot has no data for');
    if (route.answer === 'critpt') {
      out['502'] = errorResponse('Invalid response from the evaluation system');
      out['503'] = {
        ...errorResponse('No grader configured, or the quota journal cannot be written'),
        headers: { 'Retry-After': { schema: { type: 'integer' } } },
      };
      out['504'] = errorResponse('Evaluation timeout');
    } else
      out['503'] = {
        ...errorResponse('The quota journal cannot be written; nothing is served uncounted'),
        headers: { 'Retry-After': { schema: { type: 'integer' } } },
      };
  }
  for (const [status, description] of Object.entries(PROTOCOL_ERRORS)) out[status] ??= errorResponse(description);
  if (route.answer === 'critpt') {
    // A media type has no description of its own in OpenAPI 3.1: the schema's says what the stream is.
    (ok.content as Record<string, unknown>)['application/x-ndjson'] = {
      schema: { $ref: `${COMPONENT_REF}CritptEvent` },
    };
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => Number(a) - Number(b)));
}

/** A batch of the given problems, each with trivial code: the form of what a client sends. */
function exampleBatch(problems: readonly string[]): Record<string, unknown> {
  return {
    submissions: problems.map((problem_id) => ({
      problem_id,
      generated_code: 'def answer():\n    return 0\n',
      model: 'my-model',
      generation_config: { temperature: 0 },
    })),
    batch_metadata: { run: 'example' },
  };
}

function operationOf(
  route: Route,
  options: DocumentOptions,
  withRefs: (schema: Schema) => Schema,
): Record<string, unknown> {
  const parameters = Object.entries(route.query).map(([name, spec]) => parameterOf(name, spec));
  if (route.path.includes('{slug}'))
    parameters.unshift({
      name: 'slug',
      in: 'path',
      required: true,
      description: `${route.slugOf} slug`,
      schema: { type: 'string' },
    });
  const operation: Record<string, unknown> = {
    operationId: route.id,
    summary: route.summary,
    tags: [route.id.split('.')[0]],
    parameters,
    security: route.public ? [] : [{ apiKey: [] }],
    responses: responsesOf(route, exampleOf(route, options), withRefs),
  };
  if (!route.public) operation['x-tiers'] = route.tiers;
  if (route.answer === 'critpt') {
    operation.description =
      'The whole public problem set, each problem exactly once: ' +
      "every id GET /api/v2/critpt/problems lists (the example's ids are made up). " +
      'The query string is passed to the grader as it is. ' +
      'With stream_progress=true and a grader that streams, the answer is application/x-ndjson: ' +
      'progress events as they happen, ending with a result or an error event.';
    parameters.push({
      name: 'stream_progress',
      in: 'query',
      required: false,
      description: 'Stream progress events as NDJSON (when the grader streams).',
      schema: { type: 'boolean', default: false },
    });
    operation.requestBody = {
      required: true,
      content: {
        [JSON_TYPE]: {
          schema: critptRequestSchema,
          ...(options.critptProblems?.length ? { example: exampleBatch(options.critptProblems) } : {}),
        },
      },
    };
  }
  return operation;
}

/** The example answer of an operation: as given for data routes, the fixed shape of the others. */
function exampleOf(route: Route, options: DocumentOptions): unknown {
  if (route.answer === 'health') return { status: 'ok' };
  // Illustrations of the form (the snapshot cannot know them): a verdict, and a build id as the build writes them.
  if (route.answer === 'critpt')
    return { accuracy: 0.42, timeout_rate: 0.01, server_timeout_count: 1, judge_error_count: 0 };
  if (route.answer === 'ready') return { status: 'ready', snapshot: '20261121T120000Z-1a2b3c4d' };
  if (route.answer === 'metrics') return 'bda_http_requests_total{route="language.models",status="200"} 1024\n';
  return options.examples?.[route.id];
}

export function openApiDocument(options: DocumentOptions = {}): Record<string, unknown> {
  const shapes = components();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES)
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route, options, shapes.withRefs);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Benchmark Data API',
      version: '2.0',
      description:
        'Model benchmark, pricing and performance data, graded by API-key tier (free, pro, commercial) ' +
        'with daily quotas. Generated from the route table and the response schemas.',
      // OpenAPI 3.1 asks for a url or an SPDX identifier; these terms are no published license,
      // so an SPDX reference of our own (`LicenseRef-`) names them, and `name` says what they are.
      license: {
        name: 'Data use requires attribution of this service as the data source (a visible byline or footer link)',
        identifier: 'LicenseRef-Data-Attribution',
      },
    },
    servers: [{ url: '/', description: 'The server that sent this document' }],
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error', 'details'],
          properties: {
            error: { type: 'string', description: 'What went wrong; clients may match on it' },
            details: {
              type: 'object',
              description: 'What a program needs to act on it: field, valid values, tier, limit...',
            },
          },
          example: {
            error:
              'Invalid prompt_type. Valid options: ' +
              'medium, long, 100k, vision_single_image, medium_coding, medium_parallel',
            details: { field: 'prompt_type', value: 'huge' },
          },
        },
        CritptLimitError: {
          type: 'object',
          required: ['error', 'limit', 'remaining', 'reset', 'retryAfter'],
          properties: {
            error: { type: 'string' },
            limit: { type: 'integer' },
            remaining: { type: 'integer' },
            reset: { type: 'string', description: 'Human-readable date' },
            retryAfter: { type: 'integer' },
          },
        },
        CritptVerdict: {
          type: 'object',
          required: ['accuracy', 'timeout_rate', 'server_timeout_count', 'judge_error_count'],
          properties: {
            accuracy: { type: 'number' },
            timeout_rate: { type: 'number' },
            server_timeout_count: { type: 'number' },
            judge_error_count: { type: 'number' },
          },
        },
        CritptEvent: CRITPT_EVENT,
        ...shapes.schemas,
      },
      headers: {
        'X-Platform-Tier': { description: 'Tier of the calling key', schema: { enum: ['free', 'pro', 'commercial'] } },
        'X-RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer' } },
        'X-RateLimit-Reset': {
          description: 'End of the window: Unix seconds (a human-readable date on CritPt)',
          schema: { type: ['integer', 'string'] },
        },
      },
    },
  };
}

/** Each operation's example answer with its route, for the routes with a response schema: what the build checks. */
export function documentExamples(document: unknown): { route: Route; example: unknown }[] {
  const paths = (
    document as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, { example?: unknown }> }> }>
      >;
    }
  ).paths;
  return ROUTES.flatMap((route) => {
    const example = paths[route.path]?.[route.method.toLowerCase()]?.responses['200']?.content?.[JSON_TYPE]?.example;
    return example === undefined || route.id === 'openapi' || !hasResponseSchema(route) ? [] : [{ route, example }];
  });
}
