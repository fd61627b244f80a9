import { renameSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createAjv } from '../../src/shared/ajv.ts';
import { MEDIA_ARENAS, ROUTES, type Route } from '../../src/shared/routes.ts';
import { MANIFEST_FORMAT } from '../../src/shared/manifest.ts';
import { get, request } from '../helpers/http.ts';
import { PACKAGE_VERSION } from '../helpers/process.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

let t: TestServer;
let doc: Record<string, any>;
const setup = async () => {
  if (t) return;
  t = await startTestServer({
    server: { metrics: true, quiet: false },
    keys: {
      free: { tier: 'free', org: 'o', user: 'f' },
      pro: { tier: 'pro', org: 'o', user: 'p' },
      commercial: { tier: 'commercial', org: 'o', user: 'c', grants: [] },
      tiny: { tier: 'commercial', org: 'tiny', quota: 1 },
    },
  });
  doc = (await get(t.url, '/api/v2/openapi.json')).json();
};

/** A request path for a route, with a real slug of the fixture. */
async function samplePath(route: Route): Promise<string> {
  if (!route.path.includes('{slug}')) return route.path;
  const listed =
    route.slugOf === 'Model'
      ? (await get(t.url, '/api/v2/language/models', t.keys.pro)).json().data[0].slug
      : (await get(t.url, '/api/v2/language/providers', t.keys.commercial)).json().data[0].slug;
  return route.path.replace('{slug}', listed);
}

const openapi = suite('the OpenAPI document');
openapi.before(setup);

openapi('should be served without a key, precomputed and compressed', async () => {
  const br = await get(t.url, '/api/v2/openapi.json', undefined, { 'accept-encoding': 'br' });
  assert.is(br.status, 200);
  assert.is(br.headers['content-encoding'], 'br');
  assert.equal(JSON.parse(brotliDecompressSync(br.body).toString()), doc);
  assert.ok(br.headers.etag);
  assert.is(br.headers['x-ratelimit-limit'], undefined, 'never counted');
});

openapi('should describe every route of the route table with its parameters and security', () => {
  assert.is(doc.openapi, '3.1.0');
  assert.equal(doc.components.securitySchemes.apiKey, { type: 'apiKey', in: 'header', name: 'x-api-key' });
  for (const route of ROUTES) {
    const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
    assert.ok(operation, `${route.method} ${route.path}`);
    assert.is(operation.operationId, route.id);
    assert.equal(operation.security, route.public ? [] : [{ apiKey: [] }]);
    // CritPt passes its query to the grader as it is; its document names the one the grader reads.
    const query = operation.parameters.filter((p: { in: string; name: string }) => p.in === 'query' && !(route.answer === 'critpt' && p.name === 'stream_progress'));
    assert.equal(query.map((p: { name: string }) => p.name), Object.keys(route.query), route.id);
    for (const p of query) {
      const spec = route.query[p.name];
      assert.equal(p.schema.enum, spec.enum, `${route.id} ${p.name} enum`);
      assert.equal(p.schema.default, spec.default, `${route.id} ${p.name} default`);
      assert.is(p.schema.type, spec.type);
    }
    assert.is(operation.parameters.some((p: { in: string }) => p.in === 'path'), route.path.includes('{slug}'), route.id);
    if (!route.public) assert.ok(operation.responses['401'] && operation.responses['429'] && operation.responses['200'].headers['X-RateLimit-Remaining']);
  }
});

function responseValidator(route: Route) {
  const ajv = createAjv({ strict: false });
  ajv.addSchema({ ...doc, $id: 'doc' }, 'doc');
  const pointer = `/paths/${route.path.replaceAll('~', '~0').replaceAll('/', '~1')}/${route.method.toLowerCase()}/responses/200/content/application~1json/schema`;
  return ajv.compile({ $ref: `doc#${pointer}` });
}

openapi('should compile every schema it gives', () => {
  for (const route of ROUTES.filter((r) => r.answer !== 'metrics')) responseValidator(route);
  // The named shapes refer to each other: each is compiled as a part of the document.
  const ajv = createAjv({ strict: false });
  ajv.addSchema({ ...doc, $id: 'doc' }, 'doc');
  for (const name of Object.keys(doc.components.schemas)) ajv.compile({ $ref: `doc#/components/schemas/${name}` });
});

openapi('should give schemas every served body matches, for every route and tier', async () => {
  let checked = 0;
  for (const route of ROUTES.filter((r) => r.method === 'GET' && r.answer !== 'metrics')) {
    const validate = responseValidator(route);
    const path = await samplePath(route);
    const tiers = route.public ? [undefined] : route.tiers;
    for (const tier of tiers) {
      const reply = await get(t.url, path, tier && t.keys[tier]);
      assert.is(reply.status, route.needsProviderGrant ? 403 : 200, `${tier} ${path}`);
      if (reply.status !== 200) continue;
      assert.ok(validate(reply.json()), `${tier} ${path}: ${JSON.stringify(validate.errors?.slice(0, 2))}`);
      checked++;
    }
  }
  assert.ok(checked > 60, `${checked} bodies checked`);
  assert.ok(MEDIA_ARENAS.length === 11);
});

openapi('should carry a license, a server and an example answer for every operation that matches its schema', () => {
  assert.ok(doc.info.license?.name);
  assert.equal(doc.servers, [{ url: '/', description: 'The server that sent this document' }]);
  let examples = 0;
  // The front door names its build, so it carries no example (test/front-door.test.ts checks it).
  for (const route of ROUTES.filter((r) => r.id !== 'openapi' && r.answer !== 'metrics' && !r.id.startsWith('index'))) {
    const content = doc.paths[route.path][route.method.toLowerCase()].responses['200'].content['application/json'];
    assert.ok(content.example !== undefined, `${route.id} has an example`);
    const validate = responseValidator(route);
    assert.ok(validate(content.example), `${route.id}: ${JSON.stringify(validate.errors?.slice(0, 2))}`);
    examples++;
  }
  assert.is(examples, ROUTES.length - 4);
  const detail = doc.paths['/api/v2/language/models/{slug}'].get.responses['200'].content['application/json'].example;
  assert.ok(detail.data.providers.length > 0, 'the detail example shows a model that providers serve');
  assert.is(detail.data.name, 'Example Model', 'the examples are made up, not the served data');
});

openapi('should mark unmeasured objects nullable, as the original contract does', () => {
  const pro = doc.paths['/api/v2/language/models'].get.responses['200'].content['application/json'].schema;
  const ref: string = (pro.oneOf?.[0] ?? pro).properties.data.items.$ref;
  const item = doc.components.schemas[ref.split('/').pop()!].properties;
  for (const field of ['parameters', 'platform_intelligence_index_cost', 'platform_intelligence_index_token_counts']) {
    assert.ok(item[field].anyOf.some((s: { type?: string }) => s.type === 'null'), field);
  }
});

openapi('should list every status each operation gives, and the CritPt stream', () => {
  const statuses = (path: string, method = 'get') => Object.keys(doc.paths[path][method].responses);
  for (const route of ROUTES) for (const status of ['400', '405', '408', '414', '431', '500']) assert.ok(statuses(route.path, route.method.toLowerCase()).includes(status), `${route.id} ${status}`);
  assert.equal(statuses('/api/v2/language/models/{slug}'), ['200', '304', '400', '401', '403', '404', '405', '406', '408', '414', '429', '431', '500', '501', '503']);
  assert.not.ok(statuses('/api/v2/language/models/free').includes('403'), 'a route every tier may call never answers 403');
  assert.equal(statuses('/api/v2/critpt/evaluate', 'post'), ['200', '400', '401', '403', '405', '408', '413', '414', '415', '429', '431', '500', '502', '503', '504']);
  const critpt = doc.paths['/api/v2/critpt/evaluate'].post;
  assert.ok(critpt.parameters.some((p: { name: string }) => p.name === 'stream_progress'));
  assert.ok(critpt.responses['200'].content['application/x-ndjson'].schema);
  // Made-up problem ids, as every example is: the served set needs a key (GET /api/v2/critpt/problems).
  const batch = critpt.requestBody.content['application/json'].example;
  assert.ok(batch.submissions.length > 0 && batch.submissions.every((s: { problem_id: string }) => s.problem_id.startsWith('example_problem_')));
});

openapi.run();

const health = suite('health and readiness');
health.before(setup);

health('should answer /healthz and /readyz without a key and without counting', async () => {
  const alive = await get(t.url, '/healthz');
  assert.is(alive.status, 200);
  assert.equal(alive.json(), { status: 'ok' });
  const ready = await get(t.url, '/readyz');
  assert.is(ready.status, 200);
  const { status, version, snapshot_format, snapshot, verification } = ready.json();
  assert.equal(
    { status, version, snapshot_format, snapshot },
    { status: 'ready', version: PACKAGE_VERSION, snapshot_format: MANIFEST_FORMAT, snapshot: t.running.snapshots.current.buildId },
  );
  // The build's checksums are checked in the background: under way or done, never a reason to wait.
  assert.ok(['verifying', 'verified'].includes(verification.state), verification.state);
  assert.is(ready.headers['x-ratelimit-limit'], undefined);
});

health('should answer /readyz 503 with the reason when the state folder is gone', async () => {
  renameSync(t.stateDir, `${t.stateDir}.away`);
  try {
    const reply = await get(t.url, '/readyz');
    assert.is(reply.status, 503);
    assert.match(reply.json().details.reason, /state folder .* is not writable: ENOENT/);
    assert.equal([reply.json().details.version, reply.json().details.snapshot_format], [PACKAGE_VERSION, MANIFEST_FORMAT]);
  } finally {
    renameSync(`${t.stateDir}.away`, t.stateDir);
  }
  assert.is((await get(t.url, '/readyz')).status, 200);
});

health.run();

const metrics = suite('metrics');
metrics.before(setup);

const metric = (text: string, line: string) => Number(new RegExp(`^${line.replace(/[{}"=.+]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

metrics('should count requests by route and status, latency, rejections, snapshot and cache', async () => {
  const before = (await get(t.url, '/metrics')).text;
  const ok = 'bda_http_requests_total{route="language.models.free",status="200"}';
  await get(t.url, '/api/v2/language/models/free', t.keys.free);
  await get(t.url, '/api/v2/language/models/free', t.keys.free);
  await get(t.url, '/api/v2/language/models/free', t.keys.tiny);
  await get(t.url, '/api/v2/language/models/free', t.keys.tiny);
  const after = await get(t.url, '/metrics');
  assert.match(String(after.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const text = after.text;
  assert.is(metric(text, ok) - (metric(before, ok) || 0), 3);
  assert.is(metric(text, 'bda_http_requests_total{route="language.models.free",status="429"}'), 1);
  assert.is(metric(text, 'bda_quota_rejections_total{kind="data"}'), 1);
  assert.ok(metric(text, 'bda_http_request_duration_seconds_count{route="language.models.free"}') >= 4);
  assert.match(text, /bda_http_request_duration_seconds_bucket\{route="language\.models\.free",le="\+Inf"\} \d+/);
  assert.is(metric(text, `bda_snapshot_info{build_id="${t.running.snapshots.current.buildId}"}`), 1);
  assert.is(metric(text, `bda_version_info{version="${PACKAGE_VERSION}",snapshot_format="${MANIFEST_FORMAT}"}`), 1);
  assert.ok(metric(text, 'bda_cache_hit_ratio') > 0);
  // The age on the server's clock: the test's, set 90.5 s past the served build's time. (The
  // test clock starts days before any real build, where the age reads 0, clamped.)
  const builtAt = Date.parse(t.running.snapshots.current.manifest.built_at);
  const saved = t.clock.t;
  t.clock.t = builtAt + 90_500;
  try {
    assert.is(metric((await get(t.url, '/metrics')).text, 'bda_snapshot_age_seconds'), 90.5);
  } finally {
    t.clock.t = saved;
  }
});

metrics('should be off unless asked for', async () => {
  const plain = await startTestServer({ keys: {} });
  assert.is((await get(plain.url, '/metrics')).status, 404);
  await plain.close();
});

metrics.run();

const logging = suite('access log');
logging.before(setup);

logging('should write one JSON line per request with the client, route, status, bytes, time and key id, never the key', async () => {
  const from = t.accessLog.length;
  await get(t.url, '/api/v2/language/models?page=1', t.keys.pro);
  await get(t.url, '/api/v2/nowhere', t.keys.pro);
  await request(t.url, '/api/v2/critpt/evaluate?secret_query=1', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'x-api-key': t.keys.commercial } });
  await until(() => t.accessLog.length >= from + 3, 'the three requests are logged');
  const lines = t.accessLog.slice(from);
  assert.is(lines.length, 3);
  const [list, missing, grading] = lines;
  assert.equal(Object.keys(list), ['time', 'client', 'method', 'route', 'path', 'query', 'status', 'bytes', 'ms', 'key']);
  assert.is(list.client, '127.0.0.1', "the connection's address: no proxy is trusted");
  assert.equal([list.route, list.path, list.query, list.status], ['language.models', '/api/v2/language/models', 'page=1', 200]);
  assert.ok(Number(list.bytes) > 1000);
  assert.match(String(list.key), /^key_[0-9a-f]{12}$/);
  assert.equal([missing.route, missing.status], ['unmatched', 404]);
  assert.is(grading.route, 'critpt.evaluate');
  assert.not.ok('query' in grading, 'the query of a CritPt post is never logged');
  const all = JSON.stringify(t.accessLog);
  for (const key of Object.values(t.keys)) assert.not.ok(all.includes(key), 'no key in the log');
});

logging('should redact a key a client puts in the path or the query, and parameters named like secrets', async () => {
  const from = t.accessLog.length;
  const key = t.keys.pro;
  await get(t.url, `/api/v2/language/models?api_key=${key}`);
  await get(t.url, `/api/v2/language/models?page=1&token=hunter2&X-Api-Key=abc`);
  await get(t.url, `/api/v2/${key}/models`);
  await get(t.url, `/api/v2/language/models?q=${key.replace('_', '%5F')}`);
  await until(() => t.accessLog.length >= from + 4, 'the four requests are logged');
  const lines = t.accessLog.slice(from);
  assert.equal(
    lines.map((l) => [l.path, l.query]),
    [
      ['/api/v2/language/models', 'api_key=[redacted]'],
      ['/api/v2/language/models', 'page=1&token=[redacted]&X-Api-Key=[redacted]'],
      ['/api/v2/bdk_[redacted]/models', undefined],
      ['/api/v2/language/models', 'q=bdk_[redacted]'],
    ],
  );
  const all = JSON.stringify(lines);
  assert.not.ok(all.includes(key.slice(4)), 'no part of the key');
  assert.not.ok(all.includes('hunter2'));
});

logging.after(async () => t.close());
logging.run();
