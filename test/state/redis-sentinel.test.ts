/**
 * Servers on a Redis that Sentinel watches (`--store redis-sentinel://...`), against real
 * redis-servers and redis-sentinels: the primary found through the sentinels, by the server and
 * the keys command; the primary killed under load (SIGKILL), answered with 503s, never a 500
 * or a hang, and survived with no one's help; with --store-replicas 1 no 200 whose count the
 * promoted replica lacks, and never more 200s than the quota. And the client itself, its
 * source of the primary given by the test: a primary demoted behind its back (REPLICAOF)
 * answers READONLY, which makes it ask again (not a READONLY refusal); a stale answer naming a
 * replica is refused by ROLE; a count WAITs for its replicas, one WAIT a write. Manual
 * failovers, disagreeing, silent and lying sentinels: test/state/redis-failover.test.ts.
 * Nothing is timed: the test waits for states (hang guards only).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LuaScript, RedisClient, RedisCommandError, RedisNotReplicated, RedisUnavailable } from '../../src/redis/client.ts';
import { FailoverLoad } from '../../scripts/failover-load.ts';
import { createKeyOn, serveOn, type LoggedServer } from '../helpers/failover.ts';
import { countIn, promoted } from '../../scripts/sentinel-faults.ts';
import { get, type Reply } from '../helpers/http.ts';
import { keysCommand, REDIS_INSTALLED, skipWithoutRedis, startRedis, type RedisServer } from '../helpers/redis.ts';
import { ask, SENTINEL_INSTALLED, skipWithoutSentinel, startSentinels, type SentinelSet } from '../helpers/sentinel.ts';
import { buildFixture } from '../helpers/server.ts';
import { HANG_GUARD_MS, until } from '../helpers/wait.ts';

const FREE_LIST = '/api/v2/language/models/free';
const root = mkdtempSync(join(tmpdir(), 'redis-sentinel-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
let snapshotDir = '';

async function serve(set: SentinelSet, options: Parameters<typeof serveOn>[3] = {}): Promise<LoggedServer> {
  if (!snapshotDir) ({ snapshotDir } = await buildFixture(root));
  return serveOn(set, snapshotDir, root, { probeMs: 20, ...options });
}

/** A request that must be answered: a hang fails the test (a guard, not a bound). */
function answered(url: string, path: string, key?: string): Promise<Reply> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${path} got no answer in ${HANG_GUARD_MS / 1000} s (a hang guard)`)), HANG_GUARD_MS)));
  return Promise.race([get(url, path, key), guard]).finally(() => clearTimeout(timer));
}

/** What the sentinels and the server say, for a failure's message. */
async function diagnosis(set: SentinelSet, url: string, lines: readonly string[]): Promise<string> {
  const views = await Promise.all(set.sentinelPorts.map((port) => set.askSentinel(port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', set.name).catch((e: Error) => e.message)));
  const roles = await Promise.all(set.nodes.map((node) => set.askNode(node.port, 'ROLE').then((r) => `${node.port}: ${JSON.stringify(r)}`, (e: Error) => `${node.port}: ${e.message}`)));
  const ready = await answered(url, '/readyz');
  return `sentinels name ${JSON.stringify(views)}; roles ${roles.join('; ')}; /readyz ${ready.status} ${ready.text}; log:\n${lines.join('\n')}`;
}

/** `waiting`, with what the sentinels and the server say (diagnosis) when it fails. */
function diagnosed(waiting: Promise<void>, set: SentinelSet, url: string, lines: readonly string[]): Promise<void> {
  return waiting.catch(async (error: Error) => {
    throw new Error(`${error.message}\n${await diagnosis(set, url, lines)}`);
  });
}

async function untilReady(url: string, what: string): Promise<void> {
  await until(async () => (await answered(url, '/readyz')).status === 200, what, HANG_GUARD_MS, 20);
}

/** Once `served` requests were answered 200, kill the primary (SIGKILL) and wait for the failover's 503s; the old primary's port. */
async function killPrimaryUnderLoad(set: SentinelSet, running: FailoverLoad, served: number): Promise<number> {
  await until(() => running.tally.ok >= served, 'served before the failover');
  const old = await set.primary();
  await old.stop('SIGKILL');
  await until(() => running.tally.unavailable >= 10, 'answered 503 during the failover');
  return old.port;
}

const NAMES = {
  discovery: 'should find the primary through the sentinels: keyed requests counted in it, keys made by the keys command over the sentinel URL honoured',
  unconfirmed: 'should answer counted requests 503 and name NOREPLICAS in /readyz when fewer replicas than --store-replicas acknowledge, and the keys command fail',
  failover: 'should answer 503 (never 500, never a hang) while the primary is killed and replaced, and serve again by itself',
  replicated: 'should never serve a 200 the promoted replica has not counted with --store-replicas 1, nor more 200s than the quota',
};

const CLIENT = {
  readonly: 'should drop a primary that answers READONLY and connect to the one named next, the command failing as unavailable, not refused',
  stale: 'should refuse a named Redis whose ROLE is not master, saying so, and ask again',
  wait: 'should confirm counted writes on N replicas with one WAIT a write, and fail them as NOREPLICAS when fewer acknowledge',
};

const following = suite('the Redis client following a primary');
const discovery = suite('a server on a primary Sentinel names');
const failover = suite('a server through a Sentinel failover under load');

if (!REDIS_INSTALLED) skipWithoutRedis(following, Object.values(CLIENT));
else {
  let a: RedisServer;
  let b: RedisServer;
  /** The port the test's resolver names, as a sentinel would. */
  let named = 0;
  const lines: string[] = [];
  const open: RedisClient[] = [];
  const follow = (replicas?: { count: number; timeoutMs: number }) => {
    // A sentinel address (so the client checks ROLE and READONLY) whose answers the test gives.
    const address = { ...a.address, label: 'testprimary via sentinel test/0', sentinel: { masterName: 'testprimary', sentinels: [], auth: null } };
    const primary = { find: async () => ({ host: '127.0.0.1', port: named }), follow: () => {}, close: () => {} };
    const client = new RedisClient({ address, replicas, backoffMs: { first: 10, max: 50 }, log: (line) => lines.push(line), primary });
    open.push(client);
    return client;
  };
  following.before(async () => {
    a = await startRedis();
    b = await startRedis({ args: ['--replicaof', '127.0.0.1', String(a.port)] });
    await until(async () => String(await ask(b.port, 'INFO', 'replication')).includes('master_link_status:up'), 'the replica is linked');
  });
  following.after(async () => {
    for (const client of open) client.close();
    await b?.close();
    await a?.close();
  });

  following(CLIENT.readonly, async () => {
    named = a.port;
    const client = follow();
    await client.started();
    assert.is(await client.send(['SET', 'k', 'a']), 'OK');
    // Demoted behind its back: b promoted, a made its replica (no connection is closed).
    await ask(b.port, 'REPLICAOF', 'NO', 'ONE');
    await ask(a.port, 'REPLICAOF', '127.0.0.1', String(b.port));
    named = b.port;
    const error = await client.send(['SET', 'k', 'b']).then(() => null, (e: Error) => e);
    assert.instance(error, RedisUnavailable);
    assert.not.instance(error, RedisCommandError);
    assert.match(error!.message, new RegExp(`127\\.0\\.0\\.1:${a.port} is a read-only replica now`));
    await until(() => client.problem() === null, 'connected to the one named next');
    assert.is(await client.send(['SET', 'k', 'c']), 'OK');
    assert.is(await ask(b.port, 'GET', 'k'), 'c');
    assert.ok(lines.some((line) => line.includes(`connected to testprimary via sentinel test/0 (primary 127.0.0.1:${b.port}) again`)), lines.join('\n'));
  });

  following(CLIENT.stale, async () => {
    // a is b's replica now (the test above); a stale sentinel still names it.
    named = a.port;
    const client = follow();
    await client.started();
    assert.match(String(client.problem()), new RegExp(`127\\.0\\.0\\.1:${a.port}, named by the sentinels, is not the primary \\(ROLE slave\\); asking them again`));
    assert.instance(await client.send(['PING']).then(() => null, (e: Error) => e), RedisUnavailable);
    named = b.port;
    await until(() => client.problem() === null, 'connected once the primary is named');
    assert.is(await client.send(['PING']), 'PONG');
  });

  following(CLIENT.wait, async () => {
    named = b.port;
    // The most --store-replicas-timeout allows: a hang guard for a replica on loopback, not a figure.
    const confirmed = follow({ count: 1, timeoutMs: 1500 });
    await confirmed.started();
    // Online: synced and acknowledging (WAIT counts no replica still loading its copy).
    await until(async () => /slave0:.*state=online/.test(String(await ask(b.port, 'INFO', 'replication'))), 'a replicates b');
    await ask(b.port, 'CONFIG', 'RESETSTAT');
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => confirmed.sendReplicated(['INCR', `w${i % 5}`])));
    assert.is(replies.length, 50);
    // The fifty went in one write, closed by one WAIT.
    assert.match(String(await ask(b.port, 'INFO', 'commandstats')), /cmdstat_wait:calls=1,/);
    for (let i = 0; i < 5; i++) assert.is(await ask(a.port, 'GET', `w${i}`), '10', 'the replica has every count once answered');
    // A script Redis forgot (SCRIPT FLUSH) is sent again as EVAL, in a later write: its own WAIT confirms it.
    const script = new LuaScript("return redis.call('INCR', KEYS[1])");
    assert.is(await confirmed.evalReplicated(script, ['w-script'], []), 1);
    await ask(b.port, 'SCRIPT', 'FLUSH');
    await ask(b.port, 'CONFIG', 'RESETSTAT');
    assert.is(await confirmed.evalReplicated(script, ['w-script'], []), 2);
    const stats = String(await ask(b.port, 'INFO', 'commandstats'));
    assert.match(stats, /cmdstat_eval:calls=1,/);
    assert.match(stats, /cmdstat_wait:calls=2,/, 'one WAIT after the EVALSHA Redis refused, one after the EVAL');
    assert.is(await ask(a.port, 'GET', 'w-script'), '2', 'the replica has the count the EVAL made once answered');
    // Two replicas asked for, one there: the write ran, but is not confirmed.
    const two = follow({ count: 2, timeoutMs: 50 });
    await two.started();
    const error = await two.sendReplicated(['INCR', 'w0']).then(() => null, (e: Error) => e);
    assert.instance(error, RedisNotReplicated);
    // How many of the asked-for two acknowledged within 50 ms (the one there, or none yet) is the machine's pace, not the test's.
    assert.match(error!.message, /^redis WAIT: NOREPLICAS the write could not be confirmed on 2 replicas \([01] acknowledged within 50 ms\)/);
    assert.is(await ask(b.port, 'GET', 'w0'), '11');
  });
}

if (!SENTINEL_INSTALLED) {
  skipWithoutSentinel(discovery, [NAMES.discovery, NAMES.unconfirmed]);
  skipWithoutSentinel(failover, [NAMES.failover, NAMES.replicated]);
} else {
  let set: SentinelSet;
  discovery.before(async () => {
    [set] = await Promise.all([startSentinels({ replicas: 1 }), snapshotDir ? null : buildFixture(root).then((b) => (snapshotDir = b.snapshotDir))]);
  });
  discovery.after(async () => {
    await set?.close();
  });

  discovery(NAMES.discovery, async () => {
    const key = await createKeyOn(set, '--tier', 'commercial', '--org', 'findco');
    const { server } = await serve(set);
    try {
      for (let i = 0; i < 3; i++) assert.is((await answered(server.url, FREE_LIST, key)).status, 200);
      const [primary, replica] = set.nodes;
      assert.is(await countIn(set, primary.port, 'findco'), 3, 'counted in the primary the sentinels name');
      assert.is((await answered(server.url, '/readyz')).status, 200);
      // The keys command's changes went to the primary too (the replica has them by replication).
      assert.is(Number(await ask(primary.port, 'HLEN', 'bda:keys')), 1);
      assert.equal(await ask(replica.port, 'ROLE').then((role) => (role as string[])[0]), 'slave');
    } finally {
      await server.close();
    }
  });

  discovery(NAMES.unconfirmed, async () => {
    const key = await createKeyOn(set, '--tier', 'commercial', '--org', 'waitco', '--store-replicas', '1');
    // One replica there, two asked for: every count runs on the primary but is not confirmed.
    const { server, lines } = await serve(set, { storeReplicas: { count: 2, timeoutMs: 50 } });
    try {
      const refused = await answered(server.url, FREE_LIST, key);
      assert.is(refused.status, 503);
      assert.is(refused.headers['retry-after'], '2');
      const ready = await answered(server.url, '/readyz');
      assert.is(ready.status, 503);
      assert.match(String(ready.json().details.reason), /refuses commands \(NOREPLICAS\).*could not be confirmed on 2 replicas \([01] acknowledged within 50 ms\)/);
      assert.is(lines.filter((line) => /NOREPLICAS/.test(line)).length, 1, `logged once:\n${lines.join('\n')}`);
      const made = await keysCommand('create', '--tier', 'free', '--org', 'waitco2', '--store', set.url, '--store-replicas', '2', '--store-replicas-timeout', '50');
      assert.is(made.status, 1);
      assert.match(made.stderr, /NOREPLICAS the write could not be confirmed on 2 replicas/);
    } finally {
      await server.close();
    }
  });

  failover(NAMES.failover, async () => {
    const own = await startSentinels({ replicas: 1 });
    let started: LoggedServer | undefined;
    try {
      const key = await createKeyOn(own, '--tier', 'commercial', '--org', 'failco', '--quota', '1000000');
      const { server, lines } = (started = await serve(own));
      const running = new FailoverLoad([server.url], key, 8);
      try {
        const old = await killPrimaryUnderLoad(own, running, 100);
        const notReady = await answered(server.url, '/readyz');
        if (notReady.status === 503) assert.match(String(notReady.json().details.reason), /via sentinels/);
        await promoted(own, old);
        const before = running.tally.ok;
        await diagnosed(until(() => running.tally.ok >= before + 100, () => `serves again against the promoted replica (${JSON.stringify(running.tally).slice(0, 400)})`), own, server.url, lines);
      } finally {
        await running.stop();
      }
      assert.equal(running.tally.other, []);
      await untilReady(server.url, 'ready again');
      assert.ok(lines.some((line) => /unreachable|not used/.test(line)), 'the outage is logged');
      assert.ok(lines.some((line) => /connected to .* again/.test(line)), 'so is the recovery');
      // Without --store-replicas counts acknowledged in the last replication lag may be lost: only sanity.
      const counted = await countIn(own, (await own.primary()).port, 'failco');
      assert.ok(counted >= 100 && counted <= running.tally.ok + running.tally.unavailable, `${counted} counted, ${running.tally.ok} served`);
    } finally {
      // A failed test must not leave its server open: the process would not end.
      await started?.server.close();
      await own.close();
    }
  });

  failover(NAMES.replicated, async () => {
    // Two replicas: after the failover the promoted one still has a replica to confirm counts.
    const own = await startSentinels({ replicas: 2 });
    const QUOTA = 600;
    let started: LoggedServer | undefined;
    try {
      const key = await createKeyOn(own, '--tier', 'commercial', '--org', 'waitco', '--quota', String(QUOTA), '--store-replicas', '1');
      const { server, lines } = (started = await serve(own, { storeReplicas: { count: 1, timeoutMs: 500 } }));
      const running = new FailoverLoad([server.url], key, 8);
      try {
        await promoted(own, await killPrimaryUnderLoad(own, running, 150));
        // Served again, until the quota is spent.
        await diagnosed(until(() => running.tally.limited >= 20, () => `the quota is spent (${JSON.stringify(running.tally).slice(0, 400)})`), own, server.url, lines);
      } finally {
        await running.stop();
      }
      assert.equal(running.tally.other, []);
      await untilReady(server.url, 'ready again');
      const counted = await countIn(own, (await own.primary()).port, 'waitco');
      assert.ok(counted >= running.tally.ok, `${counted} counted in the promoted replica < ${running.tally.ok} served: a 200 was not counted`);
      assert.ok(running.tally.ok <= QUOTA, `${running.tally.ok} served > the quota of ${QUOTA}`);
      assert.is(counted, QUOTA, 'the quota was spent in the new primary');
      assert.ok(lines.some((line) => /connected to .* again/.test(line)), 'the recovery is logged');
    } finally {
      // A failed test must not leave its server open: the process would not end.
      await started?.server.close();
      await own.close();
    }
  });
}

following.run();
discovery.run();
failover.run();
