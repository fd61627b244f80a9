/** HTTP as RFC 9112 and RFC 9110 say: request-target forms, Host, header lines, versions, `If-None-Match: *`. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { get, request, rawExchange } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;

function raw(text: string): Promise<string> {
  return rawExchange(t.url, text);
}

/** Status, header fields (lowercased names) and body of a raw HTTP answer. */
function parsed(answer: string): { status: number; headers: Record<string, string>; body: string } {
  const end = answer.indexOf('\r\n\r\n');
  const [line, ...fields] = answer.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]));
  return { status: Number(line.split(' ')[1]), headers, body: answer.slice(end + 4) };
}

const json = (body: string) => JSON.parse(body) as { error: string; details: Record<string, unknown> };

const rfc = suite('HTTP as the RFCs say');
rfc.before(async () => {
  t = await startTestServer({ server: { metrics: true } });
});
rfc.after(async () => t.close());

rfc('should serve an absolute-form target as its path, whatever its authority (RFC 9112, 3.2.2)', async () => {
  const path = '/api/v2/language/models/free';
  const plain = await get(t.url, path, t.keys.free);
  assert.is(plain.status, 200);
  for (const target of [`http://elsewhere.example${path}`, `HTTP://127.0.0.1:1${path}?page=1`]) {
    const answer = parsed(await raw(`GET ${target} HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${t.keys.free}\r\nConnection: close\r\n\r\n`));
    assert.is(answer.status, 200, target);
    assert.is(answer.headers.etag, plain.headers.etag, target);
  }
  const root = parsed(await raw('GET http://example.org HTTP/1.1\r\nHost: example.org\r\nConnection: close\r\n\r\n'));
  assert.is(root.status, 200, 'an absolute-form target without a path is the root: the front door');
  const other = parsed(await raw('GET ftp://example.org/api/v2 HTTP/1.1\r\nHost: example.org\r\nConnection: close\r\n\r\n'));
  assert.is(other.status, 400);
  assert.is(json(other.body).details.field, 'target');
});

rfc('should answer OPTIONS * with the methods the server answers, and * with any other method with 400', async () => {
  const options = parsed(await raw('OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
  assert.is(options.status, 204);
  assert.is(options.headers.allow, 'GET, HEAD, POST');
  assert.is(options.body, '');
  const get = parsed(await raw('GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
  assert.equal([get.status, json(get.body).details.field], [400, 'target']);
});

rfc('should refuse a repeated Host header with 400 (RFC 9112, 3.2)', async () => {
  for (const second of ['Host: y', 'host: x']) {
    const answer = parsed(await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\n${second}\r\nConnection: close\r\n\r\n`));
    assert.equal([answer.status, json(answer.body).error], [400, 'More than one Host header'], second);
  }
});

rfc('should answer 431 past 100 header lines, where node would drop the rest without a word', async () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `x-h${i}: 1\r\n`).join('');
  // Host and Connection are two of the hundred.
  const within = parsed(await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${lines(98)}\r\n`));
  assert.is(within.status, 200);
  for (const n of [99, 1500]) {
    const over = parsed(await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${lines(n)}\r\n`));
    assert.equal([over.status, json(over.body).details.limit], [431, 100], `${n + 2} lines`);
  }
});

rfc('should say what is wrong with a request line that is not HTTP/1.x', async () => {
  const simple = parsed(await raw('GET /healthz\r\n\r\n'));
  assert.is(simple.status, 400);
  assert.match(json(simple.body).error, 'HTTP/0.9 is not served');
  const two = parsed(await raw('GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n'));
  assert.is(two.status, 505);
});

/** Body lookups so far (the LRU's hits and misses), from the metrics. */
async function lookups(): Promise<number> {
  const text = (await get(t.url, '/metrics')).text;
  return [...text.matchAll(/^bda_cache_lookups_total\{result="(?:hit|miss)"\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

rfc('should answer If-None-Match: * with 304 and the ETag of the 200, without looking the body up', async () => {
  for (const [path, key] of [
    ['/api/v2/language/models/free', t.keys.free],
    ['/api/v2/openapi.json', undefined],
  ] as const) {
    for (const encoding of ['identity', 'gzip', 'br']) {
      const before = await lookups();
      const any = await get(t.url, path, key, { 'accept-encoding': encoding, 'if-none-match': '*' });
      assert.is(any.status, 304, `${path} ${encoding}`);
      assert.is(await lookups(), before, `${path} ${encoding}: no body looked up`);
      const full = await get(t.url, path, key, { 'accept-encoding': encoding });
      assert.is(any.headers.etag, full.headers.etag, `${path} ${encoding}`);
      assert.is(any.headers.vary, full.headers.vary);
    }
  }
  // Only a body that exists matches: an unknown slug is still 404, a page past the last still the empty page.
  assert.is((await get(t.url, '/api/v2/language/models/no-such-model', t.keys.pro, { 'if-none-match': '*' })).status, 404);
  assert.is((await get(t.url, '/api/v2/language/models?page=999', t.keys.pro, { 'if-none-match': '*' })).status, 304);
  assert.is((await request(t.url, '/api/v2/language/models/free', { headers: { 'if-none-match': '*' } })).status, 401, 'and never without a key');
});

rfc('should log nothing as a server error for all of the above', async () => {
  assert.equal(t.errors, []);
});

rfc.run();
