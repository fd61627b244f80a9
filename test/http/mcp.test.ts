/**
 * `POST /mcp` as agents use it: the official TypeScript MCP SDK's client (installed outside the
 * repository by test/helpers/mcp-sdk.ts) connects, lists the tools a key's tier may call, calls every
 * one and reads the resources; each call's text is the route's own body, byte for byte, and counts
 * exactly one request of the key's quota. Then the protocol's edges as raw HTTP: what is no message,
 * what is no method, a used-up quota, the key in a bearer token, the body limit.
 */
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { toolName, toolRoutes } from '../../src/mcp/tools.ts';
import { ROUTES, type Tier } from '../../src/shared/routes.ts';
import { get, request } from '../helpers/http.ts';
import { mcpSdkClient } from '../helpers/mcp-sdk.ts';
import { startTestServer, STANDARD_KEYS } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

const t = await startTestServer({
  keys: {
    ...STANDARD_KEYS,
    pro2: { tier: 'pro', org: 'acme', user: 'pia' },
    tight: { tier: 'commercial', org: 'o', quota: 2 },
  },
});
const models = (await get(t.url, '/api/v2/language/models?page=1', t.keys.pro2)).json().data as { slug: string }[];
const providers = (await get(t.url, '/api/v2/language/providers', t.keys.commercial)).json().data as { slug: string }[];
const MODEL = models[0].slug;
const PROVIDER = providers[0].slug;
t.addKey('granted', { tier: 'commercial', org: 'bigco', user: 'gus', grants: [PROVIDER] });
t.addKey('granted2', { tier: 'commercial', org: 'bigco', user: 'gia', grants: [PROVIDER] });
const MCP = `${t.url}/mcp`;
const BUILD = (await get(t.url, '/readyz')).json().snapshot as string;

/** The names of the tools a tier may call, from the route table. */
function namesOf(tier: Tier): string[] {
  return toolRoutes(ROUTES)
    .filter((r) => r.tiers.includes(tier))
    .map(toolName);
}

/** A call's arguments: the model or provider the route names, the rest left to the route's defaults. */
function argumentsOf(name: string): Record<string, unknown> {
  const route = toolRoutes(ROUTES).find((r) => toolName(r) === name)!;
  if (route.slugOf === 'Model') return { slug: MODEL };
  if (route.slugOf === 'Provider') return { slug: PROVIDER };
  return route.paginated ? { page: 1 } : {};
}

/** The route's request for a call, as a client of the API makes it. */
function pathOf(name: string, args: Record<string, unknown>): string {
  const route = toolRoutes(ROUTES).find((r) => toolName(r) === name)!;
  const query = new URLSearchParams(
    Object.entries(args)
      .filter(([k]) => k !== 'slug')
      .map(([k, v]) => [k, String(v)]),
  );
  const path = route.path.replace('{slug}', String(args.slug ?? ''));
  return query.size ? `${path}?${query}` : path;
}

async function remaining(key: string): Promise<number> {
  // A 404 counts nothing and says the quota as it stands.
  return Number((await get(t.url, '/api/v2/language/models/no-such-model', key)).headers['x-ratelimit-remaining']);
}

function post(body: unknown, headers: Record<string, string> = {}) {
  return request(t.url, '/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const mcp = suite('POST /mcp with the SDK client');
const sdk = await mcpSdkClient();

if (!sdk.available) {
  mcp.skip('the SDK client (skipped: it could not be installed)', () => {});
  console.log(`skipped: ${sdk.reason}`);
} else {
  for (const [tier, key, direct] of [
    ['pro', 'pro', 'pro2'],
    ['commercial', 'granted', 'granted2'],
  ] as const) {
    mcp(`should list the ${tier} tools and call each, its text the route's body byte for byte`, async () => {
      const names = namesOf(tier);
      const calls = names.map((name) => ({ name, arguments: argumentsOf(name) }));
      const before = await remaining(t.keys[key]);
      const report = await sdk.run({ url: MCP, headers: { 'x-api-key': t.keys[key] }, calls });
      assert.ok(report.connect.ok, JSON.stringify(report.connect));
      assert.is(report.connect.result.protocolVersion, '2025-06-18');
      assert.ok(report.tools?.ok, JSON.stringify(report.tools));
      assert.equal(report.tools.result.tools.map((tool: { name: string }) => tool.name).sort(), [...names].sort());
      for (const call of report.calls) {
        assert.ok(call.ok, `${call.name}: ${JSON.stringify(call)}`);
        assert.not.ok(call.result.isError, `${call.name}: ${JSON.stringify(call.result.content)}`);
        const body = (await get(t.url, pathOf(call.name, call.arguments!), t.keys[direct])).text;
        assert.ok(call.result.content[0].text === body, `${call.name}: the text is the route's body`);
        assert.equal(call.result.structuredContent, JSON.parse(body));
        assert.is(call.result._meta.build_id, BUILD);
      }
      assert.is(await remaining(t.keys[key]), before - calls.length, 'one counted request a call, nothing else');
      assert.ok(report.resources?.ok);
      for (const read of report.reads) assert.ok(read.ok, JSON.stringify(read));
      const openapi = report.reads.find((r) => r.uri === 'bda://openapi.json')!;
      assert.is((openapi as { result: any }).result.contents[0].text, (await get(t.url, '/api/v2/openapi.json')).text);
      assert.equal(report.errors, [], 'the client reported nothing of its own (GET /mcp is a 405)');
      assert.ok(report.http.some((h) => h.method === 'GET' && h.status === 405));
    });
  }

  mcp('should list a free key only the free tools, and answer a Pro tool as the route does', async () => {
    const report = await sdk.run({
      url: MCP,
      headers: { authorization: `Bearer ${t.keys.free}` },
      calls: [{ name: 'language_models', arguments: { page: 1 } }],
    });
    assert.ok(report.tools?.ok);
    assert.equal(report.tools.result.tools.map((tool: { name: string }) => tool.name).sort(), namesOf('free').sort());
    for (const tool of report.tools.result.tools) assert.is(tool.inputSchema.type, 'object');
    const [call] = report.calls;
    assert.ok(call.ok && call.result.isError, JSON.stringify(call));
    assert.match(call.result.content[0].text, /Pro access required.*\(HTTP 403\)/);
  });
}

/** The MCP Inspector's command-line mode, a second real client (npx, outside the repository; Node 22 is its own aim). */
const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
const execFileAsync = promisify(execFile);

async function inspector(key: string, ...args: string[]): Promise<any> {
  const command = ['-y', INSPECTOR, '--cli', MCP, '--transport', 'http', '--header', `x-api-key: ${key}`, ...args];
  // From a folder of no project, so that npx finds nothing of this one's.
  const { stdout } = await execFileAsync('npx', command, { cwd: tmpdir(), encoding: 'utf8', timeout: 180_000 });
  return JSON.parse(stdout);
}

mcp("should answer the MCP Inspector's command line: the tools listed, a call's text the route's body", async () => {
  let listed: any;
  try {
    listed = await inspector(t.keys.pro, '--method', 'tools/list');
  } catch (error) {
    const why = String((error as { stderr?: string }).stderr ?? error);
    if (/ENOTFOUND|ECONNREFUSED|EAI_AGAIN|network/i.test(why) && !/"code":"unreachable"/.test(why))
      return console.log(`skipped: the MCP Inspector could not be fetched by npx: ${why.slice(0, 200)}`);
    throw error;
  }
  assert.equal(listed.tools.map((tool: { name: string }) => tool.name).sort(), namesOf('pro').sort());
  const called = await inspector(t.keys.pro, '--method', 'tools/call', '--tool-name', 'language_models');
  assert.is(called.content[0].text, (await get(t.url, '/api/v2/language/models', t.keys.pro2)).text);
});

const edges = suite("POST /mcp, the protocol's edges");

edges('should answer what is no message with 400 and a JSON-RPC error, and an unknown method with 200', async () => {
  const key = { 'x-api-key': t.keys.pro };
  const cases: [unknown, number, number][] = [
    ['{"jsonrpc":', 400, -32700],
    [[{ jsonrpc: '2.0', id: 1, method: 'ping' }], 400, -32600],
    [{ id: 1, method: 'ping' }, 400, -32600],
    [{ jsonrpc: '2.0', id: 1, method: 'prompts/list' }, 200, -32601],
    [{ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nope' } }, 200, -32602],
    [{ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'bda://nothing' } }, 200, -32002],
  ];
  for (const [body, status, code] of cases) {
    const answer = await post(body, key);
    assert.is(answer.status, status, answer.text);
    assert.is(answer.json().error.code, code, answer.text);
  }
  const ping = await post({ jsonrpc: '2.0', id: 'p', method: 'ping' }, key);
  assert.equal(ping.json(), { jsonrpc: '2.0', id: 'p', result: {} });
  assert.is((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, key)).status, 202);
});

edges('should refuse a request without a key, of another kind, origin or revision, or too large', async () => {
  const key = { 'x-api-key': t.keys.pro };
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  assert.is((await post(ping)).status, 401);
  assert.is((await post(ping, { authorization: 'Bearer bdk_not_a_key' })).status, 401);
  assert.is((await post(ping, { authorization: `Bearer ${t.keys.pro}` })).status, 200);
  const got = await request(t.url, '/mcp', { headers: key });
  assert.is(got.status, 405);
  assert.is(got.headers.allow, 'POST');
  assert.is((await post(ping, { ...key, 'content-type': 'text/plain' })).status, 415);
  assert.is((await post(ping, { ...key, 'mcp-protocol-version': '1999-01-01' })).status, 400);
  assert.is((await post(ping, { ...key, origin: 'http://evil.example' })).status, 403);
  const large = { ...ping, params: { pad: 'x'.repeat(70_000) } };
  assert.is((await post(large, key)).status, 413);
});

edges('should count a call once, and answer one past the quota as a tool error naming when it resets', async () => {
  const key = { 'x-api-key': t.keys.tight };
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'language_models', arguments: {} } };
  for (const method of ['initialize', 'tools/list', 'ping']) await post({ jsonrpc: '2.0', id: 0, method }, key);
  const first = (await post(call, key)).json().result;
  assert.is(first._meta.ratelimit.remaining, 1, 'initialize, tools/list and ping counted nothing');
  assert.is((await post(call, key)).json().result._meta.ratelimit.remaining, 0);
  const refused = (await post(call, key)).json().result;
  assert.ok(refused.isError);
  assert.is(refused._meta.status, 429);
  assert.match(
    refused.content[0].text,
    /^Rate limit exceeded: the quota of 2 requests a day is used up; the window resets at \d{4}-/,
  );
});

edges('should call with the arguments as the route takes them, and say a bad one as the route does', async () => {
  const key = { 'x-api-key': t.keys.pro };
  const call = (args: unknown) =>
    post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'language_models', arguments: args } }, key);
  const paged = (await call({ page: 2, prompt_type: 'medium' })).json().result;
  assert.is(
    paged.content[0].text,
    (await get(t.url, '/api/v2/language/models?page=2&prompt_type=medium', t.keys.pro2)).text,
  );
  // A client that takes gzip gets the result in it: the same message, the body's bytes as they were.
  const zipped = await post(
    { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'language_models', arguments: { page: 2 } } },
    { ...key, 'accept-encoding': 'gzip, deflate' },
  );
  assert.is(zipped.headers['content-encoding'], 'gzip');
  assert.is(zipped.headers.vary, 'Accept-Encoding');
  const unzipped = JSON.parse(gunzipSync(zipped.body).toString('utf8'));
  assert.is(unzipped.id, 7);
  assert.is(unzipped.result.content[0].text, paged.content[0].text);
  assert.equal(unzipped.result.structuredContent, paged.structuredContent);
  // curl reads one gzip member only: the answer must be one.
  const curl = await execFileAsync('curl', [
    ...['-s', '--compressed', '-H', `x-api-key: ${t.keys.pro}`, '-H', 'content-type: application/json'],
    ...[
      '-d',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'language_models', arguments: { page: 2 } },
      }),
    ],
    MCP,
  ]);
  assert.is(JSON.parse(curl.stdout).result.content[0].text, paged.content[0].text);
  const bad = (await call({ page: 0 })).json().result;
  assert.ok(bad.isError);
  assert.match(bad.content[0].text, /page.*\(HTTP 400\)/);
  const wrong = (await call({ page: [1] })).json().result;
  assert.match(wrong.content[0].text, /^Invalid arguments: page must be a string, a number or a boolean/);
  assert.is((await call([1])).json().error.code, -32602);
});

edges("should log a call as the route's own request, from the agent's address, beside the /mcp request", async () => {
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'language_models', arguments: {} } };
  const before = t.accessLog.length;
  assert.is((await post(call, { 'x-api-key': t.keys.pro })).status, 200);
  await until(() => t.accessLog.slice(before).some((line) => line.route === 'mcp'), 'the /mcp request is logged');
  const lines = t.accessLog.slice(before);
  const route = lines.find((line) => line.route === 'language.models');
  const door = lines.find((line) => line.route === 'mcp');
  assert.ok(route && door, JSON.stringify(lines));
  assert.is(route.status, 200);
  assert.is(route.path, '/api/v2/language/models');
  assert.ok(Number(route.bytes) > 0);
  assert.is(route.key, t.keyIds.pro);
  assert.is(door.key, t.keyIds.pro);
  assert.is(route.client, door.client);
});

edges.after(() => t.close());

mcp.run();
edges.run();
