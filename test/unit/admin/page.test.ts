import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fileAdmin } from '../../../src/key-admin/stores.ts';
import { createKey } from '../../../src/keys/changes.ts';
import { KeyStoreError } from '../../../src/keys/record.ts';
import type { KeyView } from '../../../src/key-admin/key-view.ts';
import type { ScopeUsage } from '../../../src/key-admin/usage.ts';
import type { AdminContext } from '../../../src/admin/operations.ts';
import { HttpError } from '../../../src/http/error.ts';
import { csrfToken, csrfValid, fromThisPage } from '../../../src/admin/page-csrf.ts';
import { actionCall, createBody, doneMessage } from '../../../src/admin/page-forms.ts';
import { escapeHtml, renderLoginPage } from '../../../src/admin/page-html.ts';
import { renderKeyCard, renderUsage, usageLevel } from '../../../src/admin/page-card-html.ts';
import { renderKeysPage, type KeysPage } from '../../../src/admin/page-keys-html.ts';
import { flashOfQuery, viewUrl } from '../../../src/admin/page-view.ts';
import { servePage, type PageRequest } from '../../../src/admin/page.ts';

const HOSTILE = '<script>alert(1)</script>';
const LIMITS = { free: 100, pro: 500, commercialDefault: 10_000, critpt: 10 };

function key(over: Partial<KeyView> = {}): KeyView {
  return { id: 'key_0123456789ab', tier: 'commercial', org: 'acme', user: 'alice', scope: 'user', quota: null, grants: ['alpha-cloud'], critpt: true, created_at: '2026-11-20T09:00:00.000Z', revoked_at: null, name: null, expires_at: null, prefix: null, last4: null, previous: null, state: 'active', last_used_at: null, ...over };
}

function keysPage(over: Partial<KeysPage> = {}): KeysPage {
  return { nonce: 'n0nce', csrf: 'c5rf', tokenName: 'ops', view: { org: null, showRevoked: false }, keys: [key()], usage: [], audit: [], limits: LIMITS, providers: [], flash: null, errors: [], issued: null, createValues: null, ...over };
}

const card = suite('a key\'s card');
const FORM = { csrf: 'c5rf', view: { org: null, showRevoked: false } };

card('should show the label, what is kept of the value, the old value\'s overlap, the expiry and the last use', () => {
  const html = renderKeyCard(
    key({ name: 'nightly export', prefix: 'bdk_AbCd', last4: 'wxyz', expires_at: '2027-01-31T00:00:00.000Z', last_used_at: '2026-11-28T10:15:00.000Z', previous: { prefix: 'bdk_OldV', last4: 'lu3s', until: '2026-11-30T08:00:00.000Z' } }),
    [],
    LIMITS,
    FORM,
  );
  assert.match(html, /<span class="key-name">nightly export<\/span>/);
  assert.match(html, /<dt>Value<\/dt><dd><code>bdk_AbCd…wxyz<\/code><\/dd>/);
  assert.match(html, /<dt>Old value<\/dt><dd><code>bdk_OldV…lu3s<\/code> <span class="muted">works until<\/span> <time datetime="2026-11-30T08:00:00.000Z">2026-11-30 08:00 UTC<\/time>/);
  assert.match(html, /<dt>Expires<\/dt><dd><time datetime="2027-01-31T00:00:00.000Z">/);
  assert.match(html, /<dt>Last used<\/dt><dd><time datetime="2026-11-28T10:15:00.000Z">/);
  assert.match(html, /data-state="active"/);
});

card('should mark an expired key, and say when nothing is known', () => {
  const html = renderKeyCard(key({ state: 'expired', expires_at: '2026-11-01T00:00:00.000Z' }), [], LIMITS, FORM);
  assert.match(html, /data-state="expired"/);
  assert.match(html, /<span class="state-expired">expired<\/span>/);
  assert.match(html, /<dt>Expired<\/dt><dd><time datetime="2026-11-01T00:00:00.000Z">/);
  assert.match(html, /<dt>Value<\/dt><dd><span class="muted">not kept \(issued before it was\)<\/span>/);
  assert.match(html, /<dt>Last used<\/dt><dd><span class="muted">not recorded<\/span>/);
  assert.not.match(html, /Old value/);
});

card.run();

const escaping = suite('escapeHtml and the pages: every value escaped');

escaping('should escape the five characters that open markup or close an attribute', () => {
  assert.is(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  assert.is(escapeHtml(42), '42');
});

escaping('should escape a hostile org, user, token name, provider, audit entry, flash, error and new key everywhere', () => {
  const hostile = key({ org: HOSTILE, user: HOSTILE, grants: [HOSTILE], name: HOSTILE });
  const html = renderKeysPage(
    keysPage({
      tokenName: HOSTILE,
      keys: [hostile],
      usage: [{ kind: 'data', scope: HOSTILE, keys: [hostile.id], limit: 100, used: 5, remaining: 95, resets_at: null }],
      audit: [{ at: HOSTILE, actor: HOSTILE, actor_name: HOSTILE, action: HOSTILE, key: HOSTILE, changes: { org: HOSTILE }, from: HOSTILE }],
      providers: [HOSTILE],
      flash: HOSTILE,
      errors: [{ message: HOSTILE, details: { got: HOSTILE } }],
      issued: { key: `"><script>x</script>`, record: hostile, regenerated: false },
      createValues: new URLSearchParams({ org: `"${HOSTILE}`, grants: `</textarea>${HOSTILE}` }),
      view: { org: 'acme', showRevoked: false },
    }),
  );
  // The page's own script is the only one: nothing interpolated opened another.
  assert.is(html.split('<script').length - 1, 1);
  assert.not.ok(html.includes('</textarea><script'));
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.ok(html.includes('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"'), 'the new key in its input, escaped');
});

escaping('should show the login page with the form and nothing of the store', () => {
  const html = renderLoginPage('n0nce', 'That token is not valid (or was revoked)');
  assert.match(html, /<form id="login" method="post" action="\/admin\/login">/);
  assert.match(html, /<input type="password" name="token"/);
  assert.match(html, />Sign in<\/button>/);
  assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
  assert.not.match(html, /data-key-id|id="audit"|name="csrf"/);
});

const csrf = suite('csrfValid: the form token');
const SECRET = randomBytes(32);

csrf('should accept the token of the signed-in admin token', () => {
  assert.ok(csrfValid(SECRET, 'adm_0123456789ab', csrfToken(SECRET, 'adm_0123456789ab')));
});

csrf('should refuse a missing, empty, wrong or truncated token', () => {
  const good = csrfToken(SECRET, 'adm_0123456789ab');
  for (const presented of [null, undefined, '', 'x', good.slice(1), `${good}x`, good.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))]) {
    assert.not.ok(csrfValid(SECRET, 'adm_0123456789ab', presented), String(presented));
  }
});

csrf("should refuse another admin token's form token, and one made under another secret (a restart)", () => {
  assert.not.ok(csrfValid(SECRET, 'adm_0123456789ab', csrfToken(SECRET, 'adm_ba9876543210')));
  assert.not.ok(csrfValid(SECRET, 'adm_0123456789ab', csrfToken(randomBytes(32), 'adm_0123456789ab')));
});

const origin = suite('fromThisPage: where a POST came from');
const HOST = '127.0.0.1:9090';

origin('should accept a post from the same origin, by Origin or by Sec-Fetch-Site with Origin: null', () => {
  assert.ok(fromThisPage({ origin: `http://${HOST}`, fetchSite: 'same-origin', host: HOST }));
  assert.ok(fromThisPage({ origin: 'null', fetchSite: 'same-origin', host: HOST }));
  assert.ok(fromThisPage({ origin: 'http://LOCALHOST:9090', fetchSite: undefined, host: 'localhost:9090' }));
  assert.ok(fromThisPage({ origin: undefined, fetchSite: undefined, host: HOST }), 'no browser: the form token decides');
});

origin('should refuse a cross-site or same-site fetch and a foreign Origin', () => {
  assert.not.ok(fromThisPage({ origin: 'null', fetchSite: 'cross-site', host: HOST }));
  assert.not.ok(fromThisPage({ origin: 'http://127.0.0.1:8080', fetchSite: 'same-site', host: HOST }));
  assert.not.ok(fromThisPage({ origin: 'http://evil.example', fetchSite: undefined, host: HOST }));
  assert.not.ok(fromThisPage({ origin: `https://${HOST}`, fetchSite: undefined, host: HOST }));
  assert.not.ok(fromThisPage({ origin: `http://${HOST}`, fetchSite: undefined, host: undefined }));
});

const forms = suite('createBody and actionCall: form fields as the operation body');

forms('should leave empty fields out and split grants on commas and white space', () => {
  const body = createBody(new URLSearchParams({ csrf: 'x', tier: 'commercial', org: ' acme ', user: '', scope: '', quota: '', grants: 'alpha-cloud, beta-labs\n gamma,,', critpt: 'true' }));
  assert.equal(body, { tier: 'commercial', org: 'acme', grants: ['alpha-cloud', 'beta-labs', 'gamma'], critpt: true });
});

forms('should read a ticked checkbox as true and an unticked one as absent', () => {
  assert.is(createBody(new URLSearchParams({ critpt: 'on' })).critpt, true);
  assert.not.ok('critpt' in createBody(new URLSearchParams({ tier: 'free' })));
});

forms('should turn digits into an integer and leave anything else as text for the operation to refuse', () => {
  assert.is(createBody(new URLSearchParams({ quota: '5000' })).quota, 5000);
  assert.is(createBody(new URLSearchParams({ quota: 'lots' })).quota, 'lots');
  assert.is(createBody(new URLSearchParams({ scope: 'org' })).scope, 'org');
});

forms('should make an empty quota null (the server default) and a number an integer', () => {
  assert.equal(actionCall('quota', 'key_0123456789ab', new URLSearchParams({ quota: '' })).body, { quota: null });
  assert.equal(actionCall('quota', 'key_0123456789ab', new URLSearchParams({ quota: '2500' })).body, { quota: 2500 });
});

forms('should make the CritPt toggle a boolean and put grant providers in the path', () => {
  assert.equal(actionCall('critpt', 'key_0123456789ab', new URLSearchParams({ approved: 'false' })), { operation: 'setCritpt', params: { id: 'key_0123456789ab' }, body: { approved: false } });
  assert.equal(actionCall('grant', 'key_0123456789ab', new URLSearchParams({ provider: 'alpha-cloud' })), { operation: 'grantProvider', params: { id: 'key_0123456789ab', provider: 'alpha-cloud' }, body: undefined });
  assert.throws(() => actionCall('ungrant', 'key_0123456789ab', new URLSearchParams()), (e: unknown) => e instanceof HttpError && e.status === 400);
});

forms('should say what changed in a short line that the page shows back', () => {
  const call = actionCall('grant', 'key_0123456789ab', new URLSearchParams({ provider: 'alpha-cloud' }));
  const done = doneMessage('grant', call, true);
  assert.is(done, 'granted alpha-cloud to key_0123456789ab');
  assert.is(flashOfQuery(new URLSearchParams(viewUrl({ org: 'acme', showRevoked: false }, done).split('?')[1])), done);
  assert.is(flashOfQuery(new URLSearchParams({ done: 'Your session expired! Call +1 555 0100 <now>' })), null);
});

const usage = suite('usageLevel and renderUsage: the usage bar');

usage('should colour green below three quarters, amber to nine tenths, red above', () => {
  assert.equal(usageLevel(0, 100), { fraction: 0, colour: 'green' });
  assert.equal(usageLevel(74, 100), { fraction: 0.74, colour: 'green' });
  assert.is(usageLevel(75, 100).colour, 'amber');
  assert.is(usageLevel(90, 100).colour, 'amber');
  assert.is(usageLevel(91, 100).colour, 'red');
  assert.equal(usageLevel(150, 100), { fraction: 1, colour: 'red' });
});

usage('should show used / limit, a meter with the same thresholds, and when the window ends', () => {
  const row: ScopeUsage = { kind: 'data', scope: 'user:acme/alice', keys: ['key_0123456789ab'], limit: 100, used: 80, remaining: 20, resets_at: '2026-11-20T10:00:00.000Z' };
  const html = renderUsage(row);
  assert.match(html, /class="usage" data-kind="data" data-level="amber"/);
  assert.match(html, /80 \/ 100/);
  assert.match(html, /<meter min="0" max="100" low="75" high="90" optimum="0" value="80">/);
  assert.match(html, /resets at <time datetime="2026-11-20T10:00:00.000Z">2026-11-20 10:00 UTC<\/time>/);
  assert.match(renderUsage({ ...row, used: 0, remaining: 100, resets_at: null }), /no requests in the current window/);
});

const serve = suite('servePage: sign-in, forms and answers');
const STATE = mkdtempSync(join(tmpdir(), 'bda-page-'));
const TOKEN = `bdat_${'A'.repeat(43)}`;
const ADMIN = { id: 'adm_0123456789ab', hash: 'a'.repeat(64), name: 'ops', created_at: '2026-11-20T09:00:00.000Z', revoked_at: null };
const existing = createKey(STATE, { tier: 'pro', org: 'secret-org', user: 'secret-user' });
const context = {
  keys: fileAdmin(STATE),
  quota: { status: (_kind: string, _scope: string, limit: number) => ({ limit, remaining: limit - 10, resetAt: Date.now() + 3600e3, exhausted: false }) },
  served: () => ({ buildId: 'b', slugs: new Set(['alpha-cloud']) }),
  limits: LIMITS,
  clock: { now: () => Date.now() },
} as unknown as AdminContext;
const DEPS = { context, authenticate: async (token: string) => (token === TOKEN ? ADMIN : null), csrfSecret: SECRET };
const FORM_TOKEN = csrfToken(SECRET, ADMIN.id);

function request(over: Partial<PageRequest>): PageRequest {
  return { method: 'GET', path: '/admin/', query: new URLSearchParams(), form: null, cookieToken: null, from: '127.0.0.1', origin: undefined, fetchSite: undefined, host: HOST, ...over };
}
const post = (path: string, fields: Record<string, string>, over: Partial<PageRequest> = {}) => servePage(DEPS, request({ method: 'POST', path, cookieToken: TOKEN, form: new URLSearchParams(fields), ...over }));

serve.after(() => rmSync(STATE, { recursive: true, force: true }));

serve('should answer 401 with the login form and nothing of the store without a valid cookie', async () => {
  for (const cookieToken of [null, `bdat_${'B'.repeat(43)}`, 'junk']) {
    const answer = await servePage(DEPS, request({ cookieToken }));
    assert.is(answer.status, 401);
    assert.match(answer.body, /form id="login"/);
    assert.not.ok(answer.body.includes('secret-org') || answer.body.includes(existing.record.id));
    assert.is(answer.headers['Set-Cookie'] !== undefined, cookieToken !== null, 'a cookie that does not sign in is cleared');
  }
});

serve('should set the HttpOnly SameSite=Strict cookie on a good login and refuse a bad or cross-site one', async () => {
  const good = await post('/admin/login', { token: `${TOKEN}\n` }, { cookieToken: null, origin: 'null', fetchSite: 'same-origin' });
  assert.is(good.status, 303);
  assert.is(good.headers.Location, '/admin/');
  assert.is(good.headers['Set-Cookie'], `bda_admin=${TOKEN}; Path=/admin; HttpOnly; SameSite=Strict`);
  const bad = await post('/admin/login', { token: `bdat_${'C'.repeat(43)}` }, { cookieToken: null });
  assert.is(bad.status, 401);
  assert.match(bad.body, /That token is not valid \(or was revoked\)/);
  assert.is((await post('/admin/login', { token: TOKEN }, { cookieToken: null, fetchSite: 'cross-site' })).status, 403);
});

serve('should read every key once a view, for its keys and its usage both', async () => {
  let reads = 0;
  const keys = { ...context.keys, list: () => (reads++, context.keys.list()) };
  const answer = await servePage({ ...DEPS, context: { ...context, keys } }, request({ cookieToken: TOKEN }));
  assert.is(answer.status, 200);
  assert.match(answer.body, new RegExp(`data-key-id="${existing.record.id}"`));
  assert.match(answer.body, /class="usage" data-kind="data"/, 'the usage came from the same read');
  assert.is(reads, 1);
  await servePage({ ...DEPS, context: { ...context, keys } }, request({ cookieToken: TOKEN }));
  assert.is(reads, 2, 'the next view reads the keys afresh');
});

serve('should show the keys with the policy headers and a nonce that matches the inline style and script', async () => {
  const answer = await servePage(DEPS, request({ cookieToken: TOKEN }));
  assert.is(answer.status, 200);
  assert.match(answer.body, new RegExp(`data-key-id="${existing.record.id}"`));
  const nonce = /'nonce-([^']+)'/.exec(answer.headers['Content-Security-Policy'] as string)![1];
  assert.ok(answer.body.includes(`<style nonce="${nonce}">`) && answer.body.includes(`<script nonce="${nonce}">`));
  assert.is(answer.headers['Cache-Control'], 'no-store');
  assert.is(answer.headers['X-Frame-Options'], 'DENY');
});

serve('should refuse a change without the form token, and from another origin', async () => {
  assert.is((await post(`/admin/ui/keys/${existing.record.id}/revoke`, {})).status, 403);
  assert.is((await post(`/admin/ui/keys/${existing.record.id}/revoke`, { csrf: csrfToken(SECRET, 'adm_ba9876543210') })).status, 403);
  assert.is((await post(`/admin/ui/keys/${existing.record.id}/revoke`, { csrf: FORM_TOKEN }, { origin: 'http://evil.example' })).status, 403);
  assert.is((await context.keys.list())!.find((r) => r.id === existing.record.id)!.revoked_at, null);
});

serve('should show a new key once, in the body only, and redirect after other changes', async () => {
  const created = await post('/admin/ui/keys', { csrf: FORM_TOKEN, tier: 'commercial', org: 'acme', user: 'alice', grants: 'alpha-cloud', critpt: 'on' });
  assert.is(created.status, 200);
  const value = /<div id="new-key"[\s\S]*?value="(bdk_[^"]+)"/.exec(created.body)![1];
  assert.match(created.body, /New key for acme\/alice — shown only once/);
  assert.not.ok(JSON.stringify(created.headers).includes(value));
  const id = /<div id="new-key"[^>]*data-key-id="(key_[0-9a-f]{12})"/.exec(created.body)![1];
  const revoked = await post(`/admin/ui/keys/${id}/revoke`, { csrf: FORM_TOKEN, view_org: 'acme' });
  assert.is(revoked.status, 303);
  assert.is(revoked.headers.Location, `/admin/?org=acme&done=revoked+${id}`);
});

serve("should re-render the page with the operation's status and message when it refuses", async () => {
  const answer = await post('/admin/ui/keys', { csrf: FORM_TOKEN, tier: 'free', org: 'acme', quota: '5' });
  assert.is(answer.status, 400);
  assert.match(answer.body, /class="box error"[\s\S]*quota is only for commercial keys/);
  assert.match(answer.body, /name="quota" min="1" max="1000000000" step="1" value="5"/, 'the form keeps what was typed');
});

serve('should answer 404 for an unknown page and 405 with Allow for a wrong method', async () => {
  assert.is((await post('/admin/ui/keys/key_0123456789ab/explode', { csrf: FORM_TOKEN })).status, 404);
  const wrong = await servePage(DEPS, request({ method: 'DELETE', cookieToken: TOKEN }));
  assert.is(wrong.status, 405);
  assert.is(wrong.headers.Allow, 'GET, HEAD');
  assert.is((await servePage(DEPS, request({ path: '/admin/ui/keys', cookieToken: TOKEN }))).headers.Allow, 'POST');
});

serve('should still show the page, saying why, when the store cannot be read', async () => {
  const broken = { ...context, keys: { ...context.keys, list: () => { throw new KeyStoreError('cannot read keys.json: EACCES'); } } } as AdminContext;
  const answer = await servePage({ ...DEPS, context: broken }, request({ cookieToken: TOKEN }));
  assert.is(answer.status, 503);
  assert.is(answer.headers['Retry-After'], '5');
  assert.match(answer.body, /class="box error"[\s\S]*Key store unavailable[\s\S]*EACCES/);
  assert.match(answer.body, /form id="logout"/);
});

escaping.run();
csrf.run();
origin.run();
forms.run();
usage.run();
serve.run();
