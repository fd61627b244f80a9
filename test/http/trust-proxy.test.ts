/**
 * Behind a reverse proxy (--trust-proxy): the real server on loopback, spoken to as a proxy on this
 * host would. With the flag, the access log and the admin audit trail name the client the proxy
 * forwarded (X-Forwarded-For, several header fields as one list), a malformed header crashes
 * nothing and vouches for nothing, and the page's cookie is Secure when the proxy says HTTPS; a
 * peer outside the trusted blocks, and a server without the flag, are believed nothing.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AddressSet } from '../../src/lib/address-set.ts';
import { get, rawExchange, request, type Reply } from '../helpers/http.ts';
import { keysCommand } from '../helpers/redis.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

const FREE_LIST = '/api/v2/language/models/free';

const test = suite('--trust-proxy');

/** Behind a proxy on this host; believing a proxy elsewhere only; believing nothing. */
let proxied: TestServer;
let elsewhere: TestServer;
let plain: TestServer;
const tokens = new Map<TestServer, string>();

async function start(trustProxy: string | null): Promise<TestServer> {
  const server = await startTestServer({ server: { adminPort: 0, trustProxy: trustProxy === null ? null : AddressSet.parse(trustProxy) } });
  const made = await keysCommand('admin-token', 'create', '--name', 'ops', '--state', server.stateDir);
  assert.is(made.status, 0, made.stderr);
  tokens.set(server, made.stdout.trim());
  return server;
}

test.before(async () => {
  [proxied, elsewhere, plain] = await Promise.all([start('loopback'), start('10.0.0.0/8, 2001:db8::/32'), start(null)]);
});

test.after(async () => {
  await Promise.all([proxied, elsewhere, plain].map((server) => server?.close()));
  for (const server of [proxied, elsewhere, plain])
    for (const line of server?.errors ?? []) assert.not.match(line, /bdk_|bdat_/, `a log line holds a key or token: ${line}`);
});

/** The access log line of the next request `send` makes. */
async function loggedClient(server: TestServer, send: () => Promise<unknown>): Promise<unknown> {
  const from = server.accessLog.length;
  await send();
  await until(() => server.accessLog.length > from, 'the request is logged');
  return server.accessLog[from].client;
}

const viaProxy = (server: TestServer, forwardedFor: string) =>
  get(server.url, FREE_LIST, server.keys.free, { 'x-forwarded-for': forwardedFor });

test('should log the client a trusted proxy forwarded, the right-most untrusted hop', async () => {
  assert.is(await loggedClient(proxied, () => viaProxy(proxied, '198.51.100.7')), '198.51.100.7');
  assert.is(await loggedClient(proxied, () => viaProxy(proxied, '6.6.6.6, 198.51.100.7, 127.0.0.1')), '198.51.100.7', 'a forged entry left of it is never read');
  assert.is(await loggedClient(proxied, () => get(proxied.url, FREE_LIST, proxied.keys.free)), '127.0.0.1', 'no header: the proxy itself');
  assert.is(await loggedClient(proxied, () => get(proxied.url, '/healthz', undefined, { 'x-forwarded-for': '[2001:db8::9]:443' })), '2001:db8::9');
});

test('should join several X-Forwarded-For fields in order, as one list', async () => {
  const { port } = new URL(proxied.url);
  const head = [
    `GET ${FREE_LIST} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    `x-api-key: ${proxied.keys.free}`,
    'X-Forwarded-For: 6.6.6.6',
    'X-Forwarded-For: 198.51.100.8, 127.0.0.1',
    'Connection: close',
  ];
  const client = await loggedClient(proxied, () => rawExchange(proxied.url, `${head.join('\r\n')}\r\n\r\n`));
  assert.is(client, '198.51.100.8');
});

test('should answer as ever, and believe nothing past it, whatever junk the header holds', async () => {
  for (const junk of ['unknown', '<script>alert(1)</script>', '1.2.3.4.5, 999.0.0.1', ',,,', '', 'x'.repeat(8000), `198.51.100.9,${'127.0.0.1,'.repeat(1500)}127.0.0.1`, '198.51.100.7, _hidden']) {
    let reply: Reply | undefined;
    const client = await loggedClient(proxied, async () => (reply = await viaProxy(proxied, junk)));
    assert.is(reply!.status, 200, junk.slice(0, 40));
    assert.is(client, '127.0.0.1', `${junk.slice(0, 40)}: the proxy's own address`);
  }
  assert.equal(proxied.errors.filter((line) => !line.startsWith('warning: no admin token')), [], 'nothing failed');
});

test('should believe no peer outside the trusted blocks, and nothing without the flag', async () => {
  assert.is(await loggedClient(elsewhere, () => viaProxy(elsewhere, '198.51.100.7')), '127.0.0.1');
  assert.is(await loggedClient(plain, () => viaProxy(plain, '198.51.100.7')), '127.0.0.1');
});

/** An admin API change through the proxy, and the `from` of its audit entry. */
async function auditedFrom(server: TestServer, forwardedFor: string): Promise<string> {
  const auth = { authorization: `Bearer ${tokens.get(server)}` };
  const made = await request(server.running.admin!.url, '/admin/api/keys', {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ tier: 'free', org: 'proxied' }),
  });
  assert.is(made.status, 201, made.text);
  const audit = await request(server.running.admin!.url, '/admin/api/audit?limit=1', { headers: auth });
  const [entry] = audit.json().data;
  assert.is(entry.key, made.json().record.id);
  return entry.from;
}

test("should write the forwarded client as the audit trail's from, on the admin listener too", async () => {
  assert.is(await auditedFrom(proxied, '203.0.113.50'), '203.0.113.50');
  assert.match(await auditedFrom(plain, '203.0.113.50'), /127\.0\.0\.1/);
  assert.match(await auditedFrom(elsewhere, '203.0.113.50'), /127\.0\.0\.1/);
});

/** Sign in to the page as a browser behind the proxy would; the Set-Cookie it gets. */
async function signInCookie(server: TestServer, headers: Record<string, string>): Promise<string> {
  const reply = await request(server.running.admin!.url, '/admin/login', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: `token=${encodeURIComponent(tokens.get(server)!)}`,
  });
  assert.is(reply.status, 303, reply.text);
  return String(reply.headers['set-cookie']);
}

test('should make the page cookie Secure when a trusted proxy says the browser spoke HTTPS, and only then', async () => {
  const https = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.50' };
  assert.match(await signInCookie(proxied, https), /; Secure$/);
  assert.match(await signInCookie(proxied, { ...https, origin: `https://${new URL(proxied.running.admin!.url).host}` }), /; Secure$/, 'its https:// Origin is its own');
  assert.not.match(await signInCookie(proxied, { 'x-forwarded-proto': 'http' }), /Secure/);
  assert.not.match(await signInCookie(plain, https), /Secure/, 'without the flag the header is nobody\'s word');
  assert.not.match(await signInCookie(elsewhere, https), /Secure/);
});

test.run();
