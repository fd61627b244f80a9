/**
 * A keyed request on Redis in one round trip: a server decides a request with a key it has met
 * before on the record it holds, and the quota step's own script checks that record in Redis
 * (src/keys/redis-scripts.ts, KEY_CHECK_LUA). Counted with Redis's own command statistics: one script
 * call a request, whatever the answer. And a change made by the keys command (a grant taken back
 * or given, a key regenerated, CritPt withdrawn) decides the other server's very next request,
 * with nothing counted for an answer decided on the old record.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS } from '../../src/config.ts';
import { parseRedisUrl, RedisClient } from '../../src/redis/client.ts';
import { parseInfo } from '../../src/redis/info.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import { get, request } from '../helpers/http.ts';
import { keysCommand, REDIS_INSTALLED, skipWithoutRedis, startRedis, type RedisServer } from '../helpers/redis.ts';
import { buildFixture, TestClock } from '../helpers/server.ts';

const FREE_LIST = '/api/v2/language/models/free';
const PROVIDER = 'capstan-serve';
const MEASUREMENTS = `/api/v2/language/providers/${PROVIDER}/measurements?prompt_type=medium`;
const root = mkdtempSync(join(tmpdir(), 'redis-checked-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

const NAMES = {
  oneTrip: 'should take one script call a keyed request once the server has met the key: 200, 304, 403, 429 alike',
  grant: 'should decide the next request on the other server on a grant taken back or given, counting nothing for the old record',
  regenerate: 'should refuse a regenerated key\'s old value and serve its new one at the next request on the other server',
  critpt: 'should refuse a CritPt grading at the next request once the other server\'s keys command withdrew the approval',
};

const test = suite('keyed requests on Redis in one round trip');

if (!REDIS_INSTALLED) {
  skipWithoutRedis(test, Object.values(NAMES));
} else {
  let redis: RedisServer;
  let admin: RedisClient;
  let servers: RunningServer[] = [];

  const keys = async (...args: string[]) => {
    const done = await keysCommand(...args, '--store', redis.url);
    assert.is(done.status, 0, done.stderr);
    return done.stdout;
  };
  const createKey = async (...args: string[]): Promise<{ id: string; key: string }> => JSON.parse(await keys('create', ...args, '--json'));

  /** Scripts Redis has run (EVALSHA and EVAL, as called, not the commands inside them). */
  const scriptCalls = async (): Promise<number> => {
    const stats = parseInfo(String(await admin.send(['INFO', 'commandstats'])));
    const calls = (name: string) => Number(/calls=(\d+)/.exec(stats.get(`cmdstat_${name}`) ?? '')?.[1] ?? 0);
    return calls('evalsha') + calls('eval');
  };

  /** What a scope has used, read from Redis itself. */
  const counted = async (scope: string): Promise<number> => Number((await admin.send(['HGET', `bda:quota:data:${scope}`, 'count'])) ?? 0);

  test.before(async () => {
    const [started, { snapshotDir }] = await Promise.all([startRedis(), buildFixture(root)]);
    redis = started;
    admin = new RedisClient({ address: parseRedisUrl(redis.url) });
    await admin.started();
    const clock = new TestClock();
    const start = () =>
      startServer(
        { ...DEFAULT_OPTIONS, port: 0, snapshotDir, stateDir: join(root, 'unused-state'), store: parseRedisUrl(redis.url), quiet: true },
        // The probe (a few commands a second) would blur the count of script calls: once an hour here.
        { clock, log: () => {}, logError: () => {}, redisProbeMs: 3_600_000 },
      );
    servers = [await start(), await start()];
  });
  test.after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    admin?.close();
    await redis?.close();
  });

  test(NAMES.oneTrip, async () => {
    const { key } = await createKey('--tier', 'free', '--org', 'tripco', '--user', 't');
    const [a] = servers;
    let before = await scriptCalls();
    const first = await get(a.url, FREE_LIST, key);
    assert.is(first.status, 200);
    assert.is((await scriptCalls()) - before, 2, 'a key met for the first time: its lookup, then the counted step');

    before = await scriptCalls();
    for (let i = 0; i < 10; i++) assert.is((await get(a.url, FREE_LIST, key)).status, 200);
    assert.is((await scriptCalls()) - before, 10, 'one script call a counted 200');

    before = await scriptCalls();
    const notModified = await get(a.url, FREE_LIST, key, { 'if-none-match': first.headers.etag as string });
    assert.is(notModified.status, 304);
    const forbidden = await get(a.url, '/api/v2/language/models', key);
    assert.is(forbidden.status, 403);
    const head = await request(a.url, FREE_LIST, { method: 'HEAD', headers: { 'x-api-key': key } });
    assert.is(head.status, 200);
    assert.is((await scriptCalls()) - before, 3, 'one quota read each for a 304, a 403 and a HEAD');
    for (const reply of [notModified, forbidden, head]) assert.is(reply.headers['x-ratelimit-remaining'], '89', 'each shows the quota after 11 counted');

    await admin.send(['HSET', 'bda:quota:data:user:tripco/t', 'count', 100]);
    before = await scriptCalls();
    const refused = await get(a.url, FREE_LIST, key);
    assert.is(refused.status, 429);
    assert.is((await scriptCalls()) - before, 1, 'one script call for a 429');
  });

  test(NAMES.grant, async () => {
    const { id, key } = await createKey('--tier', 'commercial', '--org', 'grantco', '--grant', PROVIDER, '--force');
    const [a, b] = servers;
    assert.is((await get(a.url, MEASUREMENTS, key)).status, 200);
    assert.is((await get(b.url, MEASUREMENTS, key)).status, 200, 'both servers now hold the record with the grant');
    assert.is(await counted('org:grantco'), 2);

    await keys('ungrant', id, PROVIDER);
    const refused = await get(b.url, MEASUREMENTS, key);
    assert.is(refused.status, 403, refused.text);
    assert.is(refused.json().details.provider, PROVIDER);
    assert.is(await counted('org:grantco'), 2, 'the answer decided on the old record was not counted');
    assert.is((await get(a.url, MEASUREMENTS, key)).status, 403);

    await keys('grant', id, PROVIDER, '--force');
    assert.is((await get(a.url, MEASUREMENTS, key)).status, 200);
    assert.is((await get(b.url, MEASUREMENTS, key)).status, 200);
    assert.is(await counted('org:grantco'), 4);
  });

  test(NAMES.regenerate, async () => {
    const { id, key } = await createKey('--tier', 'pro', '--org', 'regenco', '--user', 'r');
    const [a, b] = servers;
    assert.is((await get(a.url, FREE_LIST, key)).status, 200);
    assert.is((await get(b.url, FREE_LIST, key)).status, 200);
    const fresh = JSON.parse(await keys('regenerate', id, '--json')) as { key: string };
    const old = await get(b.url, FREE_LIST, key);
    assert.is(old.status, 401);
    assert.is(old.headers['x-platform-tier'], undefined, 'a 401 says no tier');
    assert.is(old.headers['x-ratelimit-remaining'], undefined, 'nor any quota');
    assert.is((await get(a.url, FREE_LIST, key)).status, 401);
    const renewed = await get(b.url, FREE_LIST, fresh.key);
    assert.is(renewed.status, 200);
    assert.is(renewed.headers['x-ratelimit-remaining'], '497', 'the regenerated key keeps its quota scope');
  });

  test(NAMES.critpt, async () => {
    const { id, key } = await createKey('--tier', 'commercial', '--org', 'critco', '--user', 'c', '--critpt');
    const [a, b] = servers;
    const grading = (url: string) => request(url, '/api/v2/critpt/evaluate', { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{}' });
    // Approved: past the 403 to the batch's own check (400).
    assert.is((await grading(b.url)).status, 400);
    await keys('critpt', id, 'off');
    const refused = await grading(b.url);
    assert.is(refused.status, 403, refused.text);
    assert.match(refused.json().error, /CritPt grading access is not granted/);
    assert.is((await grading(a.url)).status, 403);
  });
}

test.run();
