import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { get, request, rawExchange } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let slugs: string[] = [];

async function setup(): Promise<void> {
  t ??= await startTestServer();
  if (slugs.length === 0) slugs = (await get(t.url, '/api/v2/language/models', t.keys.pro)).json().data.map((m: { slug: string }) => m.slug);
}

/** Every key anywhere in a JSON value. */
function allKeys(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => allKeys(v, into));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      allKeys(v, into);
    }
  }
  return into;
}

const access = suite('who may call what');
access.before(setup);

access('should answer each language route by tier: 200 where the tier is admitted, 403 otherwise', async () => {
  const detail = `/api/v2/language/models/${slugs[0]}`;
  const matrix: [string, Record<string, number>][] = [
    ['/api/v2/language/models/free', { free: 200, pro: 200, commercial: 200 }],
    ['/api/v2/language/models', { free: 403, pro: 200, commercial: 200 }],
    [detail, { free: 403, pro: 200, commercial: 200 }],
  ];
  for (const [path, byTier] of matrix) {
    for (const [tier, status] of Object.entries(byTier)) {
      const reply = await get(t.url, path, t.keys[tier]);
      assert.is(reply.status, status, `${tier} ${path}`);
      assert.is(reply.headers['x-platform-tier'], tier, 'the tier header is on every answer to a valid key');
      if (status === 200) assert.is(reply.json().tier, tier);
    }
  }
});

access('should tell a missing key from an unknown one', async () => {
  const missing = await get(t.url, '/api/v2/language/models/free');
  assert.is(missing.status, 401);
  assert.is(missing.json().error, 'API key is required');
  const unknown = await get(t.url, '/api/v2/language/models/free', 'bdk_' + 'x'.repeat(43));
  assert.is(unknown.status, 401);
  assert.is(unknown.json().error, 'Invalid API key');
  assert.is(unknown.headers['x-platform-tier'], undefined);
  const garbage = await get(t.url, '/api/v2/language/models/free', 'not a key at all');
  assert.is(garbage.status, 401);
});

access('should name the tier a route needs in the 403', async () => {
  const reply = await get(t.url, '/api/v2/language/models', t.keys.free);
  assert.equal(reply.json(), { error: 'Pro access required', details: { required_tier: 'pro', tier: 'free' } });
  const commercial = await get(t.url, `/api/v2/language/models/${slugs[0]}/performance`, t.keys.pro);
  assert.is(commercial.status, 403);
  assert.is(commercial.json().error, 'Commercial access required');
});

access('should give Pro and Commercial keys the Free body on a /free route, with their own tier', async () => {
  const free = (await get(t.url, '/api/v2/language/models/free', t.keys.free)).json();
  for (const tier of ['pro', 'commercial']) {
    const body = (await get(t.url, '/api/v2/language/models/free', t.keys[tier])).json();
    assert.is(body.tier, tier);
    assert.equal(body.data, free.data);
  }
});

access.run();

const shapes = suite('shapes per tier and route');
shapes.before(setup);

const PRO_ONLY = ['reasoning_model', 'platform_intelligence_index_token_counts', 'context_window_tokens', 'parameters', 'modalities', 'licensing', 'weights_hub_url', 'router_api_id', 'price_1m_blended_3_to_1', 'price_1m_blended_7_to_2_to_1', 'country', 'hle', 'gpqa_diamond', 'input_cost', 'percentile_05_output_tokens_per_second'];
const DETAIL_ONLY = ['evaluation_token_counts', 'platform_omniscience_breakdown', 'platform_openness_index_breakdown', 'providers'];

shapes('should never put a Pro-only or detail-only key in a Free body', async () => {
  const keys = allKeys((await get(t.url, '/api/v2/language/models/free', t.keys.commercial)).json());
  for (const key of [...PRO_ONLY, ...DETAIL_ONLY]) assert.not.ok(keys.has(key), key);
  assert.ok(keys.has('platform_intelligence_index'));
});

// The contract's evaluation table, in its order: the headline indices (Free and Pro), then the Pro-only keys.
const FREE_EVALUATIONS = [
  'platform_intelligence_index',
  'platform_coding_index',
  'platform_agentic_index',
  'platform_finance_and_accounting_index',
  'platform_strategy_and_ops_index',
  'platform_legal_index',
  'platform_healthcare_and_medical_index',
  'platform_engineering_index',
  'platform_economics_index',
];
const PRO_EVALUATIONS = [
  ...FREE_EVALUATIONS,
  'tau2_telecom',
  'tau_banking',
  'terminalbench_hard',
  'terminalbench_v2_1',
  'terminalbench_v4_0',
  'platform_briefcase_elo',
  'automationbench_platform',
  'gdp_pdf',
  'scicode',
  'platform_lcr',
  'platform_omniscience_index',
  'platform_omniscience_accuracy',
  'platform_omniscience_non_hallucination_rate',
  'ifbench',
  'hle',
  'gpqa_diamond',
  'critpt',
  'gdpval_platform_elo',
  'gdpval_platform_normalized',
  'mmmu_pro',
  'platform_openness_index',
  'platform_multilingual_index',
];

shapes("should list the evaluations in the contract's order on every shape", async () => {
  for (const item of (await get(t.url, '/api/v2/language/models/free', t.keys.free)).json().data) assert.equal(Object.keys(item.evaluations), FREE_EVALUATIONS);
  for (const item of (await get(t.url, '/api/v2/language/models', t.keys.pro)).json().data) assert.equal(Object.keys(item.evaluations), PRO_EVALUATIONS);
  assert.equal(Object.keys((await get(t.url, `/api/v2/language/models/${slugs[0]}`, t.keys.commercial)).json().data.evaluations), PRO_EVALUATIONS);
});

shapes('should keep detail-only fields off the Pro list and on the detail route', async () => {
  const list = (await get(t.url, '/api/v2/language/models', t.keys.commercial)).json();
  for (const item of list.data) for (const key of DETAIL_ONLY) assert.not.ok(key in item, key);
  const detail = (await get(t.url, `/api/v2/language/models/${slugs[0]}`, t.keys.pro)).json();
  for (const key of DETAIL_ONLY.slice(0, 3)) assert.ok(key in detail.data, key);
  assert.not.ok('providers' in detail.data, 'providers is omitted for Pro');
  assert.is(detail.intelligence_index_version, 4.3);
});

shapes('should list providers on the detail route for Commercial keys only', async () => {
  const detail = (await get(t.url, `/api/v2/language/models/${slugs[0]}`, t.keys.commercial)).json();
  assert.ok(Array.isArray(detail.data.providers));
  for (const p of detail.data.providers) assert.equal(Object.keys(p), ['id', 'name', 'slug', 'pricing', 'performance', 'context_window_tokens']);
});

shapes('should change performance and not prices with the prompt type', async () => {
  let changed = 0;
  for (const slug of slugs) {
    const long = (await get(t.url, `/api/v2/language/models/${slug}?prompt_type=long`, t.keys.pro)).json().data;
    const medium = (await get(t.url, `/api/v2/language/models/${slug}?prompt_type=medium`, t.keys.pro)).json().data;
    assert.equal(medium.pricing, long.pricing, slug);
    if (JSON.stringify(medium.performance) !== JSON.stringify(long.performance)) changed++;
  }
  assert.ok(changed > 0, 'some model performs differently with another prompt type');
});

shapes('should answer 404 naming an unknown slug', async () => {
  const reply = await get(t.url, '/api/v2/language/models/no-such-model', t.keys.pro);
  assert.is(reply.status, 404);
  assert.is(reply.json().error, 'Model not found: no-such-model');
});

shapes('should answer a page past the last with an empty page', async () => {
  const body = (await get(t.url, '/api/v2/language/models?page=50', t.keys.pro)).json();
  assert.equal(body.data, []);
  assert.is(body.pagination.page, 50);
  assert.is(body.pagination.has_more, false);
});

shapes.run();

const caching = suite('caching and encodings');
caching.before(setup);

caching('should answer 304 with ETag, Vary and Cache-Control when the ETag matches', async () => {
  const first = await get(t.url, '/api/v2/language/models', t.keys.pro, { 'accept-encoding': 'br' });
  const etag = String(first.headers.etag);
  assert.match(etag, /^"[A-Za-z0-9_-]{22}-br"$/);
  for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
    const again = await get(t.url, '/api/v2/language/models', t.keys.pro, { 'accept-encoding': 'br', 'if-none-match': header });
    assert.is(again.status, 304, header);
    assert.is(again.body.length, 0);
    assert.is(again.headers.etag, etag);
    assert.is(again.headers.vary, 'Accept-Encoding');
    assert.is(again.headers['cache-control'], 'private, max-age=300');
  }
  const other = await get(t.url, '/api/v2/language/models', t.keys.pro, { 'if-none-match': '"something-else"' });
  assert.is(other.status, 200);
});

caching('should send br and gzip bodies that decode to the identity body', async () => {
  const path = `/api/v2/language/models/${slugs[1]}`;
  const identity = await get(t.url, path, t.keys.commercial);
  assert.is(identity.headers['content-encoding'], undefined);
  const br = await get(t.url, path, t.keys.commercial, { 'accept-encoding': 'gzip, br' });
  assert.is(br.headers['content-encoding'], 'br');
  assert.equal(brotliDecompressSync(br.body), identity.body);
  const gz = await get(t.url, path, t.keys.commercial, { 'accept-encoding': 'gzip' });
  assert.is(gz.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(gz.body), identity.body);
  assert.is.not(br.headers.etag, gz.headers.etag);
  for (const reply of [identity, br, gz]) assert.is(Number(reply.headers['content-length']), reply.body.length);
});

caching('should honour q=0 and answer 406 when nothing is acceptable', async () => {
  const reply = await get(t.url, '/api/v2/language/models', t.keys.pro, { 'accept-encoding': 'br;q=0, gzip' });
  assert.is(reply.headers['content-encoding'], 'gzip');
  const none = await get(t.url, '/api/v2/language/models', t.keys.pro, { 'accept-encoding': 'identity;q=0' });
  assert.is(none.status, 406);
});

caching('should send HEAD with the headers of GET and no body', async () => {
  const getReply = await get(t.url, '/api/v2/language/models/free', t.keys.free, { 'accept-encoding': 'br' });
  const head = await request(t.url, '/api/v2/language/models/free', { method: 'HEAD', headers: { 'x-api-key': t.keys.free, 'accept-encoding': 'br' } });
  assert.is(head.status, 200);
  assert.is(head.body.length, 0);
  assert.is(head.headers['content-length'], getReply.headers['content-length']);
  assert.is(head.headers.etag, getReply.headers.etag);
});

caching.run();

const errors = suite('errors');
errors.before(setup);

errors('should name the field in 400 messages', async () => {
  const bad = await get(t.url, '/api/v2/language/models?prompt_type=huge', t.keys.pro);
  assert.is(bad.status, 400);
  assert.is(bad.json().error, 'Invalid prompt_type. Valid options: medium, long, 100k, vision_single_image, medium_coding, medium_parallel');
  assert.match((await get(t.url, '/api/v2/language/models?page=0', t.keys.pro)).json().error, /^Invalid page/);
  assert.match((await get(t.url, '/api/v2/language/models?colour=red', t.keys.pro)).json().error, /Unknown query parameter: colour/);
});

errors('should answer 404 and 405 as JSON', async () => {
  const missing = await get(t.url, '/api/v2/nowhere', t.keys.pro);
  assert.is(missing.status, 404);
  assert.is(missing.headers['content-type'], 'application/json; charset=utf-8');
  const wrong = await request(t.url, '/api/v2/language/models', { method: 'DELETE', headers: { 'x-api-key': t.keys.pro } });
  assert.is(wrong.status, 405);
  assert.is(wrong.headers.allow, 'GET, HEAD');
  assert.ok(wrong.json().error);
});

errors('should never turn an encoded slash into a path separator', async () => {
  const encoded = await get(t.url, '/api/v2/language/models%2Ffree', t.keys.pro);
  assert.is(encoded.status, 404);
  assert.equal(encoded.json().details, { path: '/api/v2/language/models%2Ffree' });
  assert.is((await get(t.url, `/api/v2/language/models/${slugs[0]}%2Fperformance`, t.keys.commercial)).status, 404);
  assert.is((await get(t.url, '/api/v2/language/models/fre%65', t.keys.pro)).status, 200, 'other encoded characters still decode');
});

function raw(text: string): Promise<string> {
  return rawExchange(t.url, text);
}

/** Status and JSON body of a raw HTTP answer. */
function parsed(answer: string): { status: number; body: Record<string, any> } {
  const [head, body] = answer.split('\r\n\r\n');
  assert.match(head, /content-type: application\/json/i, head);
  return { status: Number(head.split(' ')[1]), body: JSON.parse(body) };
}

errors('should answer a missing Host, an unmet Expect and CONNECT in JSON, as every other error', async () => {
  const noHost = parsed(await raw(`GET /api/v2/language/models/free HTTP/1.1\r\nx-api-key: ${t.keys.free}\r\nConnection: close\r\n\r\n`));
  assert.equal([noHost.status, noHost.body.error], [400, 'Host header is required']);
  const expect = parsed(await raw(`GET /api/v2/language/models/free HTTP/1.1\r\nHost: x\r\nExpect: 999-foo\r\nx-api-key: ${t.keys.free}\r\nConnection: close\r\n\r\n`));
  assert.equal([expect.status, expect.body.details.header], [417, 'expect']);
  const tunnel = parsed(await raw('CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n'));
  assert.equal([tunnel.status, tunnel.body.error], [405, 'Method CONNECT is not allowed']);
  const old = await raw(`GET /api/v2/language/models/free HTTP/1.0\r\nx-api-key: ${t.keys.free}\r\n\r\n`);
  assert.match(old, /^HTTP\/1\.1 200/, 'HTTP/1.0 needs no Host');
});

errors('should answer malformed percent-encoding with 400 and a huge target with 414', async () => {
  assert.is((await get(t.url, '/api/v2/language/models/%E0%A4%A', t.keys.pro)).status, 400);
  assert.is((await get(t.url, `/api/v2/language/models?x=${'a'.repeat(9000)}`, t.keys.pro)).status, 414);
  assert.is((await get(t.url, `/api/v2/language/models?x=${'a'.repeat(20000)}`, t.keys.pro)).status, 414);
});

errors('should give every error body an error message and a details object that names what to act on', async () => {
  const json = { 'content-type': 'application/json' };
  const cases: [string, Promise<import('../helpers/http.ts').Reply>, Record<string, unknown>][] = [
    ['400', get(t.url, '/api/v2/language/models?page=0', t.keys.pro), { field: 'page', value: '0' }],
    ['401 no key', get(t.url, '/api/v2/language/models'), { header: 'x-api-key' }],
    ['401 bad key', get(t.url, '/api/v2/language/models', 'bdk_nope'), { header: 'x-api-key' }],
    ['403', get(t.url, '/api/v2/language/models', t.keys.free), { required_tier: 'pro', tier: 'free' }],
    ['404 path', get(t.url, '/api/v2/nowhere', t.keys.pro), { path: '/api/v2/nowhere' }],
    ['404 slug', get(t.url, '/api/v2/language/models/no-such', t.keys.pro), { slug: 'no-such' }],
    ['405', request(t.url, '/api/v2/language/models', { method: 'DELETE', headers: { 'x-api-key': t.keys.pro } }), { method: 'DELETE', allowed: ['GET', 'HEAD'] }],
    ['406', get(t.url, '/api/v2/language/models', t.keys.pro, { 'accept-encoding': 'identity;q=0' }), { available: ['br', 'gzip', 'identity'] }],
    ['414', get(t.url, `/api/v2/language/models?x=${'a'.repeat(9000)}`, t.keys.pro), { limit: 8192 }],
    ['431', get(t.url, '/api/v2/language/models', t.keys.pro, { 'x-padding': 'p'.repeat(20_000) }), { limit: 16384 }],
    ['CritPt 403', request(t.url, '/api/v2/critpt/evaluate', { method: 'POST', body: '{}', headers: { ...json, 'x-api-key': t.keys.pro } }), { contact: 'the operator of this server' }],
    ['CritPt 503', request(t.url, '/api/v2/critpt/evaluate', { method: 'POST', body: readFileSync(new URL('../../examples/critpt-batch.json', import.meta.url)), headers: { ...json, 'x-api-key': t.keys.commercial } }), { option: '--critpt-upstream' }],
  ];
  for (const [what, pending, details] of cases) {
    const reply = await pending;
    assert.is(reply.headers['content-type'], 'application/json; charset=utf-8', what);
    const body = reply.json();
    assert.equal(Object.keys(body), ['error', 'details'], what);
    assert.type(body.error, 'string', what);
    assert.equal(body.details, details, what);
  }
});

errors('should answer 501 for a route of the table the snapshot has no data for', async () => {
  // An arena without a dataset file is not built: its routes are known but not served.
  rmSync(join(t.dataDir, 'media', 'music-with-vocals.json'));
  await t.rebuild(false);
  await t.running.snapshots.check();
  const reply = await get(t.url, '/api/v2/media/music/with-vocals/models/free', t.keys.free);
  assert.is(reply.status, 501);
  assert.match(reply.json().error, /not served yet/);
  assert.is((await get(t.url, '/api/v2/media/music/instrumental/models/free', t.keys.free)).status, 200);
});

errors('should log nothing as a server error for all of the above', async () => {
  assert.equal(t.errors, []);
});

errors.after(async () => t.close());
errors.run();
