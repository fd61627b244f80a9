/**
 * Two real servers (startServer, port 0) sharing one real redis-server: one quota across both
 * under concurrent load, CritPt slots held across both, a revocation made through the keys
 * command refused by the other server on the next request, and Redis killed and restarted under
 * load: 503s with Retry-After, never an uncounted 200, and recovery with no one's help.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS, type ServerOptions } from '../../src/config.ts';
import { parseRedisUrl } from '../../src/redis/client.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import { get, request, type Reply } from '../helpers/http.ts';
import { keysCommand, REDIS_INSTALLED, skipWithoutRedis, startRedis, type RedisServer } from '../helpers/redis.ts';
import { buildFixture, TestClock } from '../helpers/server.ts';
import { HANG_GUARD_MS, until } from '../helpers/wait.ts';

const FREE_LIST = '/api/v2/language/models/free';
const root = mkdtempSync(join(tmpdir(), 'redis-servers-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
let snapshotDir = '';

/** The keys command against this Redis. */
function keys(redis: RedisServer, ...args: string[]) {
  return keysCommand(...args, '--store', redis.url);
}

async function createKey(redis: RedisServer, ...args: string[]): Promise<{ id: string; key: string }> {
  const made = await keys(redis, 'create', ...args, '--json');
  assert.is(made.status, 0, made.stderr);
  return JSON.parse(made.stdout);
}

interface Pair {
  servers: RunningServer[];
  clock: TestClock;
  errors: string[];
  close: () => Promise<void>;
}

/** Two servers on one Redis and one snapshot, sharing a clock the test moves. */
async function startPair(redis: RedisServer, options: Partial<ServerOptions> = {}): Promise<Pair> {
  const clock = new TestClock();
  const errors: string[] = [];
  const start = () =>
    startServer(
      { ...DEFAULT_OPTIONS, port: 0, snapshotDir, stateDir: join(root, 'unused-state'), store: parseRedisUrl(redis.url), quiet: true, ...options },
      { clock, log: () => {}, logError: (line) => errors.push(line) },
    );
  const servers = [await start(), await start()];
  return { servers, clock, errors, close: async () => void (await Promise.all(servers.map((s) => s.close()))) };
}

function remaining(reply: Reply): number {
  return Number(reply.headers['x-ratelimit-remaining']);
}

/** What a scope has used: limit minus remaining, read with HEAD (never counted). */
async function used(url: string, key: string): Promise<number> {
  const reply = await request(url, FREE_LIST, { method: 'HEAD', headers: { 'x-api-key': key } });
  return Number(reply.headers['x-ratelimit-limit']) - remaining(reply);
}

const NAMES = {
  quota: 'should let exactly the limit through across two servers under concurrent load',
  window: 'should keep the window fixed: 24 hours from the first counted request, whichever server counted it',
  revoke: 'should refuse a key on the other server on the very next request after the keys command revoked it on this one',
  critpt: 'should hold CritPt slots across servers: exactly the limit graded, a judge error refunded',
  outage: 'should answer 503 with Retry-After while Redis is down, never an uncounted 200, and recover by itself',
  startDown: 'should start while Redis is down, not ready and answering 503, and serve once it comes',
};

const shared = suite('two servers sharing one Redis');
const outage = suite('two servers while their Redis dies and comes back');

if (!REDIS_INSTALLED) {
  skipWithoutRedis(shared, [NAMES.quota, NAMES.window, NAMES.revoke, NAMES.critpt]);
  skipWithoutRedis(outage, [NAMES.outage, NAMES.startDown]);
} else {
  let redis: RedisServer;
  let pair: Pair;
  shared.before(async () => {
    [redis, { snapshotDir }] = await Promise.all([startRedis(), buildFixture(root)]);
    pair = await startPair(redis);
  });
  shared.after(async () => {
    await pair?.close();
    await redis?.close();
  });

  shared(NAMES.quota, async () => {
    const { key } = await createKey(redis, '--tier', 'commercial', '--org', 'loadco', '--quota', '60');
    const [a, b] = pair.servers;
    const statuses: number[] = [];
    // 24 clients, alternating servers, 150 requests for 60 slots.
    let sent = 0;
    await Promise.all(
      Array.from({ length: 24 }, async (_, n) => {
        while (sent < 150) {
          sent++;
          statuses.push((await get((sent + n) % 2 ? a.url : b.url, FREE_LIST, key)).status);
        }
      }),
    );
    assert.is(statuses.filter((s) => s === 200).length, 60);
    assert.is(statuses.filter((s) => s === 429).length, statuses.length - 60);
    assert.is(await used(a.url, key), 60);
    assert.is(await used(b.url, key), 60, 'both servers see the one counter');
  });

  shared(NAMES.window, async () => {
    const { key } = await createKey(redis, '--tier', 'free', '--org', 'windowco');
    const [a, b] = pair.servers;
    pair.clock.t = Date.UTC(2026, 11, 1, 9, 30, 15, 400);
    const first = await get(a.url, FREE_LIST, key);
    // The window ends 2026-12-02T09:30:15.400Z: the reset is rounded up to the whole second.
    assert.equal([remaining(first), first.headers['x-ratelimit-reset']], [99, '1796203816']);
    pair.clock.advance(86_399_999);
    const last = await get(b.url, FREE_LIST, key);
    assert.equal([remaining(last), last.headers['x-ratelimit-reset']], [98, '1796203816']);
    pair.clock.advance(1);
    const next = await get(a.url, FREE_LIST, key);
    assert.equal([remaining(next), next.headers['x-ratelimit-reset']], [99, '1796290216']);
  });

  shared(NAMES.revoke, async () => {
    const { id, key } = await createKey(redis, '--tier', 'pro', '--org', 'revokeco', '--user', 'r');
    const [a, b] = pair.servers;
    assert.is((await get(a.url, FREE_LIST, key)).status, 200);
    assert.is((await get(b.url, FREE_LIST, key)).status, 200);
    const revoked = await keys(redis, 'revoke', id);
    assert.is(revoked.status, 0, revoked.stderr);
    const refused = await get(b.url, FREE_LIST, key);
    assert.is(refused.status, 401);
    assert.is(refused.json().error, 'Invalid API key');
    assert.is((await get(a.url, FREE_LIST, key)).status, 401);

    // A regenerated key works at once everywhere, and its predecessor nowhere.
    const other = await createKey(redis, '--tier', 'pro', '--org', 'revokeco', '--user', 's');
    const regenerated = await keys(redis, 'regenerate', other.id, '--json');
    const fresh = JSON.parse(regenerated.stdout).key as string;
    assert.is((await get(a.url, FREE_LIST, other.key)).status, 401);
    assert.is((await get(b.url, FREE_LIST, fresh)).status, 200);
    assert.is(remaining(await get(a.url, FREE_LIST, fresh)), 498, 'the quota scope stays with the record');
  });

  shared(NAMES.critpt, async () => {
    let judgeErrors = 1;
    const grader: Server = createServer((req, res) => {
      req.resume();
      // Slow enough that every grading is under way at once.
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ accuracy: 0.5, timeout_rate: 0, server_timeout_count: 0, judge_error_count: judgeErrors > 0 ? judgeErrors-- : 0 }));
      }, 150);
    });
    await new Promise<void>((r) => grader.listen(0, '127.0.0.1', r));
    const graders = await startPair(redis, { critptUpstream: `http://127.0.0.1:${(grader.address() as AddressInfo).port}/grade`, limits: { ...DEFAULT_OPTIONS.limits, critpt: 3 } });
    try {
      const { key } = await createKey(redis, '--tier', 'commercial', '--org', 'lab', '--user', 'ada', '--critpt');
      // Every problem of the sample's set, once.
      const submissions = Array.from({ length: 70 }, (_, i) => ({ problem_id: `Challenge_${i + 1}_main`, generated_code: 'x = 1', model: 'm', generation_config: {}, messages: [] }));
      const body = JSON.stringify({ submissions, batch_metadata: {} });
      const grade = (url: string) => request(url, '/api/v2/critpt/evaluate', { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-api-key': key } });
      const [a, b] = graders.servers;
      // The first is a judge error: refunded, so its slot serves another grading later.
      assert.is((await grade(a.url)).status, 200);
      const statuses = (await Promise.all(Array.from({ length: 8 }, (_, i) => grade(i % 2 ? a.url : b.url)))).map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 3, `statuses ${statuses}`);
      assert.equal(statuses.filter((s) => s === 429).length, 5);
      assert.is((await grade(b.url)).status, 429, 'all three counted');
    } finally {
      await graders.close();
      grader.close();
    }
  });

  let flaky: RedisServer;
  let servers: Pair;
  outage.before(async () => {
    // This Redis writes every change to its append-only file before answering, so a restart
    // keeps every count: what the servers say was counted can be checked after it.
    [flaky] = await Promise.all([startRedis({ persistent: true }), snapshotDir ? null : buildFixture(root).then((b) => (snapshotDir = b.snapshotDir))]);
    servers = await startPair(flaky);
  });
  outage.after(async () => {
    await servers?.close();
    await flaky?.close();
  });

  outage(NAMES.outage, async () => {
    const { key } = await createKey(flaky, '--tier', 'commercial', '--org', 'outageco', '--quota', '100000');
    const [a, b] = servers.servers;
    const counts = { ok: 0, unavailable: 0, other: [] as string[] };
    const retryAfter = new Set<string>();
    let stop = false;
    const CLIENTS = 8;
    const clients = Array.from({ length: CLIENTS }, async (_, n) => {
      for (let i = 0; !stop; i++) {
        const reply = await get((i + n) % 2 ? a.url : b.url, FREE_LIST, key);
        if (reply.status === 200) counts.ok++;
        else if (reply.status === 503) {
          counts.unavailable++;
          retryAfter.add(String(reply.headers['retry-after']));
          assert.not.ok('data' in reply.json(), 'no data in a 503');
          await new Promise((r) => setTimeout(r, 5));
        } else counts.other.push(`${reply.status} ${reply.text.slice(0, 100)}`);
      }
    });
    const waitFor = async (check: () => boolean) => {
      while (!check()) await new Promise((r) => setTimeout(r, 5));
    };
    try {
      await waitFor(() => counts.ok >= 100);
      await flaky.stop('SIGKILL');
      await waitFor(() => counts.unavailable >= 20);
      const ready = await get(b.url, '/readyz');
      assert.is(ready.status, 503);
      assert.match(ready.json().details.reason, new RegExp(`Redis at 127.0.0.1:${flaky.port}/0 is unreachable`));
      const okWhileDown = counts.ok;
      await new Promise((r) => setTimeout(r, 200));
      assert.is(counts.ok, okWhileDown, 'no 200 while Redis is down');
      await flaky.start();
      await waitFor(() => counts.ok >= okWhileDown + 100);
    } finally {
      stop = true;
      await Promise.all(clients);
    }
    assert.equal(counts.other, []);
    assert.equal([...retryAfter], ['2']);
    assert.is((await get(a.url, '/readyz')).status, 200, 'ready again');
    const counted = await used(a.url, key);
    assert.ok(counted >= counts.ok, `${counted} counted < ${counts.ok} answered 200`);
    // A request whose script ran just before the kill but whose reply was lost is counted and
    // answered 503: at most one per client.
    assert.ok(counted - counts.ok <= CLIENTS, `${counted - counts.ok} more counted than answered`);
    assert.ok(servers.errors.some((line) => /unreachable/.test(line)), 'the outage is logged');
    assert.ok(servers.errors.some((line) => /connected to .* again/.test(line)), 'so is the recovery');
  });

  outage(NAMES.startDown, async () => {
    const { key } = await createKey(flaky, '--tier', 'free', '--org', 'lateco');
    await flaky.stop();
    const late = await startPair(flaky);
    try {
      const [a] = late.servers;
      const ready = await get(a.url, '/readyz');
      assert.is(ready.status, 503);
      assert.match(ready.json().details.reason, /is unreachable/);
      assert.is((await get(a.url, FREE_LIST, key)).status, 503);
      await flaky.start();
      // Every request asked is counted once answered 200: one only, the one the loop ends on.
      let reply: Reply | undefined;
      await until(async () => (reply = await get(a.url, FREE_LIST, key)).status !== 503, 'the server serves again once Redis is back', HANG_GUARD_MS, 10);
      assert.is(reply!.status, 200);
      assert.is(remaining(reply!), 99, 'the key and its count were kept by Redis across the restart');
      assert.is((await get(a.url, '/readyz')).status, 200);
    } finally {
      await late.close();
    }
  });
}

shared.run();
outage.run();
