/**
 * The admin listener as a sign-up or billing system uses it: a token made by the keys command,
 * then keys created, used on the public port, read, changed and revoked over HTTP, every change
 * in the audit trail; on the state folder, and on Redis with two servers (a change through one
 * server's admin API holds on the other at the next request). No admin path answers without a
 * valid token on either listener, bad input changes nothing, and no key or token value reaches
 * a log or the audit trail.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AddressInfo } from 'node:net';
import { createAdminListener } from '../../src/admin/listener.ts';
import { MOST_SESSIONS } from '../../src/admin/sessions.ts';
import type { AdminContext } from '../../src/admin/operations.ts';
import { DEFAULT_OPTIONS, type ServerOptions } from '../../src/config.ts';
import { ADMIN_SESSION_MS } from '../../src/server-flag-parsers.ts';
import { parseRedisUrl } from '../../src/redis/client.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import { createAjv } from '../../src/shared/ajv.ts';
import { JournalUnavailable } from '../../src/state/errors.ts';
import { get, request, type Reply } from '../helpers/http.ts';
import { keysCommand, REDIS_INSTALLED, startRedis, type RedisServer } from '../helpers/redis.ts';
import { buildFixture, TestClock } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

const FREE_LIST = '/api/v2/language/models/free';
const PRO_LIST = '/api/v2/language/models';
const PROVIDER = 'capstan-serve';
const root = mkdtempSync(join(tmpdir(), 'admin-api-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

const test = suite('the admin listener');

let snapshotDir: string;
/** Every line any server logged, to look for secrets in. */
const logged: string[] = [];

async function start(store: ServerOptions['store'], stateDir: string): Promise<RunningServer> {
  return startServer(
    { ...DEFAULT_OPTIONS, port: 0, adminPort: 0, snapshotDir, stateDir, store, quiet: true },
    { clock: new TestClock(), log: (line) => logged.push(line), logError: (line) => logged.push(line), redisProbeMs: 3_600_000 },
  );
}

/** The keys command on a store; its stdout. */
async function keys(where: string[], ...args: string[]): Promise<string> {
  const done = await keysCommand(...args, ...where);
  assert.is(done.status, 0, done.stderr);
  return done.stdout;
}

async function adminToken(where: string[], name: string): Promise<{ token: string; id: string }> {
  return JSON.parse(await keys(where, 'admin-token', 'create', '--name', name, '--json'));
}

function call(server: RunningServer, token: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return request(server.admin!.url, path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(text !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: text,
  });
}

/** The admin OpenAPI document's component schemas, compiled: `matches(reply, 'KeyList')` asserts an answer is one. */
async function componentSchemas(server: RunningServer, token: string): Promise<{ document: any; ajv: ReturnType<typeof createAjv>; matches: (reply: Reply, schema: string) => void }> {
  const document = (await call(server, token, 'GET', '/admin/openapi.json')).json();
  const ajv = createAjv();
  for (const [name, schema] of Object.entries(document.components.schemas as Record<string, object>)) ajv.addSchema(schema, `#/components/schemas/${name}`);
  const matches = (reply: Reply, schema: string) => {
    const validate = ajv.getSchema(`#/components/schemas/${schema}`)!;
    assert.ok(validate(reply.json()), `${schema}: ${JSON.stringify(validate.errors)} in ${reply.text.slice(0, 300)}`);
  };
  return { document, ajv, matches };
}

test.before(async () => {
  ({ snapshotDir } = await buildFixture(root));
});

test.after(() => {
  for (const line of logged) assert.not.match(line, /bdk_|bdat_/, `a log line holds a key or token: ${line}`);
});

test('a sign-up system: create a Pro key, use it, read its usage, revoke it, see it refused, read the audit trail', async () => {
  const stateDir = join(root, 'signup');
  const where = ['--state', stateDir];
  const { token, id: tokenId } = await adminToken(where, 'billing');
  const server = await start('file', stateDir);
  try {
    const created = await call(server, token, 'POST', '/admin/api/keys', { tier: 'pro', org: 'acme', user: 'ana' });
    assert.is(created.status, 201, created.text);
    const { key, record } = created.json();
    assert.match(key, /^bdk_/);
    assert.is(record.tier, 'pro');

    assert.is((await get(server.url, PRO_LIST, key)).status, 200);
    assert.is((await get(server.url, PRO_LIST, key)).status, 200);
    const detail = (await call(server, token, 'GET', `/admin/api/keys/${record.id}`)).json();
    assert.equal(detail.usage.map((u: { kind: string; used: number; limit: number }) => [u.kind, u.used, u.limit]), [['data', 2, 500]]);
    assert.ok(Date.parse(detail.usage[0].resets_at) > 0, 'the window end is shown');
    const usage = (await call(server, token, 'GET', '/admin/api/usage?org=acme')).json().data;
    assert.equal(usage.map((u: { scope: string; remaining: number }) => [u.scope, u.remaining]), [['user:acme/ana', 498]]);

    const revoked = await call(server, token, 'DELETE', `/admin/api/keys/${record.id}`);
    assert.is(revoked.status, 200);
    assert.ok(revoked.json().record.revoked_at);
    assert.is((await get(server.url, PRO_LIST, key)).status, 401, 'refused at the next request');
    const again = await call(server, token, 'DELETE', `/admin/api/keys/${record.id}`);
    assert.is(again.status, 200, 'DELETE is idempotent');
    assert.is(again.json().changed, false);

    const audit = (await call(server, token, 'GET', '/admin/api/audit')).json().data;
    assert.equal(audit.map((e: { action: string }) => e.action), ['key.revoke', 'key.create', 'admin-token.create'], 'newest first, the repeated revoke not recorded');
    for (const entry of audit.slice(0, 2)) {
      assert.is(entry.actor, tokenId);
      assert.is(entry.actor_name, 'billing');
      assert.is(entry.key, record.id);
      assert.match(entry.from, /127\.0\.0\.1/);
    }
    assert.equal(audit[1].changes, { tier: 'pro', org: 'acme', user: 'ana', scope: 'user', quota: null, grants: [], critpt: false });
    assert.equal([audit[2].actor, audit[2].key, audit[2].changes, audit[2].from], ['keys-command', tokenId, { name: 'billing' }, 'local'], 'the token itself, made by the keys command');
    const fromCommand = await keys(where, 'audit', '--json');
    assert.equal(JSON.parse(fromCommand), audit, 'the keys command reads the same trail');
    assert.not.match(readFileSync(join(stateDir, 'audit.log'), 'utf8'), /bdk_|bdat_/, 'no key or token value in the trail');
  } finally {
    await server.close();
  }
});

test('a change the audit trail cannot take is still made, and says so in its answer and the error log', async () => {
  const stateDir = join(root, 'audit-broken');
  const { token } = await adminToken(['--state', stateDir], 'ops');
  rmSync(join(stateDir, 'audit.log')); // the token's own entry
  mkdirSync(join(stateDir, 'audit.log')); // a folder where the trail's file should be: every append fails
  const server = await start('file', stateDir);
  try {
    const created = await call(server, token, 'POST', '/admin/api/keys', { tier: 'free', org: 'acme' });
    assert.is(created.status, 201, created.text);
    assert.match(created.json().audit, /^not recorded: key\.create of key_[0-9a-f]{12} by adm_[0-9a-f]{12} was made but not written/);
    assert.is((await get(server.url, FREE_LIST, created.json().key)).status, 200, 'the key was made and works');
    assert.ok(logged.some((line) => line.includes(`key.create of ${created.json().record.id}`)), 'the error log says so');
  } finally {
    await server.close();
  }
});

test('no admin path answers without a valid admin token, on either listener', async () => {
  const stateDir = join(root, 'auth');
  const where = ['--state', stateDir];
  const { token, id } = await adminToken(where, 'ops');
  const server = await start('file', stateDir);
  try {
    const paths = ['/admin/api/keys', '/admin/api/usage', '/admin/api/audit', '/admin/api/keys/key_0123456789ab', '/admin/openapi.json'];
    for (const path of paths) {
      for (const presented of [null, 'bdat_' + 'A'.repeat(43), 'not-a-token', token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')]) {
        const reply = await call(server, presented, 'GET', path);
        assert.is(reply.status, 401, `${path} with ${presented === null ? 'no token' : 'a wrong token'}`);
        assert.is(reply.json().error, 'Unauthorized');
        assert.not.match(reply.text, /key_|acme/);
      }
      const onPublic = await request(server.url, path, { headers: { authorization: `Bearer ${token}`, 'x-api-key': 'x' } });
      assert.is(onPublic.status, 404, `the public port has no ${path}`);
    }
    const page = await request(server.admin!.url, '/admin/');
    assert.is(page.status, 401, 'the page without a sign-in shows the login form only');
    assert.is((await call(server, token, 'GET', '/admin/api/keys')).status, 200);
    await keys(where, 'admin-token', 'revoke', id);
    assert.is((await call(server, token, 'GET', '/admin/api/keys')).status, 401, 'a revoked token fails at the next request');
  } finally {
    await server.close();
  }
});

test('bad input gets a precise 400, 404, 409, 413 or 415 and changes nothing', async () => {
  const stateDir = join(root, 'bad');
  const where = ['--state', stateDir];
  const { token } = await adminToken(where, 'ops');
  const server = await start('file', stateDir);
  try {
    const pro = (await call(server, token, 'POST', '/admin/api/keys', { tier: 'pro', org: 'acme' })).json().record;
    const commercial = (await call(server, token, 'POST', '/admin/api/keys', { tier: 'commercial', org: 'bigco', grants: [PROVIDER] })).json().record;
    await call(server, token, 'DELETE', `/admin/api/keys/${pro.id}`);
    const before = (await call(server, token, 'GET', '/admin/api/keys')).json();
    const trail = (await call(server, token, 'GET', '/admin/api/audit')).json();
    const cases: [string, string, unknown, number, RegExp, Record<string, string>?][] = [
      ['POST', '/admin/api/keys', { tier: 'gold', org: 'acme' }, 400, /"field":"tier"/],
      ['POST', '/admin/api/keys', { tier: 'pro', org: 'ac me' }, 400, /"field":"org"/],
      ['POST', '/admin/api/keys', { tier: 'pro', org: 'acme', colour: 'red' }, 400, /"field":"colour"/],
      ['POST', '/admin/api/keys', { tier: 'pro' }, 400, /"field":"org"/],
      ['POST', '/admin/api/keys', { tier: 'pro', org: 'acme', quota: 5 }, 400, /only for commercial keys/],
      ['POST', '/admin/api/keys', { tier: 'commercial', org: 'acme', grants: ['capstan-srve'] }, 400, /"did_you_mean":"capstan-serve"/],
      ['POST', '/admin/api/keys', '{"tier": "pro", "org":', 400, /Invalid JSON body/],
      ['POST', '/admin/api/keys', '['.repeat(100) + ']'.repeat(100), 400, /deep|nest/i],
      ['POST', '/admin/api/keys', JSON.stringify({ tier: 'pro', org: 'x'.repeat(70_000) }), 413, /Body too large/],
      ['POST', '/admin/api/keys', 'tier=pro&org=acme', 415, /application\/json/, { 'content-type': 'application/x-www-form-urlencoded' }],
      ['GET', '/admin/api/keys?tier=gold', undefined, 400, /"parameter":"tier"/],
      ['GET', '/admin/api/keys?colour=red', undefined, 400, /"parameter":"colour"/],
      ['GET', '/admin/api/keys/key_0123456789ab', undefined, 404, /no key with id/],
      ['GET', '/admin/api/keys/nonsense', undefined, 400, /Invalid key id/],
      ['GET', '/admin/api/keys/%E0%A4%A', undefined, 400, /Invalid request target/],
      ['POST', `/admin/api/keys/${pro.id}/regenerate`, undefined, 409, /was revoked/],
      ['PUT', `/admin/api/keys/${commercial.id}/grants/no-such-provider`, undefined, 400, /Unknown provider/],
      ['PUT', `/admin/api/keys/${commercial.id}/critpt`, { approved: 'yes' }, 400, /"field":"approved"/],
      ['PUT', `/admin/api/keys/${commercial.id}/quota`, { quota: 0 }, 400, /"field":"quota"/],
      ['PATCH', `/admin/api/keys/${commercial.id}`, undefined, 405, /Method not allowed/],
      ['GET', '/admin/api/nothing', undefined, 404, /Not found/],
      ['GET', '/admin/api/audit?limit=5000', undefined, 400, /Invalid limit/],
      ['POST', '/admin/api/keys', { tier: 'pro', org: 'acme', name: '' }, 400, /"field":"name"/],
      ['POST', '/admin/api/keys', { tier: 'pro', org: 'acme', name: 'bell\u0007' }, 400, /"field":"name"/],
      ['POST', '/admin/api/keys', { tier: 'pro', org: 'acme', name: 'x'.repeat(101) }, 400, /"field":"name"/],
      ['POST', '/admin/api/keys', { tier: 'pro', org: 'acme', expires_at: 'tomorrow' }, 400, /"field":"expires_at"/],
      ['POST', '/admin/api/keys', { tier: 'pro', org: 'acme', expires_at: '2026-02-30T00:00:00Z' }, 400, /"field":"expires_at"/],
      ['POST', '/admin/api/keys', { tier: 'pro', org: 'acme', expires_at: '2020-01-01T00:00:00Z' }, 400, /not in the future/],
      ['POST', `/admin/api/keys/${commercial.id}/regenerate`, { overlap_seconds: 31 * 86_400 }, 400, /"field":"overlap_seconds"/],
      ['POST', `/admin/api/keys/${commercial.id}/regenerate`, { overlap_seconds: -1 }, 400, /"field":"overlap_seconds"/],
      ['PUT', `/admin/api/keys/${commercial.id}/name`, {}, 400, /"field":"name"/],
      ['PUT', `/admin/api/keys/${commercial.id}/expires_at`, { expires_at: '2020-01-01T00:00:00Z' }, 400, /not in the future/],
      ['PUT', `/admin/api/keys/${pro.id}/name`, { name: 'late' }, 409, /was revoked/],
    ];
    for (const [method, path, body, status, pattern, headers] of cases) {
      const reply = await call(server, token, method, path, body, headers);
      assert.is(reply.status, status, `${method} ${path} ${String(JSON.stringify(body)).slice(0, 60)}: ${reply.text.slice(0, 200)}`);
      assert.match(reply.text, pattern);
      assert.ok(typeof reply.json().error === 'string' && typeof reply.json().details === 'object', 'the {error, details} shape');
    }
    const proKey = (await call(server, token, 'POST', '/admin/api/keys', { tier: 'pro', org: 'acme' })).json().record;
    const quotaOnPro = await call(server, token, 'PUT', `/admin/api/keys/${proKey.id}/quota`, { quota: 5 });
    assert.is(quotaOnPro.status, 409, quotaOnPro.text);
    await call(server, token, 'DELETE', `/admin/api/keys/${proKey.id}`);
    const after = (await call(server, token, 'GET', '/admin/api/keys')).json();
    assert.equal(after.data.filter((r: { id: string }) => r.id !== proKey.id), before.data, 'no refused call changed a key');
    assert.is((await call(server, token, 'GET', '/admin/api/audit')).json().data.length, trail.data.length + 2, 'only the two accepted changes were recorded');
  } finally {
    await server.close();
  }
});

test('one error path: every way an admin API request fails answers with the public server\'s JSON error shape', async () => {
  const stateDir = join(root, 'one-error-path');
  const { token } = await adminToken(['--state', stateDir], 'ops');
  const server = await start('file', stateDir);
  try {
    const publicError = await get(server.url, '/api/v2/language/modles');
    assert.is(publicError.status, 404);
    const shapeOf = (reply: Reply) => ({
      type: reply.headers['content-type'],
      fields: Object.keys(reply.json()),
      error: typeof reply.json().error,
      details: typeof reply.json().details,
    });
    const tooLarge = JSON.stringify({ tier: 'pro', org: 'x'.repeat(70_000) });
    const cases: [string, string, string, unknown, number, Record<string, string>?][] = [
      ['unknown path, with the operation meant', 'GET', '/admin/api/key', undefined, 404],
      ['unknown path, nothing near', 'GET', '/admin/api/nothing', undefined, 404],
      ['wrong method', 'PATCH', '/admin/api/keys', undefined, 405],
      ['bad JSON', 'POST', '/admin/api/keys', '{"tier": "pro", "org":', 400],
      ['body too large (declared)', 'POST', '/admin/api/keys', tooLarge, 413],
      ['body too large (chunked)', 'POST', '/admin/api/keys', tooLarge, 413, { 'transfer-encoding': 'chunked' }],
    ];
    const replies: Record<string, Reply> = {};
    for (const [name, method, path, body, status, headers] of cases) {
      const reply = await call(server, token, method, path, body, headers);
      assert.is(reply.status, status, `${name}: ${reply.text.slice(0, 200)}`);
      assert.equal(shapeOf(reply), shapeOf(publicError), `${name}: the public server's {error, details}`);
      assert.is(reply.headers['cache-control'], 'no-store', name);
      replies[name] = reply;
    }
    const meant = replies['unknown path, with the operation meant'].json();
    assert.equal(meant, {
      error: 'Not found',
      details: {
        path: '/admin/api/key',
        operations: '/admin/api/keys, /admin/api/usage, /admin/api/usage/history, /admin/api/audit; see /admin/openapi.json',
        did_you_mean: '/admin/api/keys',
      },
    });
    assert.not.ok('did_you_mean' in replies['unknown path, nothing near'].json().details);
    const grant = await call(server, token, 'PUT', '/admin/api/keys/key_0123456789ab/grant/capstan-serve');
    assert.is(grant.json().details.did_you_mean, '/admin/api/keys/key_0123456789ab/grants/capstan-serve');
    assert.is(replies['wrong method'].headers.allow, 'GET, POST');
    assert.equal(replies['wrong method'].json(), { error: 'Method not allowed', details: { allowed: ['GET', 'POST'] } });
    const head = await call(server, token, 'HEAD', '/admin/api/keys');
    assert.is(head.status, 405, 'no operation answers HEAD');
    assert.is(head.headers.allow, 'GET, POST');
    assert.equal(replies['bad JSON'].json(), { error: 'Invalid JSON body', details: {} });
    for (const name of ['body too large (declared)', 'body too large (chunked)']) {
      assert.equal(replies[name].json(), { error: 'Body too large', details: { limit_bytes: 64 * 1024 } }, name);
    }
  } finally {
    await server.close();
  }
});

/** An admin listener on a context whose token store throws `thrown`, with the lines it logs. */
async function listenerThrowing(thrown: Error) {
  const logged: string[] = [];
  const context = {
    keys: {
      tokens: {
        list: async () => {
          throw thrown;
        },
      },
    },
  } as unknown as AdminContext;
  const sessions = { idleMs: ADMIN_SESSION_MS.idle, lifetimeMs: ADMIN_SESSION_MS.lifetime, most: MOST_SESSIONS };
  const listener = createAdminListener({ context, logError: (line) => logged.push(line), sessions, trustProxy: null });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  const close = () => new Promise((resolve) => listener.close(resolve));
  return { server: { admin: { url: base } } as RunningServer, logged, close };
}

test('one error path: state the admin listener cannot use now is a 503 with Retry-After, as on the public port', async () => {
  const { server, logged, close } = await listenerThrowing(new JournalUnavailable());
  try {
    const reply = await call(server, 'bdat_' + 'A'.repeat(43), 'GET', '/admin/api/keys');
    assert.is(reply.status, 503);
    assert.equal(reply.json(), {
      error: 'Quota bookkeeping is unavailable (state folder not writable); retry later',
      details: { retry_after: 10 },
    });
    assert.is(reply.headers['retry-after'], '10');
    assert.equal(logged, [], 'not a bug: nothing logged');
  } finally {
    await close();
  }
});

test('one error path: an unexpected error thrown in the admin listener is a logged 500 in the same shape', async () => {
  const { server, logged: bugs, close } = await listenerThrowing(new TypeError('a bug in the token store'));
  try {
    const reply = await call(server, 'bdat_' + 'A'.repeat(43), 'GET', '/admin/api/keys');
    assert.is(reply.status, 500);
    assert.equal(reply.json(), { error: 'Internal server error', details: { retry: 'with exponential backoff' } });
    assert.is(reply.headers['content-type'], 'application/json; charset=utf-8');
    assert.is(bugs.length, 1, 'the bug is logged once');
    assert.match(bugs[0], /^admin listener: GET \/admin\/api\/keys failed: TypeError: a bug in the token store/);
    const again = await call(server, null, 'GET', '/admin/api/keys');
    assert.is(again.status, 401, 'the listener lives on');
  } finally {
    await close();
  }
});

test('grants, CritPt, quota and regeneration; idempotent where the method says so; answers match the OpenAPI document', async () => {
  const stateDir = join(root, 'changes');
  const { token } = await adminToken(['--state', stateDir], 'ops');
  const server = await start('file', stateDir);
  try {
    const { document, ajv } = await componentSchemas(server, token);
    const matches = (reply: Reply, operationId: string) => {
      const [, operation] = Object.values(document.paths as Record<string, Record<string, { operationId: string; responses: Record<string, { content: { 'application/json': { schema: { $ref: string } } } }> }>>)
        .flatMap((methods) => Object.entries(methods))
        .find(([, o]) => o.operationId === operationId)!;
      const schema = operation.responses[reply.status].content['application/json'].schema;
      const validate = ajv.getSchema(schema.$ref)!;
      assert.ok(validate(reply.json()), `${operationId}: ${JSON.stringify(validate.errors)}`);
    };

    const created = await call(server, token, 'POST', '/admin/api/keys', { tier: 'commercial', org: 'bigco', user: 'cy', quota: 50 });
    matches(created, 'createKey');
    const { key, record } = created.json();
    const measurements = `/api/v2/language/providers/${PROVIDER}/measurements?prompt_type=medium`;
    assert.is((await get(server.url, measurements, key)).status, 403, 'no grant yet');
    const granted = await call(server, token, 'PUT', `/admin/api/keys/${record.id}/grants/${PROVIDER}`);
    matches(granted, 'grantProvider');
    assert.equal([granted.json().changed, granted.json().record.grants], [true, [PROVIDER]]);
    assert.is((await call(server, token, 'PUT', `/admin/api/keys/${record.id}/grants/${PROVIDER}`)).json().changed, false, 'PUT again changes nothing');
    assert.is((await get(server.url, measurements, key)).status, 200, 'the grant holds at the next request');
    assert.is((await call(server, token, 'DELETE', `/admin/api/keys/${record.id}/grants/${PROVIDER}`)).json().changed, true);
    assert.is((await call(server, token, 'DELETE', `/admin/api/keys/${record.id}/grants/${PROVIDER}`)).json().changed, false);
    assert.is((await get(server.url, measurements, key)).status, 403);

    const approved = await call(server, token, 'PUT', `/admin/api/keys/${record.id}/critpt`, { approved: true });
    assert.is(approved.json().record.critpt, true);
    const quota = await call(server, token, 'PUT', `/admin/api/keys/${record.id}/quota`, { quota: 7 });
    matches(quota, 'setQuota');
    assert.is((await get(server.url, FREE_LIST, key)).headers['x-ratelimit-limit'], '7', 'the new quota holds at the next request');
    const detail = await call(server, token, 'GET', `/admin/api/keys/${record.id}`);
    matches(detail, 'getKey');
    assert.equal(detail.json().usage.map((u: { kind: string; limit: number }) => [u.kind, u.limit]), [['data', 7], ['critpt', 10]]);

    const regenerated = await call(server, token, 'POST', `/admin/api/keys/${record.id}/regenerate`);
    matches(regenerated, 'regenerateKey');
    assert.is(regenerated.json().record.id, record.id, 'the id stays');
    assert.is((await get(server.url, FREE_LIST, key)).status, 401, 'the old value fails at the next request');
    assert.is((await get(server.url, FREE_LIST, regenerated.json().key)).status, 200);
    matches(await call(server, token, 'GET', '/admin/api/keys?org=bigco&revoked=false'), 'listKeys');
    matches(await call(server, token, 'GET', '/admin/api/usage?kind=critpt'), 'listUsage');
    matches(await call(server, token, 'GET', '/admin/api/audit?limit=100'), 'listAudit'); // admin-token.create among them: in the document's enum too
    assert.equal((await call(server, token, 'GET', '/admin/api/audit?limit=100')).json().data.map((e: { action: string }) => e.action), ['key.regenerate', 'key.quota', 'key.critpt', 'key.ungrant', 'key.grant', 'key.create', 'admin-token.create']);
  } finally {
    await server.close();
  }
});

test('a page of keys: searched, filtered by state, sorted by a column, paged, as the OpenAPI document says', async () => {
  const stateDir = join(root, 'paged');
  const where = ['--state', stateDir];
  const { token } = await adminToken(where, 'ops');
  const names = ['delta', 'alpha', 'echo', 'charlie', 'bravo', 'foxtrot', 'golf'];
  const ids: Record<string, string> = {};
  for (const name of names) ids[name] = JSON.parse(await keys(where, 'create', '--tier', 'free', '--org', 'paged', '--name', `${name} key`, '--json')).id;
  await keys(where, 'revoke', ids.golf!);
  const server = await start('file', stateDir);
  try {
    const { matches } = await componentSchemas(server, token);
    const list = async (query: string) => {
      const reply = await call(server, token, 'GET', `/admin/api/keys?${query}`);
      assert.is(reply.status, 200, reply.text);
      matches(reply, 'KeyList');
      return reply.json() as { data: { name: string }[]; pagination?: { page: number; per_page: number; total: number; total_pages: number } };
    };
    const shown = (answer: { data: { name: string }[] }) => answer.data.map((k) => k.name.split(' ')[0]);
    const first = await list('sort=name&per_page=3&revoked=false');
    assert.equal([shown(first), first.pagination], [['alpha', 'bravo', 'charlie'], { page: 1, per_page: 3, total: 6, total_pages: 2 }]);
    assert.equal(shown(await list('sort=name&order=desc&per_page=3&page=2&revoked=false')), ['charlie', 'bravo', 'alpha']);
    assert.equal(shown(await list('q=ECHO')), ['echo'], 'found by its name, in any case');
    assert.equal(shown(await list(`q=${ids.delta!.slice(4, 10)}`)), ['delta'], 'found by a piece of its id');
    assert.equal(shown(await list('state=revoked&page=1')), ['golf']);
    assert.equal(shown(await list('name=HO&sort=name')), ['echo'], 'by a piece of the name alone');
    assert.equal((await list('per_page=2&page=9')).data, [], 'a page past the last is empty');
    assert.is((await list('org=paged')).pagination, undefined, 'without a page, every key, as before');
    for (const query of ['sort=hash', 'page=0', 'per_page=501', 'order=up', 'state=lost', 'q=']) {
      const reply = await call(server, token, 'GET', `/admin/api/keys?${query}`);
      assert.is(reply.status, 400, `${query}: ${reply.text}`);
      assert.match(reply.text, /Invalid query parameter/);
    }
  } finally {
    await server.close();
  }
});

/** Servers on one store sharing one clock the test moves, writing last uses every 20 ms. */
async function startOnClock(store: ServerOptions['store'], stateDirs: string[], clock: TestClock): Promise<RunningServer[]> {
  const servers: RunningServer[] = [];
  for (const stateDir of stateDirs)
    servers.push(
      await startServer(
        { ...DEFAULT_OPTIONS, port: 0, adminPort: 0, snapshotDir, stateDir, store, quiet: true },
        { clock, log: (line) => logged.push(line), logError: (line) => logged.push(line), redisProbeMs: 3_600_000, lastUsedFlushMs: 20 },
      ),
    );
  return servers;
}

/**
 * A key's name, expiry, overlap and last use through the admin API of `servers` (one store),
 * every answer checked against the OpenAPI document, every refusal seen by every server.
 */
async function lifetimeThroughApi(servers: RunningServer[], token: string, clock: TestClock): Promise<void> {
  const [a, b = a] = servers as [RunningServer, RunningServer?];
  const { matches } = await componentSchemas(a, token);
  const everywhere = async (key: string) =>
    Promise.all(servers.map(async (server) => {
      const reply = await get(server.url, PRO_LIST, key);
      return reply.status === 401 ? reply.json().error : reply.status;
    }));
  const view = async (id: string) => {
    const reply = await call(b, token, 'GET', `/admin/api/keys/${id}`);
    matches(reply, 'KeyDetail');
    return reply.json().record;
  };

  const created = await call(a, token, 'POST', '/admin/api/keys', { tier: 'pro', org: 'named', user: 'nia', name: 'billing export', expires_at: '2026-11-22T14:00:00+02:00' });
  assert.is(created.status, 201, created.text);
  matches(created, 'IssuedKey');
  const { key, record } = created.json();
  assert.equal([record.name, record.expires_at, record.prefix, record.last4, record.previous], ['billing export', '2026-11-22T12:00:00.000Z', key.slice(0, 8), key.slice(-4), null], 'the expiry kept as the UTC instant it names');
  assert.equal(await everywhere(key), servers.map(() => 200));
  const usedAt = new Date(clock.now()).toISOString();
  await until(async () => (await view(record.id)).last_used_at === usedAt, 'the last use read through the admin API');
  assert.is((await view(record.id)).state, 'active');
  const listed = await call(a, token, 'GET', '/admin/api/keys?org=named');
  matches(listed, 'KeyList');
  assert.equal(listed.json().data.map((k: { name: string; last_used_at: string }) => [k.name, k.last_used_at]), [['billing export', usedAt]]);

  const renamed = await call(a, token, 'PUT', `/admin/api/keys/${record.id}/name`, { name: 'nightly export' });
  matches(renamed, 'KeyChange');
  assert.equal([renamed.json().changed, renamed.json().record.name], [true, 'nightly export']);
  assert.is((await call(b, token, 'PUT', `/admin/api/keys/${record.id}/name`, { name: 'nightly export' })).json().changed, false, 'PUT again changes nothing');
  assert.is((await call(b, token, 'PUT', `/admin/api/keys/${record.id}/name`, { name: null })).json().record.name, null);

  const same = await call(a, token, 'PUT', `/admin/api/keys/${record.id}/expires_at`, { expires_at: '2026-11-22T12:00:00Z' });
  assert.is(same.json().changed, false, 'the same instant, written otherwise, changes nothing');
  clock.t = Date.parse('2026-11-22T12:00:00Z') - 1;
  assert.equal(await everywhere(key), servers.map(() => 200), 'works until its last millisecond');
  clock.t += 1;
  assert.equal(await everywhere(key), servers.map(() => 'API key expired'), 'refused from then, by every server');
  assert.is((await view(record.id)).state, 'expired');
  const extended = await call(a, token, 'PUT', `/admin/api/keys/${record.id}/expires_at`, { expires_at: null });
  matches(extended, 'KeyChange');
  assert.equal(await everywhere(key), servers.map(() => 200), 'no expiry: it works again at the next request');

  const regenerated = await call(b, token, 'POST', `/admin/api/keys/${record.id}/regenerate`, { overlap_seconds: 3600 });
  matches(regenerated, 'IssuedKey');
  const overlapEnd = new Date(clock.t + 3_600_000).toISOString();
  assert.equal(regenerated.json().record.previous, { prefix: key.slice(0, 8), last4: key.slice(-4), until: overlapEnd });
  const fresh = regenerated.json().key;
  assert.equal([...(await everywhere(key)), ...(await everywhere(fresh))], [...servers, ...servers].map(() => 200), 'both values work during the overlap');
  clock.t += 3_600_000 - 1;
  assert.equal(await everywhere(key), servers.map(() => 200));
  clock.t += 1;
  assert.equal(await everywhere(key), servers.map(() => 'API key replaced'), 'the old value is refused from the end of the overlap');
  assert.equal(await everywhere(fresh), servers.map(() => 200));
  const trail = (await call(a, token, 'GET', '/admin/api/audit?limit=10')).json().data;
  matches(await call(a, token, 'GET', '/admin/api/audit?limit=10'), 'AuditList');
  assert.equal(trail.slice(0, 5).map((e: { action: string; changes: object }) => [e.action, e.changes]), [
    ['key.regenerate', { overlap_until: overlapEnd }],
    ['key.expiry', { expires_at: null }],
    ['key.name', { name: null }],
    ['key.name', { name: 'nightly export' }],
    ['key.create', { tier: 'pro', org: 'named', user: 'nia', scope: 'user', quota: null, grants: [], critpt: false, name: 'billing export', expires_at: '2026-11-22T12:00:00.000Z' }],
  ]);
}

test('a name, an expiry, a regeneration\'s overlap and the last use, on the state folder', async () => {
  const stateDir = join(root, 'lifetime');
  const { token } = await adminToken(['--state', stateDir], 'ops');
  const clock = new TestClock();
  const servers = await startOnClock('file', [stateDir], clock);
  try {
    await lifetimeThroughApi(servers, token, clock);
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
});

test('a name, an expiry, a regeneration\'s overlap and the last use, on Redis with two servers', async () => {
  if (!REDIS_INSTALLED) {
    console.log('skipped part: redis-server is not installed (apt-get install redis-server; .ci/run installs it)');
    return;
  }
  let redis: RedisServer | null = null;
  let servers: RunningServer[] = [];
  try {
    redis = await startRedis();
    const { token } = await adminToken(['--store', redis.url], 'ops');
    const clock = new TestClock();
    servers = await startOnClock(parseRedisUrl(redis.url), [join(root, 'lifetime-a'), join(root, 'lifetime-b')], clock);
    await lifetimeThroughApi(servers, token, clock);
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    await redis?.close();
  }
});

test('on Redis with two servers: a change through one server\'s admin API holds on the other at the next request', async () => {
  if (!REDIS_INSTALLED) {
    console.log('skipped part: redis-server is not installed (apt-get install redis-server; .ci/run installs it)');
    return;
  }
  let redis: RedisServer | null = null;
  const servers: RunningServer[] = [];
  try {
    redis = await startRedis();
    const where = ['--store', redis.url];
    const { token } = await adminToken(where, 'billing');
    const store = parseRedisUrl(redis.url);
    servers.push(await start(store, join(root, 'redis-a')), await start(store, join(root, 'redis-b')));
    const [a, b] = servers;
    const created = await call(a, token, 'POST', '/admin/api/keys', { tier: 'pro', org: 'shared', user: 'sam' });
    assert.is(created.status, 201, created.text);
    const { key, record } = created.json();
    assert.is((await get(b.url, PRO_LIST, key)).status, 200, 'created through A, served by B');
    assert.is((await call(b, token, 'GET', `/admin/api/keys/${record.id}`)).json().usage[0].used, 1, "B's admin API reads the count in Redis");
    assert.is((await call(a, token, 'DELETE', `/admin/api/keys/${record.id}`)).status, 200);
    assert.is((await get(b.url, PRO_LIST, key)).status, 401, 'revoked through A, refused by B at the next request');
    const trail = JSON.parse(await keys(where, 'audit', '--json'));
    assert.equal(trail.map((e: { action: string }) => e.action), ['key.revoke', 'key.create', 'admin-token.create'], 'the trail is in Redis, read by the keys command');
    assert.equal((await call(b, token, 'GET', '/admin/api/audit')).json().data, trail);
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    await redis?.close();
  }
});

test.run();
