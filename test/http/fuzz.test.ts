import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { get, request } from '../helpers/http.ts';
import { startTestServer } from '../helpers/server.ts';
import { seededRandom } from '../helpers/random.ts';


const PIECES = ['api', 'v2', 'language', 'models', 'free', 'providers', 'media', 'music', 'data', 'llms', '%', '%zz', '%E0%A4', '..', '.', '', '%2F', 'ü', '%00', 'a'.repeat(300), '{slug}', 'performance', 'measurements', 'critpt', 'evaluate'];
const QUERY_NAMES = ['page', 'prompt_type', 'window', 'interval', 'start_date', 'include_categories', 'x', '', '%', 'page[]', '__proto__', 'constructor'];
const QUERY_VALUES = ['1', '0', '-1', '10001', '1e3', 'long', 'LONG', '7d', 'true', 'yes', '2026-02-30', '', '%', '%FF', 'null', '[]', '{}', '9'.repeat(40)];
const ENCODINGS = ['br', 'gzip', '*;q=0', 'identity;q=0', 'br;q=abc', ',,,', 'gzip;q=0.5, br;q=0.5', 'x'.repeat(200)];

const fuzz = suite('malformed input never produces a 500');

fuzz('should answer thousands of random requests without a 500 and stay up', async () => {
  const t = await startTestServer();
  const random = seededRandom(20261123);
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)];
  const statuses = new Map<number, number>();
  const keys = [t.keys.free, t.keys.pro, t.keys.commercial, 'bdk_short', '', 'x'.repeat(500)];
  try {
    for (let i = 0; i < 2500; i++) {
      const path = `/${Array.from({ length: 1 + Math.floor(random() * 6) }, () => pick(PIECES)).join('/')}`;
      const query = Array.from({ length: Math.floor(random() * 4) }, () => `${pick(QUERY_NAMES)}=${pick(QUERY_VALUES)}`).join('&');
      const headers: Record<string, string> = { 'accept-encoding': pick(ENCODINGS), 'if-none-match': pick(['*', '"x"', 'W/', ',', '']) };
      const key = pick(keys);
      if (key) headers['x-api-key'] = key;
      const method = pick(['GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);
      // Half the time, aim at a real route so the deeper layers get random input too.
      const target = random() < 0.5 ? `${pick(['/api/v2/language/models', '/api/v2/language/models/free', '/api/v2/language/providers/x/measurements', '/api/v2/media/music/with-vocals/models'])}?${query}` : `${path}?${query}`;
      const reply = await request(t.url, target.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c)), { method, headers });
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      // 501 is the deliberate answer for routes not served yet; 503 for unavailable bookkeeping.
      assert.ok(reply.status < 500 || reply.status === 501 || reply.status === 503, `${method} ${target} -> ${reply.status} ${reply.text}`);
      if (method !== 'HEAD' && reply.status !== 304 && !reply.headers['content-encoding']) assert.ok(JSON.parse(reply.text), target);
    }
    // Raw garbage on the socket: node's parser refuses it; the server answers JSON and lives on.
    for (const garbage of ['NONSENSE\r\n\r\n', 'GET /\x00 HTTP/1.1\r\n\r\n', `GET /${'a'.repeat(20000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 'GET / HTTP/1.1\r\nBad Header\r\n\r\n']) {
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(t.running.port, '127.0.0.1', () => socket.end(garbage));
        let data = '';
        socket.on('data', (c) => (data += c));
        socket.on('close', () => resolve(data));
        socket.on('error', () => resolve(data));
      });
      assert.match(answer, /^HTTP\/1\.1 4\d\d /, JSON.stringify(garbage.slice(0, 30)));
    }
    assert.is((await get(t.url, '/api/v2/language/models/free', t.keys.free)).status, 200, 'still serving');
    assert.equal(t.errors, [], 'nothing reached the 500 path');
    assert.ok(statuses.size >= 5, `a spread of answers: ${[...statuses].map(([s, n]) => `${s}x${n}`).join(' ')}`);
  } finally {
    await t.close();
  }
});

fuzz.run();
