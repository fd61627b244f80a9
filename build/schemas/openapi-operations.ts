/**
 * One operation of the OpenAPI document per route: its parameters, security, responses and
 * example answer, and for CritPt grading the request body with an example batch.
 */
import { critptRequestSchema } from '../../src/shared/critpt-schema.ts';
import { querySchema } from '../../src/shared/query-schema.ts';
import type { ParamSpec, Route } from '../../src/shared/routes.ts';
import type { Schema } from './json-schema.ts';
import { JSON_TYPE, responsesOf } from './openapi-responses.ts';

export interface DocumentOptions {
  /** Example 200 bodies by route id. */
  examples?: Readonly<Record<string, unknown>>;
  /** Problem ids for the example batch (made up, as the examples are: the served set needs a key). */
  critptProblems?: readonly string[];
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

export function operationOf(
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
