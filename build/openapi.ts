/**
 * The OpenAPI 3.1 document of the API, generated from the route table and the response
 * schemas the build checks every body against; never written by hand. The build stores it as
 * a precomputed body like any other (route `openapi`).
 */
import { critptRequestSchema } from '../src/critpt-request.ts';
import { querySchema } from '../src/query.ts';
import { ROUTES, type ParamSpec, type Route } from '../src/routes.ts';
import { hasResponseSchema, responseSchema, type Schema } from './schemas/responses.ts';

const ERROR = { $ref: '#/components/schemas/Error' };
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
  const description = spec.defaultFrom ? `${spec.description} Default: ${Object.entries(spec.defaultFrom.map).map(([k, v]) => `${v} for ${spec.defaultFrom!.param}=${k}`).join(', ')}.` : spec.description;
  return { name, in: 'query', required: false, description, schema };
}

function successSchema(route: Route): Schema | null {
  if (route.answer === 'critpt') return { type: 'object', required: ['accuracy', 'timeout_rate', 'server_timeout_count', 'judge_error_count'], properties: { accuracy: { type: 'number' }, timeout_rate: { type: 'number' }, server_timeout_count: { type: 'number' }, judge_error_count: { type: 'number' } } };
  if (route.answer === 'health') return { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } };
  if (route.answer === 'ready') return { type: 'object', required: ['status', 'snapshot'], properties: { status: { const: 'ready' }, snapshot: { type: 'string' } } };
  if (route.id === 'openapi' || !hasResponseSchema(route)) return null;
  // One schema per tier; tiers answered alike (the legacy routes) share one.
  const distinct = new Map<string, { tiers: string[]; schema: Schema }>();
  for (const tier of route.tiers) {
    const schema = embedded(responseSchema(route, tier));
    const key = JSON.stringify(schema);
    const seen = distinct.get(key);
    if (seen) seen.tiers.push(tier);
    else distinct.set(key, { tiers: [tier], schema });
  }
  const perTier = [...distinct.values()].map(({ tiers, schema }) => ({ title: `${tiers.join(', ')} key`, ...schema }));
  return perTier.length === 1 ? perTier[0] : { oneOf: perTier };
}

function responsesOf(route: Route): Record<string, unknown> {
  const schema = successSchema(route);
  const json = (s: Schema | null) => ({ 'application/json': { schema: s ?? { type: 'object' } } });
  const ok: Record<string, unknown> = { description: 'Success', content: route.answer === 'metrics' ? { 'text/plain': { schema: { type: 'string' } } } : json(schema) };
  if (route.public) return { '200': ok, ...(route.answer === 'ready' ? { '503': { description: 'Not ready; the reason is in details', content: json(ERROR) } } : {}) };
  ok.headers = { 'X-Platform-Tier': { $ref: '#/components/headers/X-Platform-Tier' }, ...QUOTA_HEADERS, ...(route.answer === 'snapshot' ? { ETag: { schema: { type: 'string' } } } : {}) };
  const error = (description: string) => ({ description, content: json(ERROR) });
  const out: Record<string, unknown> = { '200': ok };
  if (route.method === 'GET') out['304'] = { description: 'Not modified (If-None-Match matched); not counted against the quota' };
  out['400'] = error(route.answer === 'critpt' ? 'Invalid body: the message names the field or the problem ids' : 'Invalid query parameter: the message names the field');
  out['401'] = error('Missing or invalid API key');
  out['403'] = error(route.answer === 'critpt' ? 'CritPt grading access not granted' : 'The key\'s tier does not cover this route (or no grant for the provider)');
  if (route.slugOf) out['404'] = error(`${route.slugOf} not found`);
  out['429'] = {
    description: 'Quota exhausted',
    headers: { ...QUOTA_HEADERS, 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until the window ends' } },
    content: json(route.answer === 'critpt' ? { $ref: '#/components/schemas/CritptLimitError' } : ERROR),
  };
  if (route.answer === 'critpt') {
    out['413'] = error('Body larger than the limit');
    out['415'] = error('Content-Type is not application/json');
    out['502'] = error('Invalid response from the evaluation system');
    out['503'] = error('No grader configured');
    out['504'] = error('Evaluation timeout');
  }
  out['500'] = error('Server error; retry with exponential backoff');
  return out;
}

function operationOf(route: Route): Record<string, unknown> {
  const parameters = Object.entries(route.query).map(([name, spec]) => parameterOf(name, spec));
  if (route.path.includes('{slug}')) parameters.unshift({ name: 'slug', in: 'path', required: true, description: `${route.slugOf} slug`, schema: { type: 'string' } });
  const operation: Record<string, unknown> = {
    operationId: route.id,
    summary: route.summary,
    tags: [route.id.split('.')[0]],
    parameters,
    security: route.public ? [] : [{ apiKey: [] }],
    responses: responsesOf(route),
  };
  if (!route.public) operation['x-tiers'] = route.tiers;
  if (route.answer === 'critpt') {
    operation.description = 'The query string (e.g. stream_progress=true) is passed to the grader as it is. With a streaming grader the answer is application/x-ndjson progress events ending with a result or error event.';
    operation.requestBody = { required: true, content: { 'application/json': { schema: critptRequestSchema } } };
  }
  return operation;
}

export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Benchmark Data API',
      version: '2.0',
      description: 'Model benchmark, pricing and performance data, graded by API-key tier (free, pro, commercial) with daily quotas. Generated from the route table and the response schemas.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: {
        Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' }, details: { type: 'object' } } },
        CritptLimitError: {
          type: 'object',
          required: ['error', 'limit', 'remaining', 'reset', 'retryAfter'],
          properties: { error: { type: 'string' }, limit: { type: 'integer' }, remaining: { type: 'integer' }, reset: { type: 'string', description: 'Human-readable date' }, retryAfter: { type: 'integer' } },
        },
      },
      headers: {
        'X-Platform-Tier': { description: 'Tier of the calling key', schema: { enum: ['free', 'pro', 'commercial'] } },
        'X-RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer' } },
        'X-RateLimit-Reset': { description: 'End of the window: Unix seconds (a human-readable date on CritPt)', schema: { type: ['integer', 'string'] } },
      },
    },
  };
}
