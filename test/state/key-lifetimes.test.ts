/**
 * A key's lifetime as clients meet it, on the state folder and on Redis: an expiry, a regeneration
 * whose old value keeps working for an overlap, and the last use the keys command shows. The
 * servers run on an injected clock, moved by the test: a key past its `expires_at`, or an old
 * value at the end of its overlap, is refused at the very next request on every server, to the
 * millisecond, and works until then. Keys are made by the keys command, as an operator makes them.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS, type ServerOptions } from '../../src/config.ts';
import { parseRedisUrl } from '../../src/redis/client.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import { get } from '../helpers/http.ts';
import { keysCommand, REDIS_INSTALLED, skipWithoutRedis, startRedis, type RedisServer } from '../helpers/redis.ts';
import { buildFixture, TestClock } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

const LIST = '/api/v2/language/models/free';
const HOUR = 3_600_000;
const root = mkdtempSync(join(tmpdir(), 'key-lifetimes-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const { snapshotDir } = await buildFixture(root);

interface Issued {
  id: string;
  key: string;
  prefix: string;
  last4: string;
  expires_at: string | null;
  previous: { prefix: string; last4: string; until: string } | null;
}

/** The keys command on a store (`--state DIR` or `--store URL`); its stdout, having checked it succeeded. */
async function keys(store: string[], ...args: string[]): Promise<string> {
  const done = await keysCommand(...args, ...store);
  assert.is(done.status, 0, done.stderr);
  return done.stdout;
}

const issued = async (store: string[], ...args: string[]): Promise<Issued> => JSON.parse(await keys(store, ...args, '--json'));

/** `keys list --json`, by id. */
async function listed(store: string[]): Promise<Map<string, { state: string; last_used_at: string | null; name: string | null }>> {
  const views = JSON.parse(await keys(store, 'list', '--json')) as { id: string; state: string; last_used_at: string | null; name: string | null }[];
  return new Map(views.map((view) => [view.id, view]));
}

/** Servers on one store, every one on `clock`, writing last-used times every 20 ms. */
async function servers(count: number, options: Partial<ServerOptions>, clock: TestClock): Promise<RunningServer[]> {
  const start = () =>
    startServer(
      { ...DEFAULT_OPTIONS, port: 0, snapshotDir, quiet: true, ...options },
      { clock, log: () => {}, logError: () => {}, lastUsedFlushMs: 20 },
    );
  const started: RunningServer[] = [];
  for (let i = 0; i < count; i++) started.push(await start());
  return started;
}

/** The status every server answers `key` with, and the reason of a 401. */
async function answers(running: readonly RunningServer[], key: string): Promise<string[]> {
  return Promise.all(
    running.map(async (server) => {
      const reply = await get(server.url, LIST, key);
      return reply.status === 401 ? `401 ${reply.json().error}` : String(reply.status);
    }),
  );
}

/**
 * The same story on a store: a key with an expiry and a key regenerated with a 24 h overlap,
 * every server on one clock set to now (the keys command checks an expiry against the real time).
 */
async function lifetimes(store: string[], running: RunningServer[], clock: TestClock): Promise<void> {
  const n = running.length;
  const now = Date.now();
  clock.t = now;
  const expiring = await issued(store, 'create', '--tier', 'free', '--org', 'acme', '--name', 'nightly export', '--expires', new Date(now + HOUR).toISOString());
  assert.equal(await answers(running, expiring.key), Array(n).fill('200'));
  clock.t = Date.parse(expiring.expires_at!) - 1;
  assert.equal(await answers(running, expiring.key), Array(n).fill('200'), 'works until its last millisecond');
  clock.t += 1;
  assert.equal(await answers(running, expiring.key), Array(n).fill('401 API key expired'), 'and not from then, everywhere');
  const reply = await get(running[0]!.url, LIST, expiring.key);
  assert.equal(reply.json().details, { header: 'x-api-key', expired_at: expiring.expires_at, reason: 'the key expired; ask the operator for another' });
  await keys(store, 'expire', expiring.id, 'never');
  assert.equal(await answers(running, expiring.key), Array(n).fill('200'), 'given no expiry, it works again at once');

  clock.t = now;
  const rolled = await issued(store, 'create', '--tier', 'pro', '--org', 'acme', '--user', 'ann');
  const before = Date.now();
  const fresh = await issued(store, 'regenerate', rolled.id, '--overlap', '24h');
  const after = Date.now();
  assert.equal(fresh.previous, { prefix: rolled.prefix, last4: rolled.last4, until: fresh.previous!.until });
  const end = Date.parse(fresh.previous!.until);
  assert.ok(end >= before + 24 * HOUR && end <= after + 24 * HOUR, 'the overlap ends 24 h after the regeneration');
  assert.equal(await answers(running, rolled.key), Array(n).fill('200'), 'the old value works during the overlap');
  assert.equal(await answers(running, fresh.key), Array(n).fill('200'));
  clock.t = end - 1;
  assert.equal(await answers(running, rolled.key), Array(n).fill('200'));
  clock.t = end;
  assert.equal(await answers(running, rolled.key), Array(n).fill('401 API key replaced'), 'not from its end, everywhere');
  assert.equal(await answers(running, fresh.key), Array(n).fill('200'), 'the new value works on');
  const again = await issued(store, 'regenerate', rolled.id);
  assert.is(again.previous, null, 'a regeneration without an overlap ends the old value at once');
  clock.t = now;
  assert.equal(await answers(running, fresh.key), Array(n).fill('401 Invalid API key'));
  assert.equal(await answers(running, again.key), Array(n).fill('200'));

  // Last use: each server notes its requests and writes them within the flush interval (20 ms
  // here). The key's id was last used at the overlap's end, by its old value: later than that.
  clock.t = end + HOUR;
  await get(running[0]!.url, LIST, again.key);
  if (n > 1) {
    clock.t = end + 2 * HOUR;
    await get(running[n - 1]!.url, LIST, again.key);
  }
  const expected = new Date(clock.t).toISOString();
  await until(async () => (await listed(store)).get(again.id)?.last_used_at === expected, `last use ${expected} listed`);
  clock.t = end + HOUR / 2;
  await get(running[0]!.url, LIST, again.key);
  // The same server's next note, later than every use of its key so far: once it is listed, the
  // earlier note above has gone out with it or in a write before (a flush takes every note held),
  // where a fixed wait could end before any write.
  await get(running[0]!.url, LIST, expiring.key);
  const marker = new Date(clock.t).toISOString();
  await until(async () => (await listed(store)).get(expiring.id)?.last_used_at === marker, `last use ${marker} listed`);
  assert.is((await listed(store)).get(again.id)?.last_used_at, expected, 'an earlier time never replaces a later one');
  assert.is((await listed(store)).get(expiring.id)?.name, 'nightly export');
}

const file = suite('a key\'s lifetime on the state folder');
let fileServers: RunningServer[] = [];
const stateDir = join(root, 'state');

file.after(async () => {
  await Promise.all(fileServers.map((s) => s.close()));
});

file('should refuse an expired key and an old value past its overlap at the next request, and list the last use', async () => {
  const clock = new TestClock();
  fileServers = await servers(1, { stateDir }, clock);
  try {
    await lifetimes(['--state', stateDir], fileServers, clock);
    assert.is(statSync(join(stateDir, 'last-used.txt')).mode & 0o777, 0o600);
  } finally {
    await Promise.all(fileServers.map((s) => s.close()));
    fileServers = [];
  }
});

file('should write the last uses at a graceful stop, and keep them through the next start', async () => {
  const clock = new TestClock(Date.now());
  const store = ['--state', stateDir];
  const first = await issued(store, 'create', '--tier', 'free', '--org', 'stop');
  const second = await issued(store, 'create', '--tier', 'free', '--org', 'stop');
  // Written every hour: only the stop writes them here.
  const start = () => startServer({ ...DEFAULT_OPTIONS, port: 0, snapshotDir, quiet: true, stateDir }, { clock, log: () => {}, logError: () => {}, lastUsedFlushMs: HOUR });
  fileServers = [await start()];
  await get(fileServers[0]!.url, LIST, first.key);
  const firstUse = new Date(clock.t).toISOString();
  assert.is((await listed(store)).get(first.id)?.last_used_at, null, 'not written before the stop');
  await fileServers[0]!.close();
  assert.is((await listed(store)).get(first.id)?.last_used_at, firstUse);
  fileServers = [await start()];
  clock.t += HOUR;
  await get(fileServers[0]!.url, LIST, second.key);
  await fileServers[0]!.close();
  fileServers = [];
  const after = await listed(store);
  assert.equal([after.get(first.id)?.last_used_at, after.get(second.id)?.last_used_at], [firstUse, new Date(clock.t).toISOString()], 'the next start keeps what was written before');
});

file.run();

const NAME = 'should refuse an expired key and an old value past its overlap at the next request on both servers, and list the last use';
const redis = suite('a key\'s lifetime on Redis, two servers');

if (!REDIS_INSTALLED) {
  skipWithoutRedis(redis, [NAME]);
} else {
  let store: RedisServer;
  let running: RunningServer[] = [];
  redis.after(async () => {
    await Promise.all(running.map((s) => s.close()));
    await store?.close();
  });
  redis(NAME, async () => {
    store = await startRedis();
    const clock = new TestClock();
    running = await servers(2, { stateDir: join(root, 'unused'), store: parseRedisUrl(store.url) }, clock);
    await lifetimes(['--store', store.url], running, clock);
  });
}

redis.run();
