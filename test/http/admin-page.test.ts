/**
 * The key-management page as a person uses it, in headless Chromium (Debian's `chromium`, driven
 * over its DevTools pipe by test/helpers/chromium.ts): sign in with an admin token, create a key,
 * see it with its usage, revoke it, and the revoked key refused on the public port at its next
 * request; on a phone-sized screen too. `UPDATE_SCREENSHOTS=1` writes the README's screenshots
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

const PRO_LIST = '/api/v2/language/models';
const root = mkdtempSync(join(tmpdir(), 'admin-page-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs/images') : join(root, 'shots');

const NAMES = {
  person: 'should let a person sign in, create a key, see it, revoke it, and the public port refuse it at the next request',
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

  test.before(async () => {
    const { snapshotDir } = await buildFixture(root);
    const made = await keysCommand('admin-token', 'create', '--name', 'ops-desk', '--state', stateDir);
    assert.is(made.status, 0, made.stderr);
    token = made.stdout.trim();
    // Some keys to show, with some usage.
    for (const args of [['--tier', 'free', '--org', 'acme', '--user', 'fran'], ['--tier', 'commercial', '--org', 'bigco', '--scope', 'org', '--quota', '20', '--grant', 'capstan-serve', '--critpt']]) {
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

  async function createKey(browser: Browser, org: string, user: string): Promise<{ key: string; id: string }> {
    await browser.fill('form#create-key select[name=tier]', 'pro');
    await browser.fill('form#create-key input[name=org]', org);
    await browser.fill('form#create-key input[name=user]', user);
    assert.is(await browser.clickAndWait('form#create-key button[type=submit]'), 200);
    const key = await browser.evaluate<string>("document.querySelector('#new-key input').value");
    assert.match(key, /^bdk_[A-Za-z0-9_-]{43}$/, 'the new key is shown once');
    assert.ok(await browser.exists('#new-key button.copy'), 'with a copy button');
    assert.not.match(await browser.evaluate<string>('location.href'), /bdk_/, 'never in the address');
    const id = await browser.evaluate<string>(`[...document.querySelectorAll('[data-key-id]')].find((e) => e.textContent.includes(${JSON.stringify(user)}))?.dataset.keyId ?? ''`);
    assert.match(id, /^key_[0-9a-f]{12}$/, 'the new key is listed under its organisation');
    return { key, id };
  }

  test(NAMES.person, async () => {
    const browser = await launchBrowser();
    try {
      await signIn(browser);
      const { key, id } = await createKey(browser, 'newco', 'nia');
      await browser.screenshot(join(SHOTS, 'admin-new-key.png'));
      assert.is((await get(server.url, PRO_LIST, key)).status, 200, 'the new key works on the public port');
      assert.is((await get(server.url, PRO_LIST, key)).status, 200);
      assert.is(await browser.goto(page), 200);
      const usage = await browser.text(`[data-key-id="${id}"] .usage[data-kind="data"]`);
      assert.match(usage, /2\s*\/\s*500/, `the usage bar counts the two requests: ${usage}`);

      // Revoke: the button's confirm() is answered yes by the page's own dialog handling being off in headless runs.
      await browser.evaluate('window.confirm = () => true');
      assert.is(await browser.clickAndWait(`[data-key-id="${id}"] form.revoke button`), 200);
      assert.match(await browser.text('.flash'), /revoked/i);
      assert.is((await get(server.url, PRO_LIST, key)).status, 401, 'refused at the next request');
      assert.match(await browser.text('#audit'), new RegExp(`key.revoke[\\s\\S]*${id}|${id}[\\s\\S]*key.revoke`), 'the audit trail shows the revocation');
      assert.match(await browser.text('#audit'), /ops-desk/, 'by the signed-in token');
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
      await createKey(browser, 'phoneco', 'pia');
      await browser.screenshot(join(SHOTS, 'admin-phone.png'));
    } finally {
      await browser.close();
    }
  });

  test(NAMES.forgery, async () => {
    const browser = await launchBrowser();
    try {
      await signIn(browser);
      const id = await browser.evaluate<string>("document.querySelector('[data-key-id]').dataset.keyId");
      // A form that lost its token, and one that comes from another origin: both 403, nothing
      // changed. Posted from outside the page: its Content Security Policy lets its scripts
      // fetch nothing.
      assert.match(await browser.evaluate<string>("fetch('/admin/').then(() => 'fetched', (e) => String(e))"), /Failed to fetch/, 'the page may not fetch');
      const cookie = (await browser.cookies()).find((c) => c.name === 'bda_admin')!;
      const csrf = await browser.evaluate<string>(`document.querySelector('[data-key-id="${id}"] form.revoke input[name=csrf]').value`);
      const post = (body: string, headers: Record<string, string> = {}) =>
        request(server.admin!.url, `/admin/ui/keys/${id}/revoke`, { method: 'POST', headers: { cookie: `bda_admin=${cookie.value}`, 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
      assert.is((await post('')).status, 403, 'no form token');
      assert.is((await post('csrf=forged')).status, 403, 'a wrong form token');
      assert.is((await post(`csrf=${encodeURIComponent(csrf)}`, { origin: 'http://evil.example' })).status, 403, 'another origin, even with the token');
      assert.is((await post(`csrf=${encodeURIComponent(csrf)}`, { 'sec-fetch-site': 'cross-site' })).status, 403, 'a cross-site request, even with the token');
      assert.is((await browser.goto(page)), 200);
      assert.not.ok(await browser.exists(`[data-key-id="${id}"].revoked`), 'nothing was revoked');
      assert.is(await browser.clickAndWait('form#logout button'), 401, 'signed out: the login form');
      assert.not.ok((await browser.cookies()).some((c) => c.name === 'bda_admin'), 'the cookie is gone');
      assert.is((await post(`csrf=${encodeURIComponent(csrf)}`)).status, 401, 'and its session ended: replayed, it signs in no more');
    } finally {
      await browser.close();
    }
  });
}

test.run();
