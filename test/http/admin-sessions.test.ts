/**
 * The key-management page's sessions, over HTTP on the real admin listener: signing in gives a
 * session id, never the token; a session ends after --admin-session-idle unused and at
 * --admin-session-lifetime (the server's clock moved by the test), at sign-out (its cookie, sent
 * again, no longer signs in) and when its admin token is revoked by the keys command; the form
 * token stays bound to the session; and no log line holds a token or a session id.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request, type Reply } from '../helpers/http.ts';
import { keysCommand } from '../helpers/redis.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const IDLE_MS = 5 * 60_000;
const LIFETIME_MS = 60 * 60_000;

const test = suite('admin page sessions');

let server: TestServer;
const admin = () => server.running.admin!.url;
/** Session ids handed out, to look for in the logs. */
const handedOut: string[] = [];

async function adminToken(name: string): Promise<{ token: string; id: string }> {
  const made = await keysCommand('admin-token', 'create', '--name', name, '--state', server.stateDir, '--json');
  assert.is(made.status, 0, made.stderr);
  return JSON.parse(made.stdout);
}

let ops: { token: string; id: string };

test.before(async () => {
  server = await startTestServer({ server: { adminPort: 0, adminSessionIdleMs: IDLE_MS, adminSessionLifetimeMs: LIFETIME_MS } });
  ops = await adminToken('ops');
});

test.after(async () => {
  const errors = server?.errors ?? [];
  await server?.close();
  for (const line of errors) {
    assert.not.match(line, /bdk_|bdat_/, `a log line holds a key or token: ${line}`);
    for (const id of handedOut) assert.not.ok(line.includes(id), `a log line holds a session id: ${line}`);
  }
});

const page = (cookie: string | null): Promise<Reply> => request(admin(), '/admin/', { headers: cookie === null ? {} : { cookie: `bda_admin=${cookie}` } });

function post(path: string, cookie: string | null, fields: Record<string, string>): Promise<Reply> {
  return request(admin(), path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie === null ? {} : { cookie: `bda_admin=${cookie}` }) },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Sign in with a token; the session id of the cookie. */
async function signIn(token = ops.token): Promise<string> {
  const reply = await post('/admin/login', null, { token });
  assert.is(reply.status, 303, reply.text);
  const cookie = String(reply.headers['set-cookie']);
  const id = /^bda_admin=([A-Za-z0-9_-]{43}); Path=\/admin; HttpOnly; SameSite=Strict$/.exec(cookie)?.[1];
  assert.ok(id, cookie);
  handedOut.push(id);
  return id;
}

/** The form token of a signed-in page. */
async function formToken(session: string): Promise<string> {
  const reply = await page(session);
  assert.is(reply.status, 200, reply.text);
  return /name="csrf" value="([^"]+)"/.exec(reply.text)![1];
}

function assertSignedOut(reply: Reply, what: string): void {
  assert.is(reply.status, 401, what);
  assert.match(reply.text, /form id="login"/, what);
  assert.match(reply.text, /Your session has ended; sign in again/, what);
  assert.match(String(reply.headers['set-cookie']), /^bda_admin=; .*Max-Age=0$/, `${what}: the cookie is cleared`);
}

test('should put a session id in the cookie, never the token, and sign in with nothing else', async () => {
  const session = await signIn();
  assert.not.ok(session.includes(ops.token.slice(5, 15)));
  assert.is((await page(session)).status, 200);
  assertSignedOut(await page(ops.token), 'the token itself as the cookie');
  assertSignedOut(await page('A'.repeat(43)), 'an id never made');
  assert.is((await page(null)).status, 401);
});

test('should end a session unused for --admin-session-idle, and keep one used in time', async () => {
  const used = await signIn();
  const left = await signIn();
  server.clock.advance(IDLE_MS - 1000);
  assert.is((await page(used)).status, 200);
  server.clock.advance(1000);
  assertSignedOut(await page(left), 'idle');
  assert.is((await page(used)).status, 200, 'its idle time started again when it was used');
  const signedInAgain = await signIn();
  assert.is((await page(signedInAgain)).status, 200, 'signing in again works');
});

test('should end a session at --admin-session-lifetime however much it is used', async () => {
  const session = await signIn();
  for (let elapsed = IDLE_MS / 2; elapsed < LIFETIME_MS; elapsed += IDLE_MS / 2) {
    server.clock.advance(IDLE_MS / 2);
    assert.is((await page(session)).status, 200, `at ${elapsed} ms`);
  }
  server.clock.advance(IDLE_MS / 2);
  assertSignedOut(await page(session), 'its lifetime over');
});

test('should end the session on the server at sign-out: its cookie replayed no longer signs in', async () => {
  const session = await signIn();
  const csrf = await formToken(session);
  const out = await post('/admin/logout', session, { csrf });
  assert.is(out.status, 303);
  assert.match(String(out.headers['set-cookie']), /^bda_admin=; .*Max-Age=0$/);
  assertSignedOut(await page(session), 'replayed after sign-out');
  const created = await post('/admin/ui/keys', session, { csrf, tier: 'free', org: 'replayed' });
  assert.is(created.status, 401, 'a form of the ended session changes nothing');
  assert.not.match((await request(admin(), '/admin/api/keys?org=replayed', { headers: { authorization: `Bearer ${ops.token}` } })).text, /key_/);
});

test("should refuse a form without its session's own form token", async () => {
  const [one, other] = [await signIn(), await signIn()];
  const [oneForm, otherForm] = [await formToken(one), await formToken(other)];
  assert.is.not(oneForm, otherForm);
  assert.is((await post('/admin/ui/keys', one, { tier: 'free', org: 'forms' })).status, 403, 'none');
  assert.is((await post('/admin/ui/keys', one, { csrf: otherForm, tier: 'free', org: 'forms' })).status, 403, "another session's");
  assert.is((await post('/admin/ui/keys', one, { csrf: oneForm, tier: 'free', org: 'forms' })).status, 200, 'its own');
  assert.is((await post('/admin/ui/keys', other, { csrf: otherForm, tier: 'free', org: 'forms' })).status, 200);
});

test('should end every session of an admin token revoked by the keys command, at their next request', async () => {
  const other = await adminToken('other-desk');
  const [a, b, kept] = [await signIn(other.token), await signIn(other.token), await signIn()];
  assert.is((await page(a)).status, 200);
  const revoked = await keysCommand('admin-token', 'revoke', other.id, '--state', server.stateDir);
  assert.is(revoked.status, 0, revoked.stderr);
  assertSignedOut(await page(a), 'revoked');
  assertSignedOut(await page(b), 'the second session of the revoked token');
  assert.is((await page(kept)).status, 200, "another token's session is kept");
  assert.is((await post('/admin/login', null, { token: other.token })).status, 401, 'and the token signs in no more');
});

test.run();
