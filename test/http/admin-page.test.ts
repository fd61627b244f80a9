/**
 * The key-management page as a person uses it, in headless Chromium (Debian's `chromium`, driven
 * over its DevTools pipe by test/helpers/chromium.ts): sign in with an admin token, create a key
 * in the dialog, find it in the table by searching, see its usage, open its own page, set its
 * expiry, regenerate it with an overlap, revoke it, and the revoked key refused on the public
 * port at its next request; page through more keys than a page holds, sort, see an expired key;
 * on a phone-sized screen too. `UPDATE_SCREENSHOTS=1` writes the README's screenshots
 * (docs/images/admin-*.png) from the same run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import { CHROMIUM, launchBrowser, skipWithoutChromium, type Browser } from '../helpers/chromium.ts';
import { get, request } from '../helpers/http.ts';
import { keysCommand } from '../helpers/redis.ts';
import { buildFixture } from '../helpers/server.ts';
import { ROOT } from '../helpers/process.ts';
import { until } from '../helpers/wait.ts';
import { writeScaleKeys } from '../../scripts/scale-state.ts';

const PRO_LIST = '/api/v2/language/models';
const root = mkdtempSync(join(tmpdir(), 'admin-page-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs/images') : join(root, 'shots');

const NAMES = {
  person: 'should let a person sign in, create a key in the dialog, find it, set its expiry, roll it over, revoke it, and the public port follow at the next request',
  table: 'should page through more keys than a page holds, sort by a column, and show an expired key as expired',
  phone: 'should be usable on a phone-sized screen: the same sign-in and a key created and shown',
  forgery: 'should refuse a form posted without its token, from another origin, or after signing out (the session ended)',
};

const test = suite('the key-management page in a browser');

if (!CHROMIUM) {
  skipWithoutChromium(test, Object.values(NAMES));
} else {
  let server: RunningServer;
  let token = '';
  const stateDir = join(root, 'state');
  const logged: string[] = [];
  let page = '';
  /** When the key made to expire soon after the test begins expires. */
  let soon = '';

  test.before(async () => {
    const { snapshotDir } = await buildFixture(root);
    const made = await keysCommand('admin-token', 'create', '--name', 'ops-desk', '--state', stateDir);
    assert.is(made.status, 0, made.stderr);
    token = made.stdout.trim();
    // Some keys to show, with some usage.
    // More keys than a page holds, written at once as a large store is (a tenth revoked, a fifth named).
    writeScaleKeys(stateDir, 60);
    soon = new Date(Date.now() + 1500).toISOString();
    for (const args of [['--tier', 'free', '--org', 'acme', '--user', 'fran'], ['--tier', 'commercial', '--org', 'bigco', '--scope', 'org', '--quota', '20', '--grant', 'capstan-serve', '--critpt'], ['--tier', 'pro', '--org', 'acme', '--name', 'short-lived', '--expires', soon]]) {
      const done = await keysCommand('create', ...args, '--state', stateDir, '--snapshot', snapshotDir);
      assert.is(done.status, 0, done.stderr);
    }
    server = await startServer({ ...DEFAULT_OPTIONS, port: 0, adminPort: 0, snapshotDir, stateDir, quiet: true }, { log: (l) => logged.push(l), logError: (l) => logged.push(l) });
    page = `${server.admin!.url}/admin/`;
  });

  test.after(async () => {
    await server?.close();
    for (const line of logged) assert.not.match(line, /bdk_|bdat_/, `a log line holds a key or token: ${line}`);
  });

  async function signIn(browser: Browser): Promise<void> {
    assert.is(await browser.goto(page), 401, 'the page without a sign-in is the login form');
    assert.ok(await browser.exists('form#login'));
    assert.not.ok(await browser.exists('[data-key-id]'), 'no key shown before signing in');
    await browser.fill('input[name=token]', token);
    assert.is(await browser.clickAndWait('form#login button[type=submit]'), 200);
    const cookie = (await browser.cookies()).find((c) => c.name === 'bda_admin');
    assert.ok(cookie, 'signed in with a cookie');
    assert.is(cookie.httpOnly, true);
    assert.is(cookie.sameSite, 'Strict');
    assert.match(cookie.value, /^[A-Za-z0-9_-]{43}$/, 'a session id');
    assert.not.ok(cookie.value.includes(token.slice(5)), 'never the admin token');
    assert.is(await browser.evaluate('document.cookie'), '', 'the page script cannot read the session id');
  }

  async function createKey(browser: Browser, org: string, user: string, name: string): Promise<{ key: string; id: string }> {
    await browser.click('#open-create');
    assert.ok(await browser.evaluate<boolean>("document.getElementById('create-dialog').open"), 'the dialog opens in place');
    await browser.fill('form#create-key select[name=tier]', 'pro');
    await browser.fill('form#create-key input[name=org]', org);
    await browser.fill('form#create-key input[name=user]', user);
    await browser.fill('form#create-key input[name=name]', name);
    assert.is(await browser.clickAndWait('form#create-key button[type=submit]'), 200);
    const key = await browser.evaluate<string>("document.querySelector('#new-key input').value");
    assert.match(key, /^bdk_[A-Za-z0-9_-]{43}$/, 'the new key is shown once');
    assert.ok(await browser.exists('#new-key button.copy'), 'with a copy button');
    assert.not.match(await browser.evaluate<string>('location.href'), /bdk_/, 'never in the address');
    const id = await browser.evaluate<string>("document.getElementById('new-key').dataset.keyId");
    assert.match(id, /^key_[0-9a-f]{12}$/);
    return { key, id };
  }

  /** Search the table for `text`; the ids of the rows shown. */
  async function search(browser: Browser, text: string): Promise<string[]> {
    await browser.fill('#filters input[name=q]', text);
    assert.is(await browser.clickAndWait('#filters button[type=submit]'), 200);
    return browser.evaluate<string[]>("[...document.querySelectorAll('tr.key-row')].map((row) => row.dataset.keyId)");
  }

  test(NAMES.person, async () => {
    const browser = await launchBrowser();
    try {
      await signIn(browser);
      // From a search for its organisation, so the page it comes back to (and its picture) shows it alone.
      assert.is(await browser.goto(`${page}?q=newco`), 200);
      const { key, id } = await createKey(browser, 'newco', 'nia', 'nightly export');
      assert.equal(await browser.evaluate<string[]>("[...document.querySelectorAll('tr.key-row')].map((row) => row.dataset.keyId)"), [id], 'back to the search, the new key in it');
      await browser.screenshot(join(SHOTS, 'admin-new-key.png'));
      assert.is((await get(server.url, PRO_LIST, key)).status, 200, 'the new key works on the public port');
      assert.is((await get(server.url, PRO_LIST, key)).status, 200);
      assert.is(await browser.goto(page), 200);
      assert.equal(await search(browser, 'NIGHTLY'), [id], 'found by its name, in any case');
      const row = await browser.text(`tr.key-row[data-key-id="${id}"]`);
      assert.match(row, /newco\s+nightly export/);
      assert.ok(row.includes(`${key.slice(0, 8)}…${key.slice(-4)}`), `what is kept of the value: ${row}`);
      assert.match(row, /2\s*\/\s*500/, `the usage counts the two requests: ${row}`);
      await browser.screenshot(join(SHOTS, 'admin-keys.png'));

      assert.is(await browser.clickAndWait(`tr.key-row[data-key-id="${id}"] a.key-link`), 200, "the key's own page");
      assert.match(await browser.text('#key'), /nightly export/);
      const today = new Date().toISOString().slice(0, 10);
      const chart = await browser.evaluate<string>("document.querySelector('#key .usage-chart').outerHTML");
      assert.match(chart, new RegExp(`<title>${today}: 2</title>`), 'the chart has today\'s two answers');
      assert.match(await browser.text('#key figcaption'), new RegExp(`2 answers from \\S+ to ${today}, the most on ${today} \\(2\\)`));
      await browser.fill(`form.expiry input[name=expires_at]`, '2099-01-31T09:30');
      assert.is(await browser.clickAndWait('form.expiry button'), 200);
      assert.match(await browser.text('.flash'), new RegExp(`set when ${id} expires`));
      assert.match(await browser.text('#key'), /Expires\s+2099-01-31 09:30 UTC/);

      await browser.fill('form.regenerate select[name=overlap_seconds]', '86400');
      assert.is(await browser.clickAndWait('form.regenerate button'), 200);
      const fresh = await browser.evaluate<string>("document.querySelector('#new-key input').value");
      assert.match(await browser.text('#new-key'), /the old one keeps working until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      assert.equal([(await get(server.url, PRO_LIST, key)).status, (await get(server.url, PRO_LIST, fresh)).status], [200, 200], 'both values work during the overlap');
      assert.match(await browser.text('#key'), /Old value\s+bdk_\S+…\S{4} works until/);
      await browser.screenshot(join(SHOTS, 'admin-key.png'));

      // Revoke: asked for, then confirmed on the page itself (no confirm() of the browser's).
      assert.is(await browser.clickAndWait('#key a.ask-revoke'), 200);
      assert.match(await browser.text('#confirm-revoke'), /Revoke “nightly export” \(key_[0-9a-f]{12}\) of newco\?[\s\S]*cannot be restored/);
      assert.is(await browser.clickAndWait('#cancel-revoke'), 200, 'kept: back to its page');
      assert.not.ok(await browser.exists('#confirm-revoke'));
      assert.is((await get(server.url, PRO_LIST, fresh)).status, 200, 'nothing revoked');
      assert.is(await browser.clickAndWait('#key a.ask-revoke'), 200);
      assert.is(await browser.clickAndWait('#confirm-revoke form.revoke button'), 200);
      assert.match(await browser.text('.flash'), /revoked/i);
      assert.equal([(await get(server.url, PRO_LIST, key)).status, (await get(server.url, PRO_LIST, fresh)).status], [401, 401], 'refused at the next request, both values');
      assert.match(await browser.text('#audit'), /key.revoke[\s\S]*key.regenerate[\s\S]*old value works until: \d{4}-\d\d-\d\d \d\d:\d\d UTC[\s\S]*key.expiry[\s\S]*expires: 2099-01-31 09:30 UTC/, "the key's own changes in words, newest first");
      assert.match(await browser.text('#audit'), /ops-desk/, 'by the signed-in token');
    } finally {
      await browser.close();
    }
  });

  test(NAMES.table, async () => {
    const browser = await launchBrowser();
    try {
      await signIn(browser);
      const pager = await browser.text('.pager');
      const total = Number(/Keys 1–50 of (\d+)/.exec(pager)?.[1]);
      assert.ok(total > 50, pager);
      const firstPage = await browser.evaluate<string[]>("[...document.querySelectorAll('tr.key-row')].map((row) => row.dataset.keyId)");
      assert.is(firstPage.length, 50);
      assert.is(await browser.clickAndWait('.pager a[rel=next]'), 200);
      const secondPage = await browser.evaluate<string[]>("[...document.querySelectorAll('tr.key-row')].map((row) => row.dataset.keyId)");
      assert.ok(secondPage.length > 0 && secondPage.every((id) => !firstPage.includes(id)), 'the next page holds the other keys');
      assert.is(await browser.clickAndWait('th a[href*="sort=name"]'), 200);
      const names = await browser.evaluate<string[]>("[...document.querySelectorAll('tr.key-row td[data-label=Name]')].map((cell) => cell.innerText)");
      const named = names.filter((name) => name !== '-');
      assert.equal(named, [...named].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), 'sorted by name, from page 1');
      assert.match(await browser.evaluate<string>('location.search'), /sort=name/);
      // The key made to expire 1.5 s after it was made: waited for on the real clock, the server's own.
      await until(() => Date.now() > Date.parse(soon), 'the short-lived key has expired');
      await browser.goto(`${page}?state=expired`);
      assert.match(await browser.text('table.keys-table tbody'), /short-lived[\s\S]*expired/);
      assert.equal((await get(server.url, PRO_LIST, 'bdk_' + 'x'.repeat(43))).status, 401);
    } finally {
      await browser.close();
    }
  });

  test(NAMES.phone, async () => {
    const browser = await launchBrowser({ mobile: true });
    try {
      await signIn(browser);
      const width = await browser.evaluate<number>('document.documentElement.scrollWidth');
      assert.ok(width <= 390, `nothing wider than the screen (${width} px)`);
      assert.is(await browser.goto(`${page}?q=phoneco`), 200);
      await createKey(browser, 'phoneco', 'pia', 'phone key');
      await browser.screenshot(join(SHOTS, 'admin-phone.png'));
    } finally {
      await browser.close();
    }
  });

  test(NAMES.forgery, async () => {
    const browser = await launchBrowser();
    try {
      await signIn(browser);
      const id = await browser.evaluate<string>("document.querySelector('tr.key-row[data-state=active]').dataset.keyId");
      assert.is(await browser.goto(`${page}?key=${id}&confirm=revoke`), 200);
      // A form that lost its token, and one that comes from another origin: both 403, nothing
      // changed. Posted from outside the page: its Content Security Policy lets its scripts
      // fetch nothing.
      assert.match(await browser.evaluate<string>("fetch('/admin/').then(() => 'fetched', (e) => String(e))"), /Failed to fetch/, 'the page may not fetch');
      const cookie = (await browser.cookies()).find((c) => c.name === 'bda_admin')!;
      const csrf = await browser.evaluate<string>("document.querySelector('#confirm-revoke form.revoke input[name=csrf]').value");
      const post = (body: string, headers: Record<string, string> = {}) =>
        request(server.admin!.url, `/admin/ui/keys/${id}/revoke`, { method: 'POST', headers: { cookie: `bda_admin=${cookie.value}`, 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
      assert.is((await post('')).status, 403, 'no form token');
      assert.is((await post('csrf=forged')).status, 403, 'a wrong form token');
      assert.is((await post(`csrf=${encodeURIComponent(csrf)}`, { origin: 'http://evil.example' })).status, 403, 'another origin, even with the token');
      assert.is((await post(`csrf=${encodeURIComponent(csrf)}`, { 'sec-fetch-site': 'cross-site' })).status, 403, 'a cross-site request, even with the token');
      assert.is((await browser.goto(`${page}?key=${id}`)), 200);
      assert.ok(await browser.exists(`article.key[data-key-id="${id}"][data-state=active]`), 'nothing was revoked');
      assert.is(await browser.clickAndWait('form#logout button'), 401, 'signed out: the login form');
      assert.not.ok((await browser.cookies()).some((c) => c.name === 'bda_admin'), 'the cookie is gone');
      assert.is((await post(`csrf=${encodeURIComponent(csrf)}`)).status, 401, 'and its session ended: replayed, it signs in no more');
    } finally {
      await browser.close();
    }
  });
}

test.run();
