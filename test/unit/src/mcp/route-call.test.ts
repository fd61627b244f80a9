import { Socket } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { crc32, gzipEnd, gzipStart, tableCrc32 } from '../../../../src/mcp/gzip-member.ts';
import { RouteCaller, type RequestHandler } from '../../../../src/mcp/route-call.ts';

const calls = suite('A route call answered in process');

/** The MCP request a call is made for: a socket that was never connected, with a forwarded address. */
function agentRequest(): IncomingMessage {
  return { socket: new Socket(), headers: { 'x-forwarded-for': '203.0.113.9' } } as unknown as IncomingMessage;
}

calls('should ask the handler as a client would, and keep what it writes', async () => {
  let seen: IncomingMessage | undefined;
  let closed = 0;
  const handle: RequestHandler = (req, res) => {
    seen = req;
    res.on('close', () => closed++);
    res.writeHead(200, ['Content-Type', 'application/json', 'X-RateLimit-Remaining', 41, 'ETag', '"abc"']);
    res.end(Buffer.from('{"data":[]}'));
  };
  const from = agentRequest();
  const answer = await new RouteCaller(handle).get('/api/v2/x?page=2', { key: 'bdk_k', from }, 'gzip');
  assert.is(seen!.method, 'GET');
  assert.is(seen!.url, '/api/v2/x?page=2');
  assert.is(seen!.socket, from.socket);
  assert.equal(seen!.headers, {
    'accept-encoding': 'gzip',
    accept: 'application/json',
    'x-api-key': 'bdk_k',
    'x-forwarded-for': '203.0.113.9',
  });
  assert.ok(seen!.complete);
  assert.is(answer.status, 200);
  assert.equal(answer.headers, { 'content-type': 'application/json', 'x-ratelimit-remaining': '41', etag: '"abc"' });
  assert.is(answer.body.toString(), '{"data":[]}');
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(closed, 1, 'the response closes once, after it ends');
});

calls('should keep headers given as an object, a body written in pieces, and no key when there is none', async () => {
  let key: unknown = 'unset';
  const handle: RequestHandler = (req, res) => {
    key = req.headers['x-api-key'];
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.write('{"error":');
    res.end('"Not Found"}');
  };
  const answer = await new RouteCaller(handle).get('/nowhere', { key: null, from: agentRequest() });
  assert.is(key, undefined);
  assert.is(answer.status, 404);
  assert.is(answer.body.toString(), '{"error":"Not Found"}');
});

calls('should reject when the answer is cut off, and close the response', async () => {
  let closed = false;
  const handle: RequestHandler = (_req, res) => {
    res.on('close', () => (closed = true));
    res.destroy();
  };
  const cut = await new RouteCaller(handle).get('/cut', { key: 'k', from: agentRequest() }).catch((e: Error) => e);
  assert.instance(cut, Error);
  assert.match((cut as Error).message, /\/cut: the answer was cut off/);
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(closed);
});

calls('should refuse headers written twice, as node:http does', async () => {
  const handle: RequestHandler = (_req, res: ServerResponse) => {
    res.writeHead(200, []);
    assert.throws(() => res.writeHead(500, []), /headers written twice/);
    res.end();
  };
  assert.is((await new RouteCaller(handle).get('/twice', { key: 'k', from: agentRequest() })).status, 200);
});

const gzip = suite('One gzip member, its start made once');

gzip("should compute node's CRC-32 and the table's alike, going on from a previous one", () => {
  const bytes = Buffer.from('{"jsonrpc":"2.0","result":{"content":[]}} and more, with ünïcode');
  assert.is(crc32(bytes), tableCrc32(bytes));
  assert.is(crc32(bytes.subarray(10), crc32(bytes.subarray(0, 10))), crc32(bytes));
  assert.is(tableCrc32(bytes.subarray(10), tableCrc32(bytes.subarray(0, 10))), tableCrc32(bytes));
  // An empty buffer that was cut from (its address may be null, where zlib answers 0): the CRC goes on.
  const empty = Buffer.alloc(0);
  empty.subarray(0, 5);
  assert.is(crc32(empty, 2553295267), 2553295267);
});

gzip('should make a start and each end one stream that gunzip reads whole, ends past a stored block too', () => {
  const start = gzipStart(Buffer.from('{"a":"' + 'x'.repeat(100_000) + '",'));
  for (const end of [Buffer.from('"id":1}'), Buffer.alloc(0), Buffer.alloc(70_000, 'y')]) {
    const whole = Buffer.concat([start.bytes, ...gzipEnd(start, end)]);
    const read = gunzipSync(whole).toString();
    assert.is(read.length, start.length + end.length);
    assert.ok(read.endsWith(end.toString()));
  }
});

calls.run();
gzip.run();
