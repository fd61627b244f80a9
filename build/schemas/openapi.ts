/**
 * The OpenAPI 3.1 document of the API, generated from the route table and the response
 * schemas the build checks every body against; never written by hand. The build stores it as
 * a precomputed body like any other (route `openapi`), with an example answer per operation.
 * The document needs no key, so its examples come from a made-up dataset
 * (`build/shape/example-dataset.ts`), never from the data the snapshot serves.
 */
import { ROUTES, type Route } from '../../src/shared/routes.ts';
import { components } from './components.ts';
import { operationOf, type DocumentOptions } from './openapi-operations.ts';
import { JSON_TYPE } from './openapi-responses.ts';
import { hasResponseSchema } from './responses.ts';

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
