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
import { actionCall, createBody, doneMessage, utcOf } from '../../../src/admin/page-forms.ts';
import { escapeHtml, renderLoginPage } from '../../../src/admin/page-html.ts';
import { errorSentences } from '../../../src/admin/page-errors.ts';
import { NAME_PATTERN } from '../../../src/keys/record.ts';
import { renderKeyCard, renderRevokeConfirmation, renderUsage, usageLevel } from '../../../src/admin/page-card-html.ts';
import { readableChanges } from '../../../src/admin/page-audit-html.ts';
import { everyDay, renderUsageChart, roundTop } from '../../../src/admin/page-chart-html.ts';
import { renderKeysPage, type KeysPage } from '../../../src/admin/page-keys-html.ts';
import { ALL_KEYS, flashOfQuery, listQuery, viewFields, viewOfForm, viewOfQuery, viewUrl } from '../../../src/admin/page-view.ts';
import type { TableView } from '../../../src/admin/page-store.ts';
import { compareKeys, matchesQuery, pageOf, type KeyQuery } from '../../../src/key-admin/key-query.ts';
import { servePage, type PageRequest } from '../../../src/admin/page.ts';
import { AdminSessions } from '../../../src/admin/sessions.ts';

const HOSTILE = '<script>alert(1)</script>';
const LIMITS = { free: 100, pro: 500, commercialDefault: 10_000, critpt: 10 };

function key(over: Partial<KeyView> = {}): KeyView {
  return { id: 'key_0123456789ab', tier: 'commercial', org: 'acme', user: 'alice', scope: 'user', quota: null, grants: ['alpha-cloud'], critpt: true, created_at: '2026-11-20T09:00:00.000Z', revoked_at: null, name: null, expires_at: null, prefix: null, last4: null, previous: null, state: 'active', last_used_at: null, ...over };
}

function table(keys: KeyView[], over: Partial<TableView> = {}): TableView {
  return { kind: 'table', keys, pagination: { page: 1, per_page: 50, total: keys.length, total_pages: 1 }, usage: [], audit: [], ...over };
}

function keysPage(over: Partial<KeysPage> = {}): KeysPage {
  return { nonce: 'n0nce', csrf: 'c5rf', tokenName: 'ops', view: ALL_KEYS, store: table([key()]), limits: LIMITS, providers: [], flash: null, errors: [], issued: null, createValues: null, ...over };
}

const card = suite('a key\'s card');
const FORM = { csrf: 'c5rf', view: ALL_KEYS };

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

const views = suite('the table of keys: the view in the query, the list asked for, the rows');

views('should read a view from the query, dropping what cannot match, and write it back the same', () => {
  const view = viewOfQuery(new URLSearchParams('q=nightly&org=acme&user=ana&name=export&tier=pro&state=expired&sort=last_used&order=desc&page=3'));
  assert.equal(view, { ...ALL_KEYS, q: 'nightly', org: 'acme', user: 'ana', name: 'export', tier: 'pro', state: 'expired', sort: 'last_used', descending: true, page: 3 });
  assert.equal(viewOfQuery(new URLSearchParams(viewUrl(view).split('?')[1])), view);
  const fields = new URLSearchParams([...viewFields(view).matchAll(/name="([^"]+)" value="([^"]*)"/g)].map(([, n, v]) => [n!, v!]));
  assert.equal(viewOfForm(fields), view, 'the hidden fields carry it through a form');
  assert.equal(viewOfQuery(new URLSearchParams('org=ac me&tier=gold&state=odd&sort=hash&page=-2&key=nope')), ALL_KEYS);
  assert.equal(viewOfQuery(new URLSearchParams('revoked=show')), { ...ALL_KEYS, state: 'all' }, 'the older link to every key');
  assert.is(viewUrl(ALL_KEYS), '/admin/');
});

views('should ask the list for a sorted page: not revoked by default, a state when one is chosen', () => {
  assert.equal(listQuery(ALL_KEYS, 50), { sort: 'org', order: 'asc', page: '1', per_page: '50', revoked: 'false' });
  assert.equal(listQuery({ ...ALL_KEYS, state: 'expired', q: 'x', tier: 'pro' }, 50), { sort: 'org', order: 'asc', page: '1', per_page: '50', q: 'x', tier: 'pro', state: 'expired' });
  assert.not.ok('revoked' in listQuery({ ...ALL_KEYS, state: 'all' }, 50));
});

views('should filter by text in the id, name, organisation, user or kept characters, any case, and by state', () => {
  const base: KeyQuery = { org: null, user: null, tier: null, states: ['active', 'expired', 'revoked'], text: null, name: null, sort: 'org', descending: false };
  const named = key({ name: 'Nightly Export', prefix: 'bdk_AbCd', last4: 'wxyz' });
  for (const text of ['nightly', 'EXPORT', '0123456789', 'acme', 'alice', 'bdk_abcd…wxyz', 'wxyz']) assert.ok(matchesQuery(named, { ...base, text }), text);
  assert.not.ok(matchesQuery(named, { ...base, text: 'billing' }));
  assert.not.ok(matchesQuery(named, { ...base, states: ['expired'] }));
  assert.not.ok(matchesQuery(named, { ...base, tier: 'pro' }));
  assert.ok(matchesQuery(named, { ...base, name: 'export', user: 'alice', org: 'acme' }));
  assert.not.ok(matchesQuery(named, { ...base, name: 'acme' }), 'the name filter looks at the name alone');
  assert.not.ok(matchesQuery(key(), { ...base, name: 'x' }), 'a key without a name has none to match');
});

views('should sort by a column, missing values last both ways, then by id; and page', () => {
  const keys = [key({ id: 'key_00000000000c', last_used_at: null }), key({ id: 'key_00000000000a', last_used_at: '2026-11-02T00:00:00.000Z' }), key({ id: 'key_00000000000b', last_used_at: '2026-11-01T00:00:00.000Z' })];
  const ids = (order: KeyView[]) => order.map((k) => k.id.slice(-1)).join('');
  assert.is(ids([...keys].sort(compareKeys({ sort: 'last_used', descending: false }))), 'bac');
  assert.is(ids([...keys].sort(compareKeys({ sort: 'last_used', descending: true }))), 'abc');
  assert.is(ids([...keys].sort(compareKeys({ sort: 'org', descending: false }))), 'abc', 'ties by id');
  assert.equal(pageOf(['a', 'b', 'c', 'd', 'e'], 2, 2), { items: ['c', 'd'], pagination: { page: 2, per_page: 2, total: 5, total_pages: 3 } });
  assert.equal(pageOf(['a'], 4, 2).items, []);
});

views('should show a row a key with its usage, link its id to its own page, and headings that sort', () => {
  const html = renderKeysPage(keysPage({
    view: { ...ALL_KEYS, sort: 'name' },
    store: table([key({ name: 'nightly', prefix: 'bdk_AbCd', last4: 'wxyz', last_used_at: '2026-11-28T10:15:00.000Z' })], {
      usage: [{ kind: 'data', scope: 'user:acme/alice', keys: ['key_0123456789ab'], limit: 100, used: 80, remaining: 20, resets_at: null }],
      pagination: { page: 2, per_page: 50, total: 51, total_pages: 2 },
    }),
  }));
  assert.match(html, /<tr class="key-row" data-key-id="key_0123456789ab" data-state="active">/);
  assert.match(html, /<a class="key-link" href="\/admin\/\?key=key_0123456789ab&amp;sort=name">/);
  assert.match(html, /<code>bdk_AbCd…wxyz<\/code>/);
  assert.match(html, /data-level="amber"><meter min="0" max="100"[^>]*value="80"><\/meter> 80 \/ 100/);
  assert.match(html, /<th scope="col" aria-sort="ascending"><a href="\/admin\/\?sort=name&amp;order=desc">Name ↑<\/a><\/th>/);
  assert.match(html, /Keys 51–51 of 51/);
  assert.match(html, /<a rel="prev" href="\/admin\/\?sort=name">‹ Previous<\/a>/);
  assert.match(html, /<dialog id="create-dialog" aria-labelledby="create-title">/, 'the dialog, closed');
  assert.match(renderKeysPage(keysPage({ view: { ...ALL_KEYS, create: true } })), /<dialog id="create-dialog" aria-labelledby="create-title" open>/);
});

views('should show one key\'s own page: its card with its forms, and its own changes', () => {
  const html = renderKeysPage(keysPage({
    view: { ...ALL_KEYS, key: 'key_0123456789ab' },
    store: { kind: 'key', key: key({ name: 'nightly' }), usage: [], history: { scope: 'user:acme/alice', days: [{ day: '2026-11-28', served: 4 }] }, audit: [{ at: '2026-11-28T10:00:00.000Z', actor: 'adm_0123456789ab', actor_name: 'ops', action: 'key.name', key: 'key_0123456789ab', changes: { name: 'nightly' }, from: '127.0.0.1' }] },
  }));
  assert.match(html, /<a id="back" href="\/admin\/">← Keys<\/a>/);
  assert.match(html, /<article class="key" data-key-id="key_0123456789ab"/);
  assert.match(html, /<h2>Changes to key_0123456789ab<\/h2>/);
  assert.match(html, /<figure class="usage-chart">[\s\S]*<title>2026-11-28: 4<\/title>/, 'its usage history');
  assert.match(html, /name="view_key" value="key_0123456789ab"/, 'a change returns to this page');
  assert.match(html, /action="\/admin\/ui\/keys\/key_0123456789ab\/name"/);
  assert.match(html, /action="\/admin\/ui\/keys\/key_0123456789ab\/expiry"/);
  assert.match(html, /<select name="overlap_seconds"/);
  assert.not.match(html, /id="create-dialog"/);
});

views('should read a browser\'s date-and-time field as UTC, and the new forms as their operations\' bodies', () => {
  assert.is(utcOf('2027-01-31T09:30'), '2027-01-31T09:30:00Z');
  assert.is(utcOf('2027-01-31T09:30:15'), '2027-01-31T09:30:15Z');
  assert.is(utcOf('2027-01-31T09:30:00+02:00'), '2027-01-31T09:30:00+02:00');
  assert.equal(actionCall('expiry', 'key_0123456789ab', new URLSearchParams({ expires_at: '' })).body, { expires_at: null });
  assert.equal(actionCall('name', 'key_0123456789ab', new URLSearchParams({ name: ' nightly ' })).body, { name: 'nightly' });
  assert.equal(actionCall('regenerate', 'key_0123456789ab', new URLSearchParams({ overlap_seconds: '86400' })).body, { overlap_seconds: 86400 });
  assert.equal(createBody(new URLSearchParams({ tier: 'pro', org: 'acme', name: 'x', expires_at: '2027-01-31T09:30' })), { tier: 'pro', org: 'acme', name: 'x', expires_at: '2027-01-31T09:30:00Z' });
});

views.run();

const sentences = suite('errorSentences: a refusal in words');

sentences('should name a field by its label, say its pattern in words, and what was given', () => {
  assert.equal(errorSentences({ field: 'org', expected: `a string matching ${NAME_PATTERN.source}`, got: '"ac me"' }), ['Organisation must be 1 to 100 letters, digits or . _ @ + - , starting with a letter or digit. It was &quot;ac me&quot;.']);
  assert.equal(errorSentences({ field: 'grants[2]', expected: 'a value (required)', got: 'nothing' }), ['Grants must be a value (required). It was left empty.']);
});

sentences('should offer the nearest served provider as a suggestion, and list what it has no words for', () => {
  const said = errorSentences({ provider: 'capstan-srve', snapshot: 'b-1', did_you_mean: 'capstan-serve', providers: 12, limit_bytes: 65536 });
  assert.equal(said, ['The snapshot served now (build <code>b-1</code>) has no provider <code>capstan-srve</code>.', 'Did you mean <code class="suggestion">capstan-serve</code>?', 'limit bytes: 65536.']);
  assert.equal(errorSentences({ reason: `key key_0123456789ab was revoked at ${HOSTILE}` }), [`Key key_0123456789ab was revoked at ${escapeHtml(HOSTILE)}.`]);
});

sentences.run();

const trail = suite('the audit trail and the revocation, in words');

trail('should say an entry\'s changes as field: value, grants counted past five, unknown fields as they are', () => {
  assert.is(readableChanges({ quota: 7, name: 'nightly', critpt: true }), 'quota: <strong>7 / 24 h</strong><span class="sep"> · </span>name: <strong>“nightly”</strong><span class="sep"> · </span>CritPt: <strong>approved</strong>');
  assert.is(readableChanges({ grants: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] }), 'grants: <strong>a, b, c, d, e and 2 more</strong>');
  assert.is(readableChanges({ expires_at: null, quota: null }), 'expires: <strong>never</strong><span class="sep"> · </span>quota: <strong>the server default</strong>');
  assert.is(readableChanges({ colour: '<b>' }), 'colour: &quot;&lt;b&gt;&quot;');
  assert.is(readableChanges({}), '<span class="muted">-</span>');
});

trail('should ask to confirm a revocation on the page, with the form that makes it and the way back', () => {
  const view = { ...ALL_KEYS, key: 'key_0123456789ab', confirmRevoke: true };
  const html = renderRevokeConfirmation(key({ name: 'nightly' }), { csrf: 'c5rf', view });
  assert.match(html, /Revoke “nightly” \(<code>key_0123456789ab<\/code>\) of acme\?/);
  assert.match(html, /<form class="revoke" method="post" action="\/admin\/ui\/keys\/key_0123456789ab\/revoke">/);
  assert.match(html, /<a id="cancel-revoke" href="\/admin\/\?key=key_0123456789ab">Keep it<\/a>/);
  const card = renderKeyCard(key(), [], LIMITS, { csrf: 'c5rf', view: { ...ALL_KEYS, key: 'key_0123456789ab' } });
  assert.match(card, /<a class="button danger ask-revoke" href="\/admin\/\?key=key_0123456789ab&amp;confirm=revoke">Revoke…<\/a>/);
  assert.not.match(card, /form class="revoke"|data-confirm/, 'no revocation without the confirmation');
  assert.match(card, />Take back<\/button>/, 'a labelled button');
});

trail.run();

const chart = suite('the usage chart: a bar a day, in inline SVG');

chart('should give every day of the range its count, a day without one 0', () => {
  assert.equal(everyDay('2026-02-27', '2026-03-02', [{ day: '2026-02-28', served: 5 }, { day: '2026-03-02', served: 1 }]), [
    { day: '2026-02-27', served: 0 }, { day: '2026-02-28', served: 5 }, { day: '2026-03-01', served: 0 }, { day: '2026-03-02', served: 1 },
  ]);
  assert.equal(everyDay('2026-03-02', '2026-03-01', []), []);
});

chart('should round the top up to 1, 2 or 5 times a power of ten', () => {
  assert.equal([0, 1, 3, 7, 10, 11, 180, 4999, 5001].map(roundTop), [1, 1, 5, 10, 10, 20, 200, 5000, 10000]);
});

chart('should draw a bar a day to scale, each with its title, and say the total and the busiest day', () => {
  const html = renderUsageChart('user:acme/<ana>', [{ day: '2026-11-27', served: 0 }, { day: '2026-11-28', served: 150 }, { day: '2026-11-29', served: 75 }]);
  const heights = [...html.matchAll(/<rect class="bar"[^>]* height="([\d.]+)"><title>([^<]+)<\/title>/g)].map(([, h, t]) => [Number(h), t]);
  assert.equal(heights, [[0, '2026-11-27: 0'], [97.5, '2026-11-28: 150'], [48.8, '2026-11-29: 75']], 'to scale against the top, 200 (130 px high)');
  assert.match(html, /225 answers from 2026-11-27 to 2026-11-29, the most on 2026-11-28 \(150\)\./);
  assert.match(html, /user:acme\/&lt;ana&gt;/);
  assert.not.match(html, /style=|<script/, 'nothing the page\'s Content Security Policy refuses');
});

chart.run();

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
      store: table([hostile], {
        usage: [{ kind: 'data', scope: HOSTILE, keys: [hostile.id], limit: 100, used: 5, remaining: 95, resets_at: null }],
        audit: [{ at: HOSTILE, actor: HOSTILE, actor_name: HOSTILE, action: HOSTILE, key: HOSTILE, changes: { org: HOSTILE }, from: HOSTILE }],
      }),
      providers: [HOSTILE],
      flash: HOSTILE,
      errors: [{ message: HOSTILE, details: { got: HOSTILE } }],
      issued: { key: `"><script>x</script>`, record: hostile, regenerated: false },
      createValues: new URLSearchParams({ org: `"${HOSTILE}`, grants: `</textarea>${HOSTILE}` }),
      view: { ...ALL_KEYS, org: 'acme', q: HOSTILE },
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

csrf('should accept the token of the signed-in session', () => {
  assert.ok(csrfValid(SECRET, 'adm_0123456789ab', csrfToken(SECRET, 'adm_0123456789ab')));
});

csrf('should refuse a missing, empty, wrong or truncated token', () => {
  const good = csrfToken(SECRET, 'adm_0123456789ab');
  for (const presented of [null, undefined, '', 'x', good.slice(1), `${good}x`, good.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))]) {
    assert.not.ok(csrfValid(SECRET, 'adm_0123456789ab', presented), String(presented));
  }
});

csrf("should refuse another session's form token, and one made under another secret (a restart)", () => {
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

origin('should take https:// as this page\'s origin when the browser speaks HTTPS, and http:// still', () => {
  assert.ok(fromThisPage({ origin: `https://${HOST}`, fetchSite: 'same-origin', host: HOST, secure: true }));
  assert.ok(fromThisPage({ origin: `http://${HOST}`, fetchSite: 'same-origin', host: HOST, secure: true }), 'a proxy that rewrites the scheme');
  assert.not.ok(fromThisPage({ origin: 'https://evil.example', fetchSite: undefined, host: HOST, secure: true }));
  assert.not.ok(fromThisPage({ origin: `https://${HOST}`, fetchSite: 'cross-site', host: HOST, secure: true }));
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
  assert.is(flashOfQuery(new URLSearchParams(viewUrl({ ...ALL_KEYS, org: 'acme' }, done).split('?')[1])), done);
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
const LIMITS_MS = { idleMs: 30 * 60_000, lifetimeMs: 12 * 3_600_000, most: 1000 };
let revoked = false;
/** Page dependencies with sessions of their own, on a clock a test moves. */
function ownDeps() {
  const clock = { t: Date.UTC(2026, 10, 21, 12), now() { return this.t; } };
  return {
    clock,
    context,
    authenticate: async (token: string) => (token === TOKEN && !revoked ? ADMIN : null),
    activeToken: async (id: string) => (id === ADMIN.id && !revoked ? ADMIN : null),
    sessions: new AdminSessions(clock, LIMITS_MS),
    csrfSecret: SECRET,
  };
}
const DEPS = ownDeps();
/** A session signed in as ADMIN, and the form token of its pages. */
function signIn(deps = DEPS): { cookie: string; formToken: string } {
  const cookie = deps.sessions.open(ADMIN.id);
  return { cookie, formToken: csrfToken(SECRET, deps.sessions.use(cookie)!.digest) };
}
const { cookie: SESSION, formToken: FORM_TOKEN } = signIn();

function request(over: Partial<PageRequest>): PageRequest {
  return { method: 'GET', path: '/admin/', query: new URLSearchParams(), form: null, cookie: null, from: '127.0.0.1', secure: false, origin: undefined, fetchSite: undefined, host: HOST, ...over };
}
const post = (path: string, fields: Record<string, string>, over: Partial<PageRequest> = {}) => servePage(DEPS, request({ method: 'POST', path, cookie: SESSION, form: new URLSearchParams(fields), ...over }));
const cookieOf = (answer: { headers: Record<string, unknown> }) => String(answer.headers['Set-Cookie'] ?? '');
const sessionIdOf = (answer: { headers: Record<string, unknown> }) => /^bda_admin=([A-Za-z0-9_-]{43});/.exec(cookieOf(answer))?.[1] ?? null;

serve.after(() => rmSync(STATE, { recursive: true, force: true }));

serve('should answer 401 with the login form and nothing of the store without a valid cookie', async () => {
  // No cookie, a session id never made, junk, and the raw admin token (the cookie before sessions).
  for (const cookie of [null, 'B'.repeat(43), 'junk', TOKEN]) {
    const answer = await servePage(DEPS, request({ cookie }));
    assert.is(answer.status, 401);
    assert.match(answer.body, /form id="login"/);
    assert.not.ok(answer.body.includes('secret-org') || answer.body.includes(existing.record.id));
    assert.is(answer.headers['Set-Cookie'] !== undefined, cookie !== null, 'a cookie that does not sign in is cleared');
    assert.is(/Your session has ended/.test(answer.body), cookie !== null, 'and the page says why it asks again');
  }
});

serve('should set a session id, never the token, in an HttpOnly SameSite=Strict cookie, and refuse a bad or cross-site login', async () => {
  const good = await post('/admin/login', { token: `${TOKEN}\n` }, { cookie: null, origin: 'null', fetchSite: 'same-origin' });
  assert.is(good.status, 303);
  assert.is(good.headers.Location, '/admin/');
  assert.match(cookieOf(good), /^bda_admin=[A-Za-z0-9_-]{43}; Path=\/admin; HttpOnly; SameSite=Strict$/);
  assert.not.ok(cookieOf(good).includes(TOKEN.slice(5)), 'no part of the token');
  assert.is((await servePage(DEPS, request({ cookie: sessionIdOf(good) }))).status, 200, 'the session signs in');
  const again = await post('/admin/login', { token: TOKEN }, { cookie: null });
  assert.is.not(sessionIdOf(again), sessionIdOf(good), 'each sign-in a session of its own');
  const bad = await post('/admin/login', { token: `bdat_${'C'.repeat(43)}` }, { cookie: null });
  assert.is(bad.status, 401);
  assert.match(bad.body, /That token is not valid \(or was revoked\)/);
  assert.is(bad.headers['Set-Cookie'], undefined);
  assert.is((await post('/admin/login', { token: TOKEN }, { cookie: null, fetchSite: 'cross-site' })).status, 403);
});

serve('should make the cookie Secure when the browser speaks HTTPS, and clear it the same way', async () => {
  const good = await post('/admin/login', { token: TOKEN }, { cookie: null, secure: true, origin: `https://${HOST}` });
  assert.is(good.status, 303);
  assert.match(cookieOf(good), /^bda_admin=[A-Za-z0-9_-]{43}; Path=\/admin; HttpOnly; SameSite=Strict; Secure$/);
  const ended = await servePage(DEPS, request({ cookie: 'D'.repeat(43), secure: true }));
  assert.is(cookieOf(ended), 'bda_admin=; Path=/admin; HttpOnly; SameSite=Strict; Secure; Max-Age=0');
});

serve('should ask to sign in again once a session has been unused for the idle time, and not before', async () => {
  const DEPS = ownDeps();
  const { clock } = DEPS;
  const { cookie } = signIn(DEPS);
  clock.t += LIMITS_MS.idleMs - 1;
  assert.is((await servePage(DEPS, request({ cookie }))).status, 200, 'used just in time: its idle time starts again');
  clock.t += LIMITS_MS.idleMs - 1;
  assert.is((await servePage(DEPS, request({ cookie }))).status, 200);
  clock.t += LIMITS_MS.idleMs;
  const ended = await servePage(DEPS, request({ cookie }));
  assert.is(ended.status, 401);
  assert.match(ended.body, /Your session has ended; sign in again/);
  assert.match(cookieOf(ended), /^bda_admin=; .*Max-Age=0$/);
});

serve('should end a session at its lifetime however much it is used', async () => {
  const DEPS = ownDeps();
  const { clock } = DEPS;
  const { cookie } = signIn(DEPS);
  const step = LIMITS_MS.idleMs / 2;
  for (let elapsed = step; elapsed < LIMITS_MS.lifetimeMs; elapsed += step) {
    clock.t += step;
    assert.is((await servePage(DEPS, request({ cookie }))).status, 200, `used every ${step} ms, at ${elapsed} ms`);
  }
  clock.t += step;
  assert.is((await servePage(DEPS, request({ cookie }))).status, 401, 'at its lifetime');
});

serve('should end the session on the server at sign-out: its cookie, sent again, no longer signs in', async () => {
  const { cookie, formToken } = signIn();
  const out = await post('/admin/logout', { csrf: formToken }, { cookie });
  assert.is(out.status, 303);
  assert.match(cookieOf(out), /^bda_admin=; .*Max-Age=0$/);
  assert.is((await servePage(DEPS, request({ cookie }))).status, 401, 'replayed');
  assert.is((await post(`/admin/ui/keys/${existing.record.id}/revoke`, { csrf: formToken }, { cookie })).status, 401);
});

serve("should refuse a form token of another session, and sign-out without the session's own", async () => {
  const one = signIn();
  const other = signIn();
  assert.is((await post(`/admin/ui/keys/${existing.record.id}/revoke`, { csrf: other.formToken }, { cookie: one.cookie })).status, 403);
  assert.is((await post('/admin/logout', { csrf: other.formToken }, { cookie: one.cookie })).status, 403);
  assert.is((await servePage(DEPS, request({ cookie: one.cookie }))).status, 200, 'still signed in');
});

serve('should end every session of an admin token once it is revoked, at their next request', async () => {
  const deps = ownDeps();
  const own = deps.sessions;
  const [a, b] = [signIn(deps), signIn(deps)];
  revoked = true;
  try {
    assert.is((await servePage(deps, request({ cookie: a.cookie }))).status, 401);
    assert.is(own.size, 0, 'both sessions of the token ended at the first request that found it revoked');
    assert.is((await servePage(deps, request({ cookie: b.cookie }))).status, 401);
  } finally {
    revoked = false;
  }
  assert.is((await servePage(deps, request({ cookie: a.cookie }))).status, 401, 'an ended session stays ended');
});

serve('should read every key once a view, the usage of the shown keys from their scopes', async () => {
  let reads = 0;
  const keys = { ...context.keys, list: () => (reads++, context.keys.list()) };
  const answer = await servePage({ ...DEPS, context: { ...context, keys } }, request({ cookie: SESSION }));
  assert.is(answer.status, 200);
  assert.match(answer.body, new RegExp(`data-key-id="${existing.record.id}"`));
  assert.match(answer.body, /class="usage-cell" data-level="green"><meter/, 'the usage of the row, without another read');
  assert.is(reads, 1);
  await servePage({ ...DEPS, context: { ...context, keys } }, request({ cookie: SESSION }));
  assert.is(reads, 2, 'the next view reads the keys afresh');
});

serve('should show the keys with the policy headers and a nonce that matches the inline style and script', async () => {
  const answer = await servePage(DEPS, request({ cookie: SESSION }));
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
  assert.match(answer.body, /class="box error"[\s\S]*<p>Quota is only for commercial keys; free keys have the server&#39;s free quota\.<\/p>/, 'said as a sentence');
  assert.match(answer.body, /name="quota" min="1" max="1000000000" step="1" value="5"/, 'the form keeps what was typed');
});

serve('should answer 404 for an unknown page and 405 with Allow for a wrong method', async () => {
  assert.is((await post('/admin/ui/keys/key_0123456789ab/explode', { csrf: FORM_TOKEN })).status, 404);
  const wrong = await servePage(DEPS, request({ method: 'DELETE', cookie: SESSION }));
  assert.is(wrong.status, 405);
  assert.is(wrong.headers.Allow, 'GET, HEAD');
  assert.is((await servePage(DEPS, request({ path: '/admin/ui/keys', cookie: SESSION }))).headers.Allow, 'POST');
});

serve('should still show the page, saying why, when the store cannot be read', async () => {
  const broken = { ...context, keys: { ...context.keys, list: () => { throw new KeyStoreError('cannot read keys.json: EACCES'); } } } as AdminContext;
  const answer = await servePage({ ...DEPS, context: broken }, request({ cookie: SESSION }));
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
