import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseMessage } from '../../../../src/mcp/jsonrpc.ts';
import {
  inputSchemaOf,
  mcpTools,
  outputSchemaOf,
  requestOf,
  toolName,
  toolRoutes,
  toolsOfTier,
} from '../../../../src/mcp/tools.ts';
import { ROUTES, routeById, type Route } from '../../../../src/shared/routes.ts';

const tools = suite('MCP tools from the route table');

/** A route as a later change might add to the table. */
const ADDED: Route = {
  id: 'language.model.prices',
  method: 'GET',
  path: '/api/v2/language/models/{slug}/prices',
  summary: 'One model, its prices.',
  tiers: ['pro', 'commercial'],
  query: { currency: { type: 'string', description: 'Currency.', enum: ['usd', 'eur'], default: 'usd' } },
  answer: 'snapshot',
  keyParams: ['currency'],
  paginated: false,
  slugOf: 'Model',
};

tools('should make one tool a data route, and one more for a route added to the table', () => {
  const names = toolRoutes(ROUTES).map(toolName);
  assert.ok(names.includes('language_models') && names.includes('language_provider_measurements'));
  for (const excluded of ['critpt_evaluate', 'openapi', 'healthz', 'readyz', 'metrics', 'index'])
    assert.not.ok(names.includes(excluded), excluded);
  const added = mcpTools([...ROUTES, ADDED], { paths: {} });
  assert.is(added.length, names.length + 1);
  const tool = added.find((t) => t.name === 'language_model_prices')!;
  assert.equal(tool.definition.inputSchema, {
    type: 'object',
    properties: {
      slug: { type: 'string', minLength: 1, description: "The Model's slug." },
      currency: { type: 'string', description: 'Currency.', enum: ['usd', 'eur'], default: 'usd' },
    },
    required: ['slug'],
    additionalProperties: false,
  });
  assert.equal(
    toolsOfTier(added, 'free').map((t) => t.name),
    toolRoutes(ROUTES)
      .filter((r) => r.tiers.includes('free'))
      .map(toolName),
  );
});

tools("should take a route's 200 schema from the document, standing alone with the components it reaches", () => {
  const document = {
    paths: {
      '/api/v2/language/models/{slug}/prices': {
        get: {
          responses: {
            '200': {
              content: {
                'application/json': { schema: { $ref: '#/components/schemas/Prices' } },
              },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        Prices: {
          type: 'object',
          properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Price' } } },
        },
        Price: { type: 'object', properties: { amount: { $ref: '#/components/schemas/Money' } } },
        Money: { type: 'number' },
        Unused: { type: 'string' },
      },
    },
  };
  assert.equal(outputSchemaOf(document, ADDED), {
    type: 'object',
    properties: { data: { type: 'array', items: { $ref: '#/$defs/Price' } } },
    $defs: { Price: { type: 'object', properties: { amount: { $ref: '#/$defs/Money' } } }, Money: { type: 'number' } },
  });
  const listed = {
    ...document,
    components: { schemas: { ...document.components.schemas, Prices: { type: 'array' } } },
  };
  assert.is(outputSchemaOf(listed, ADDED), null, 'no object at the root: no output schema');
  assert.is(outputSchemaOf({}, ADDED), null);
});

tools("should make a call's request: the slug as one path segment, the rest as the query", () => {
  assert.equal(requestOf(ADDED, { slug: 'a/b c', currency: 'eur' }), {
    path: '/api/v2/language/models/a%2Fb%20c/prices?currency=eur',
  });
  assert.equal(requestOf(routeById('language.models'), { page: 2, prompt_type: 'long' }), {
    path: '/api/v2/language/models?page=2&prompt_type=long',
  });
  assert.equal(requestOf(routeById('language.models'), {}), { path: '/api/v2/language/models' });
  assert.ok('refusal' in requestOf(ADDED, {}));
  assert.ok('refusal' in requestOf(ADDED, { slug: '..' }), 'a dot segment names another path');
  assert.ok('refusal' in requestOf(ADDED, { slug: 'x', currency: { a: 1 } }));
  assert.equal(inputSchemaOf(routeById('language.models')).required, undefined);
});

const messages = suite('JSON-RPC messages');

messages('should tell requests, what needs no answer and what is no message apart', () => {
  assert.equal(parseMessage('{"jsonrpc":"2.0","id":7,"method":"ping"}'), {
    kind: 'request',
    id: 7,
    method: 'ping',
    params: {},
  });
  assert.is(parseMessage('{"jsonrpc":"2.0","method":"notifications/initialized"}').kind, 'acknowledge');
  assert.is(parseMessage('{"jsonrpc":"2.0","id":1,"result":{}}').kind, 'acknowledge');
  for (const text of [
    '{',
    '[]',
    '{"id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
    '{"jsonrpc":"2.0","id":null,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}',
  ])
    assert.is(parseMessage(text).kind, 'invalid', text);
});

tools.run();
messages.run();
