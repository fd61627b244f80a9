/**
 * The responses of an operation in the OpenAPI document: every status the server can give for a
 * route, with its meaning, headers and schema. The 200's schema is the route's response schema,
 * one per shape its tiers answer with.
 */
import { isJoined, isPrecomputed, type Route } from '../../src/shared/routes.ts';
import type { Schema } from './json-schema.ts';
import { COMPONENT_REF } from './components.ts';
import { hasResponseSchema, responseSchema } from './responses.ts';

const ERROR = { $ref: `${COMPONENT_REF}Error` };
export const JSON_TYPE = 'application/json';

/** Answers any request can get before a route is matched, or from node:http itself. */
const PROTOCOL_ERRORS: Record<string, string> = {
  '400': 'Malformed request (request line, percent-encoding)',
  '405': 'Method not allowed on this path; the Allow header lists the allowed ones',
  '408': 'The request did not arrive in time',
  '414': 'Request target longer than 8 KiB',
  '431': 'Request headers larger than 16 KiB',
  '500': 'Server error; retry with exponential backoff',
};

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

/** Every status the server can give for one route, with its meaning. */
export function responsesOf(
  route: Route,
  example: unknown,
  withRefs: (schema: Schema) => Schema,
): Record<string, unknown> {
  const schema = successSchema(route, withRefs);
  const ok: Record<string, unknown> = {
    description: 'Success',
    content:
      route.answer === 'metrics'
        ? { 'text/plain': { schema: { type: 'string' }, example } }
        : jsonContent(schema, example),
  };
  const out: Record<string, unknown> = { '200': ok };
  if (route.method === 'GET' && (isPrecomputed(route) || isJoined(route))) {
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
      ...(route.answer === 'snapshot' || isJoined(route) ? { ETag: { schema: { type: 'string' } } } : {}),
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
    if (route.answer === 'changes')
      out['404'] = errorResponse('Build not found: `since` names a build the history does not hold');
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
    if (route.answer === 'snapshot' || route.answer === 'fragments' || isJoined(route))
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
