import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { leaseSize, WINDOW_MS } from '../../src/quota/window.ts';
import { get, request } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const FREE_LIST = '/api/v2/language/models/free';

function limits(reply: { headers: Record<string, unknown> }) {
  return {
    limit: Number(reply.headers['x-ratelimit-limit']),
    remaining: Number(reply.headers['x-ratelimit-remaining']),
    reset: Number(reply.headers['x-ratelimit-reset']),
  };
}

let t: TestServer;

const quota = suite('daily quota over HTTP');
quota.before(async () => {
  t = await startTestServer({
    keys: {
      free: { tier: 'free', org: 'acme', user: 'fran' },
      orgA: { tier: 'pro', org: 'shared', user: 'a', scope: 'org' },
      orgB: { tier: 'pro', org: 'shared', user: 'b', scope: 'org' },
      userA: { tier: 'pro', org: 'split', user: 'a', scope: 'user' },
      userB: { tier: 'pro', org: 'split', user: 'b', scope: 'user' },
      big: { tier: 'commercial', org: 'bigco', quota: 3 },
      default: { tier: 'commercial', org: 'otherco' },
    },
  });
});
quota.after(async () => t.close());

quota('should open the window on the first counted request and report exact headers', async () => {
  const opened = t.clock.t;
  const first = await get(t.url, FREE_LIST, t.keys.free);
  assert.equal(limits(first), { limit: 100, remaining: 99, reset: Math.ceil((opened + WINDOW_MS) / 1000) });
  t.clock.advance(60_000);
  const second = await get(t.url, FREE_LIST, t.keys.free);
  assert.equal(limits(second), { limit: 100, remaining: 98, reset: Math.ceil((opened + WINDOW_MS) / 1000) });
});

quota('should not count errors, 304s or HEAD requests', async () => {
  const before = limits(await get(t.url, FREE_LIST, t.keys.free));
  const etag = String((await get(t.url, FREE_LIST, t.keys.free)).headers.etag);
  const notModified = await get(t.url, FREE_LIST, t.keys.free, { 'if-none-match': etag });
  assert.is(notModified.status, 304);
  assert.is(limits(notModified).remaining, before.remaining - 1, '304 carries the headers and is free');
  assert.is((await get(t.url, '/api/v2/language/models', t.keys.free)).status, 403);
  assert.is((await get(t.url, `${FREE_LIST}?page=abc`, t.keys.free)).status, 400);
  await request(t.url, FREE_LIST, { method: 'HEAD', headers: { 'x-api-key': t.keys.free } });
  assert.is(limits(await get(t.url, FREE_LIST, t.keys.free)).remaining, before.remaining - 2);
});

quota('should refuse the 101st Free request with 429 and a correct Retry-After', async () => {
  let last = await get(t.url, FREE_LIST, t.keys.free);
  while (limits(last).remaining > 0) last = await get(t.url, FREE_LIST, t.keys.free);
  assert.is(last.status, 200);
  const reset = limits(last).reset;
  t.clock.advance(3_600_000);
  const refused = await get(t.url, FREE_LIST, t.keys.free);
  assert.is(refused.status, 429);
  assert.is(refused.json().error, 'Rate limit exceeded');
  assert.equal(limits(refused), { limit: 100, remaining: 0, reset });
  assert.is(Number(refused.headers['retry-after']), reset - Math.ceil(t.clock.t / 1000));
  assert.is(refused.headers['x-platform-tier'], 'free');
  // HEAD mirrors GET, so it is refused too; a conditional request proving the copy is current is still answered.
  assert.is((await request(t.url, FREE_LIST, { method: 'HEAD', headers: { 'x-api-key': t.keys.free } })).status, 429);
  assert.is((await get(t.url, FREE_LIST, t.keys.free, { 'if-none-match': String(last.headers.etag) })).status, 304);
});

quota('should give the whole quota back when the window ends', async () => {
  const reset = limits(await get(t.url, FREE_LIST, t.keys.free)).reset;
  t.clock.t = reset * 1000;
  const fresh = await get(t.url, FREE_LIST, t.keys.free);
  assert.is(fresh.status, 200);
  assert.is(limits(fresh).remaining, 99);
  assert.is(limits(fresh).reset, Math.ceil((t.clock.t + WINDOW_MS) / 1000));
});

quota('should share one counter between keys of an org-scoped org and not of a user-scoped one', async () => {
  await get(t.url, FREE_LIST, t.keys.orgA);
  await get(t.url, FREE_LIST, t.keys.orgA);
  assert.is(limits(await get(t.url, FREE_LIST, t.keys.orgB)).remaining, 497);
  await get(t.url, FREE_LIST, t.keys.userA);
  await get(t.url, FREE_LIST, t.keys.userA);
  assert.is(limits(await get(t.url, FREE_LIST, t.keys.userB)).remaining, 499);
});

quota('should use a Commercial key\'s custom quota, or the default', async () => {
  for (let i = 0; i < 3; i++) assert.is((await get(t.url, FREE_LIST, t.keys.big)).status, 200);
  assert.is((await get(t.url, FREE_LIST, t.keys.big)).status, 429);
  assert.is(limits(await get(t.url, FREE_LIST, t.keys.default)).limit, 10_000);
});

quota('should answer 503 with Retry-After, count nothing and send no data while the journal cannot be written', async () => {
  // Answers inside a lease already written need no write: use the Pro key's lease (5 of its 500) up.
  let before = limits(await get(t.url, FREE_LIST, t.keys.userA)).remaining;
  while ((500 - before) % leaseSize(500) !== 0) before = limits(await get(t.url, FREE_LIST, t.keys.userA)).remaining;
  const journal = (t.running.quota as unknown as { journal: { fd: number } }).journal;
  const journalFd = journal.fd;
  // A descriptor that is not open: every journal write throws, as on a failed disk.
  journal.fd = 987654;
  try {
    const refused = await get(t.url, FREE_LIST, t.keys.userA);
    assert.is(refused.status, 503);
    assert.is(refused.headers['retry-after'], '10');
    assert.match(refused.json().error, /Quota bookkeeping is unavailable/);
    assert.not.ok('data' in refused.json(), 'no data is sent for an unrecorded request');
    const ready = await get(t.url, '/readyz');
    assert.is(ready.status, 503, '/readyz says not ready while writes fail');
    assert.match(ready.json().details.reason, /quota journal writes fail/);
  } finally {
    journal.fd = journalFd;
  }
  assert.ok(t.errors.some((line) => line.includes('quota journal write failed')));
  const after = await get(t.url, FREE_LIST, t.keys.userA);
  assert.is(after.status, 200);
  assert.is(limits(after).remaining, before - 1, 'the refused request was not counted');
  assert.is((await get(t.url, '/readyz')).status, 200, 'ready again once a write succeeds');
});

quota('should end the window exactly 24 hours after its first request, its reset rounded up to the whole second', async () => {
  const key = t.addKey('fractional', { tier: 'free', org: 'frac', user: 'f' });
  t.clock.t = Date.UTC(2026, 11, 1, 9, 30, 15, 400); // 2026-12-01T09:30:15.400Z
  const first = await get(t.url, FREE_LIST, key);
  // The window ends 2026-12-02T09:30:15.400Z = 1796203815.4 s: a client waiting until 1796203815 would be early.
  assert.equal(limits(first), { limit: 100, remaining: 99, reset: 1796203816 });
  t.clock.advance(86_399_999); // one millisecond before the end: the same window
  const last = await get(t.url, FREE_LIST, key);
  assert.equal(limits(last), { limit: 100, remaining: 98, reset: 1796203816 });
  t.clock.advance(1); // the end: the next request opens a new window
  const next = await get(t.url, FREE_LIST, key);
  assert.equal(limits(next), { limit: 100, remaining: 99, reset: 1796290216 });
});

quota.run();

const later = suite('a quota counter that answers later');

later('should count, answer with its headers and refuse at the limit when every answer of the counter is a promise', async () => {
  // A stand-in for a store across the network: the file-backed book behind a turn of delay.
  const delay = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 1));
  const s = await startTestServer({
    keys: { small: { tier: 'commercial', org: 'remote', quota: 2, critpt: true } },
    counter: (book) => ({
      status: (kind, scope, limit) => delay(book.status(kind, scope, limit)),
      take: (kind, scope, limit) => delay(book.take(kind, scope, limit)),
      reserve: (kind, scope, limit) => delay(book.reserve(kind, scope, limit)),
    }),
  });
  try {
    const first = await get(s.url, FREE_LIST, s.keys.small);
    const second = await get(s.url, FREE_LIST, s.keys.small);
    const third = await get(s.url, FREE_LIST, s.keys.small);
    assert.equal([first.status, second.status, third.status], [200, 200, 429]);
    assert.equal([limits(first).remaining, limits(second).remaining, limits(third).remaining], [1, 0, 0]);
    assert.is(third.headers['retry-after'], '86400');
    const critpt = await request(s.url, '/api/v2/critpt/evaluate', { method: 'POST', body: readFileSync(new URL('../../examples/critpt-batch.json', import.meta.url)), headers: { 'content-type': 'application/json', 'x-api-key': s.keys.small } });
    assert.is(critpt.status, 503, 'no grader here, but the CritPt counter answered');
    assert.is(critpt.headers['x-ratelimit-remaining'], '10');
  } finally {
    await s.close();
  }
});

later.run();
