/** The front door and the 404s that point to a route, over real HTTP. */
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FRONT_DOOR_CSP, FRONT_DOOR_SCRIPT } from '../../src/shared/front-door-page.ts';
import { CHROMIUM, launchBrowser, skipWithoutChromium } from '../helpers/chromium.ts';
import { request } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
const door = suite('the front door');

door.before(async () => {
  t = await startTestServer();
});
door.after(() => t.close());

door('should answer / and /api/v2 with a JSON index naming the snapshot and linking every route, without a key', async () => {
  for (const path of ['/', '/api/v2']) {
    const reply = await request(t.url, path);
    assert.is(reply.status, 200, path);
    assert.match(String(reply.headers['content-type']), /^application\/json/);
    const index = reply.json();
    assert.is(index.service, 'Benchmark Data API');
    assert.is(index.snapshot.build_id, t.running.snapshots.current.buildId);
    assert.is(index.snapshot.data_as_of, t.running.snapshots.current.manifest.as_of);
    assert.equal(index.links, { openapi: '/api/v2/openapi.json', healthz: '/healthz', readyz: '/readyz' });
    const paths = index.routes.map((r: { path: string }) => r.path);
    assert.ok(paths.includes('/api/v2/language/models/{slug}/performance') && paths.includes('/api/v2/critpt/problems') && paths.includes('/healthz'));
    const detail = index.routes.find((r: { path: string }) => r.path === '/api/v2/language/models/{slug}');
    // A slug is a variable the reader sets, never a model of the data: the page needs no key.
    assert.is(detail.example, 'curl -s -H "x-api-key: $KEY" "$API/language/models/$MODEL"', 'API as the README names it');
    assert.is(index.routes.find((r: { path: string }) => r.path === '/healthz').example, 'curl -s "$BASE/healthz"');
    assert.match(index.routes.find((r: { path: string }) => r.path === '/api/v2/critpt/evaluate').summary, /must be approved for CritPt by the operator/);
    assert.not.ok(paths.includes('/metrics'), 'this server answers /metrics with 404: not listed');
    assert.match(index.description, /BASE the server itself \(e\.g\. http:\/\/127\.0\.0\.1:8080, for \/healthz and \/readyz\)/);
    assert.match(index.description, /MODEL a model's slug \(from \/api\/v2\/language\/models\/free\) and PROVIDER a provider's slug/);
    assert.is(reply.headers['x-ratelimit-limit'], undefined, 'never counted');
  }
});

door('should answer a browser with a plain HTML page with a curl example per route', async () => {
  const reply = await request(t.url, '/', { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
  assert.is(reply.status, 200);
  assert.match(String(reply.headers['content-type']), /^text\/html; charset=utf-8/);
  assert.match(String(reply.headers.vary), /Accept/);
  assert.match(reply.text, /^<!doctype html>/);
  assert.ok(reply.text.includes('<meta name="viewport" content="width=device-width, initial-scale=1">'), 'readable on a phone');
  assert.ok(reply.text.includes(t.running.snapshots.current.buildId));
  assert.ok(reply.text.includes('<a href="/api/v2/openapi.json">'));
  assert.is((reply.text.match(/<pre>curl /g) ?? []).length, (await request(t.url, '/api/v2')).json().routes.length);
  // One script, the one the page's policy allows by its hash (and nothing else to fetch or run).
  assert.equal([...reply.text.matchAll(/<script>([^<]*)<\/script>/g)].map((m) => m[1]), [FRONT_DOOR_SCRIPT]);
  assert.is(reply.headers['content-security-policy'], FRONT_DOOR_CSP);
  const hash = createHash('sha256').update(FRONT_DOOR_SCRIPT).digest('base64');
  assert.ok(FRONT_DOOR_CSP.includes(`script-src 'sha256-${hash}';`) && FRONT_DOOR_CSP.startsWith("default-src 'none';"));
  assert.is((await request(t.url, '/')).headers['content-security-policy'], undefined, 'the JSON has no page to guard');
  assert.match((await request(t.url, '/api/v2?format=json', { headers: { accept: 'text/html' } })).text, /^\{/);
  assert.match((await request(t.url, '/api/v2?format=html')).text, /^<!doctype html>/);
  assert.is((await request(t.url, '/?format=xml')).status, 400);
});

const ADDRESS_SHOWN = 'should show a browser the address it reached the page on, under the page\'s own policy';
if (!CHROMIUM) skipWithoutChromium(door, [ADDRESS_SHOWN]);
else door(ADDRESS_SHOWN, async () => {
  const browser = await launchBrowser();
  try {
    // 127.0.0.1 and localhost are two addresses of one server: each page names the one it was reached on.
    for (const origin of [t.url, t.url.replace('127.0.0.1', 'localhost')]) {
      assert.is(await browser.goto(`${origin}/`), 200);
      assert.is(await browser.text('code[data-origin]'), origin);
      assert.match(await browser.text('pre'), new RegExp(`^API=${origin}/api/v2\nBASE=${origin}\nKEY=your-key$`));
      assert.is(await browser.evaluate('getComputedStyle(document.body).fontFamily'), 'sans-serif', 'the style applies');
    }
  } finally {
    await browser.close();
  }
});

door('should list /metrics, in JSON and in HTML, only on a server that serves it', async () => {
  const withMetrics = await startTestServer({ server: { metrics: true } });
  try {
    for (const server of [t, withMetrics]) {
      const listed = (await request(server.url, '/')).json().routes.find((r: { path: string }) => r.path === '/metrics');
      const page = (await request(server.url, '/?format=html')).text;
      const served = (await request(server.url, '/metrics')).status === 200;
      assert.is(Boolean(listed), served, 'JSON lists /metrics exactly when it is served');
      assert.is(page.includes('<code>GET /metrics</code>'), served, 'HTML too');
      if (served) {
        assert.match(listed.summary, /only when the server runs with --metrics \(404 otherwise\)/);
        assert.match((await request(server.url, '/')).json().description, /for \/healthz, \/readyz and \/metrics\)/);
      }
    }
  } finally {
    await withMetrics.close();
  }
});

door.run();

const nearest = suite('a 404 under /api/v2');

nearest.before(async () => {
  t = await startTestServer();
});
nearest.after(() => t.close());

nearest('should name the route meant by a trailing slash, the wrong case or an arena name off by a letter', async () => {
  const cases = {
    '/api/v2/language/models/': '/api/v2/language/models',
    '/api/v2/Language/Models/free': '/api/v2/language/models/free',
    '/api/v2/media/text-to-imag/models': '/api/v2/media/text-to-image/models',
    '/api/v2/language/providers/capstan-serve/measurement': '/api/v2/language/providers/capstan-serve/measurements',
  };
  for (const [path, meant] of Object.entries(cases)) {
    const reply = await request(t.url, path, { headers: { 'x-api-key': t.keys.pro } });
    assert.is(reply.status, 404, path);
    assert.equal(reply.json(), { error: `Not found: ${path}; did you mean ${meant}?`, details: { path, nearest: meant } });
  }
  const far = await request(t.url, '/api/v2/something/else');
  assert.equal(far.json(), { error: 'Not found: /api/v2/something/else', details: { path: '/api/v2/something/else' } });
});

/** The fastest of `times` answers to `path`, one after another (ms): a busy machine only ever lengthens one. */
async function fastest(path: string, times: number): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    const reply = await request(t.url, path);
    best = Math.min(best, performance.now() - t0);
    assert.is(reply.status, 404, path);
  }
  return best;
}

nearest('should answer a 404 with an 8,100-character segment, without a key, about as fast as one of the same length nothing is compared with', async () => {
  const hostile = `/api/v2/media/${'c'.repeat(8_100)}/models`;
  const reply = await request(t.url, hostile);
  assert.equal(reply.json().details, { path: hostile }, 'nothing is suggested for a segment no route could be');
  // The baseline: a 404 of the same length outside /api/v2, which no route is compared with, so
  // the two differ only by the search for a route meant, and no figure of this machine decides.
  const ordinary = await fastest(`/api/v3/media/${'c'.repeat(8_100)}/models`, 20);
  const costly = await fastest(hostile, 20);
  // Compared letter by letter with every template it took 34 ms of CPU against 0.19 ms, over
  // HTTP some 70 times an ordinary 404; bounded, it is about the cost of the bytes themselves.
  assert.ok(costly < 5 * ordinary, `a hostile 404 took ${costly.toFixed(2)} ms, one of the same length outside /api/v2 ${ordinary.toFixed(2)} ms`);
});

nearest.run();
