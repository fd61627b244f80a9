/**
 * Servers on a Redis that Sentinel watches (`--store redis-sentinel://...`), against real
 * redis-servers and redis-sentinels: the primary found through the sentinels, by the server and
 * the keys command; a failover under load (the primary SIGKILLed) answered with 503s, never a
 * 500 or a hang, and survived with no one's help; with --store-replicas 1 no 200 whose count
 * the promoted replica lacks, and never more 200s than the quota; a SENTINEL FAILOVER followed.
 * And the client itself, its resolver given by the test: a primary demoted behind its back
 * (REPLICAOF) answers READONLY, which makes it ask again (not a READONLY refusal); a stale answer
 * naming a replica is refused by ROLE; a count WAITs for its replicas, one WAIT a write.
 * Nothing is timed: the test waits for states (hang guards only).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS, type ServerOptions } from '../../src/config.ts';
import { LuaScript, RedisClient, RedisCommandError, RedisNotReplicated, RedisUnavailable } from '../../src/redis/client.ts';
import { parseSentinelUrl } from '../../src/redis/sentinel-url.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import { get, type Reply } from '../helpers/http.ts';
import { keysCommand, REDIS_INSTALLED, skipWithoutRedis, startRedis, type RedisServer } from '../helpers/redis.ts';
import { ask, SENTINEL_INSTALLED, skipWithoutSentinel, startSentinels, type SentinelSet } from '../helpers/sentinel.ts';
import { buildFixture } from '../helpers/server.ts';
import { HANG_GUARD_MS, until } from '../helpers/wait.ts';

const FREE_LIST = '/api/v2/language/models/free';
const root = mkdtempSync(join(tmpdir(), 'redis-sentinel-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
let snapshotDir = '';

interface Started {
  server: RunningServer;
  /** Everything it logged, in order. */
  lines: string[];
}

async function serve(set: SentinelSet, options: Partial<ServerOptions> = {}, redisProbeMs = 20): Promise<Started> {
  if (!snapshotDir) ({ snapshotDir } = await buildFixture(root));
  const lines: string[] = [];
  const server = await startServer(
    { ...DEFAULT_OPTIONS, port: 0, snapshotDir, stateDir: join(root, 'unused-state'), store: parseSentinelUrl(set.url), quiet: true, ...options },
    { log: (line) => lines.push(line), logError: (line) => lines.push(line), redisProbeMs },
  );
  return { server, lines };
}

async function createKey(set: SentinelSet, org: string, ...args: string[]): Promise<string> {
  const made = await keysCommand('create', '--tier', 'commercial', '--org', org, '--json', '--store', set.url, ...args);
  assert.is(made.status, 0, made.stderr);
  return (JSON.parse(made.stdout) as { key: string }).key;
}

/** GET on a connection `kept` open between requests; its status and body. */
function getKept(kept: Agent, base: string, path: string, key?: string): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, agent: kept, headers: key === undefined ? {} : { 'x-api-key': key } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A request that must be answered: a hang fails the test (a guard, not a bound). */
function guarded<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} got no answer in ${HANG_GUARD_MS / 1000} s (a hang guard)`)), HANG_GUARD_MS)));
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

function answered(url: string, path: string, key?: string): Promise<Reply> {
  return guarded(path, get(url, path, key));
}

/** The count of an org's data window in this Redis, read directly (0 when it has none). */
async function countIn(node: { port: number }, org: string): Promise<number> {
  const keys = (await ask(node.port, 'KEYS', `bda:quota:*org:${org}`)) as string[];
  let total = 0;
  for (const key of keys) total += Number(await ask(node.port, 'HGET', key, 'count'));
  return total;
}

/** What the sentinels and the server say, for a failure's message. */
async function diagnosis(set: SentinelSet, url: string, lines: readonly string[]): Promise<string> {
  const views = await Promise.all(set.sentinelPorts.map((port) => ask(port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', set.name).catch((e: Error) => e.message)));
  const roles = await Promise.all(set.nodes.map((node) => ask(node.port, 'ROLE').then((r) => `${node.port}: ${JSON.stringify(r)}`, (e: Error) => `${node.port}: ${e.message}`)));
  const ready = await answered(url, '/readyz');
  return `sentinels name ${JSON.stringify(views)}; roles ${roles.join('; ')}; /readyz ${ready.status} ${ready.text}; log:\n${lines.join('\n')}`;
}

async function untilReady(url: string, what: string): Promise<void> {
  await until(async () => (await answered(url, '/readyz')).status === 200, what, HANG_GUARD_MS, 20);
}

/** Requests from `clients` loops until `stop` is set, their statuses tallied. */
function load(url: string, key: string, clients: number) {
  // Connections kept open: thousands of requests on a connection each would leave as many ports
  // in TIME_WAIT, enough to run a busy machine out of them.
  const kept = new Agent({ keepAlive: true, maxSockets: clients });
  const tally = { ok: 0, unavailable: 0, limited: 0, other: [] as string[], stop: false };
  const done = Promise.all(
    Array.from({ length: clients }, async () => {
      while (!tally.stop) {
        // A failed request is tallied, not thrown: a client that stopped would leave the test waiting.
        const reply = await guarded(FREE_LIST, getKept(kept, url, FREE_LIST, key)).catch((error: Error) => error);
        if (reply instanceof Error) tally.other.push(`request failed: ${reply.message}`);
        else if (reply.status === 200) tally.ok++;
        else if (reply.status === 429) tally.limited++;
        else if (reply.status === 503 && !('data' in JSON.parse(reply.text))) tally.unavailable++;
        else tally.other.push(`${reply.status} ${reply.text.slice(0, 200)}`);
        // A 503 comes back at once: a pause gives the sentinels a turn and spares the machine's ports.
        if (reply instanceof Error || reply.status !== 200) await new Promise((r) => setTimeout(r, 20));
      }
    }),
  );
  const stop = async () => {
    tally.stop = true;
    await done;
    kept.destroy();
  };
  return { tally, stop };
}

/** Once `served` requests were answered 200, kill the primary (SIGKILL) and wait for the failover's 503s; the old primary. */
async function killPrimaryUnderLoad(set: SentinelSet, running: ReturnType<typeof load>, served: number): Promise<{ port: number; stop(signal?: NodeJS.Signals): Promise<void> }> {
  await until(() => running.tally.ok >= served, 'served before the failover');
  const old = await set.primary();
  await old.stop('SIGKILL');
  await until(() => running.tally.unavailable >= 10, 'answered 503 during the failover');
  return old;
}

/** `waiting`, with what the sentinels and the server say (diagnosis) when it fails. */
function diagnosed(waiting: Promise<void>, set: SentinelSet, url: string, lines: readonly string[]): Promise<void> {
  return waiting.catch(async (error: Error) => {
    throw new Error(`${error.message}\n${await diagnosis(set, url, lines)}`);
  });
}

const NAMES = {
  discovery: 'should find the primary through the sentinels: keyed requests counted in it, keys made by the keys command over the sentinel URL honoured',
  unconfirmed: 'should answer counted requests 503 and name NOREPLICAS in /readyz when fewer replicas than --store-replicas acknowledge, and the keys command fail',
  demoted: 'should follow a SENTINEL FAILOVER: the old primary demoted, the promoted replica counts, no READONLY refusal reported',
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
  skipWithoutSentinel(discovery, [NAMES.discovery, NAMES.unconfirmed, NAMES.demoted]);
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
    const key = await createKey(set, 'findco');
    const { server } = await serve(set);
    try {
      for (let i = 0; i < 3; i++) assert.is((await answered(server.url, FREE_LIST, key)).status, 200);
      const [primary, replica] = set.nodes;
      assert.is(await countIn(primary, 'findco'), 3, 'counted in the primary the sentinels name');
      assert.is((await answered(server.url, '/readyz')).status, 200);
      // The keys command's changes went to the primary too (the replica has them by replication).
      assert.is(Number(await ask(primary.port, 'HLEN', 'bda:keys')), 1);
      assert.equal(await ask(replica.port, 'ROLE').then((role) => (role as string[])[0]), 'slave');
    } finally {
      await server.close();
    }
  });

  discovery(NAMES.unconfirmed, async () => {
    const key = await createKey(set, 'waitco', '--store-replicas', '1');
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

  discovery(NAMES.demoted, async () => {
    const key = await createKey(set, 'demoteco');
    // No probe after the first round: a request's write is what meets READONLY.
    const { server, lines } = await serve(set, {}, 600_000);
    try {
      const old = await set.primary();
      assert.is((await answered(server.url, FREE_LIST, key)).status, 200);
      // Refused while a sentinel has yet to see the replica as fit (NOGOODSLAVE): asked again.
      await until(async () => (await ask(set.sentinelPorts[0], 'SENTINEL', 'FAILOVER', set.name)) === 'OK', 'a sentinel starts the failover', HANG_GUARD_MS, 100);
      await until(async () => (await set.primary()) !== old, 'the sentinels name the replica primary');
      // The old primary becomes a replica of the new one (the sentinels reconfigure it).
      // The sentinels close every client of the demoted primary, this test's questions too.
      await until(async () => ((await ask(old.port, 'ROLE').catch(() => null)) as string[] | null)?.[0] === 'slave', 'the old primary is a replica');
      const statuses: number[] = [];
      await until(async () => {
        const reply = await answered(server.url, FREE_LIST, key);
        statuses.push(reply.status);
        return reply.status === 200;
      }, () => `the server serves again (statuses ${statuses.join(',')})`, HANG_GUARD_MS, 20);
      assert.ok(statuses.every((s) => s === 200 || s === 503), `only 200s and 503s: ${statuses.join(',')}`);
      const now = await set.primary();
      assert.ok((await countIn(now, 'demoteco')) >= 1, 'counted in the new primary');
      await untilReady(server.url, 'ready again');
      assert.not.ok(lines.some((line) => /refuses commands \(READONLY\)/.test(line)), `no READONLY refusal reported:\n${lines.join('\n')}`);
      if (statuses.includes(503)) assert.ok(lines.some((line) => /read-only replica now|no longer the primary|unreachable/.test(line)), `the switch is logged:\n${lines.join('\n')}`);
      assert.ok(lines.some((line) => new RegExp(`connected to .*\\(primary 127\\.0\\.0\\.1:${now.port}\\) again`).test(line)) || !statuses.includes(503), `the new primary is logged:\n${lines.join('\n')}`);
    } finally {
      await server.close();
    }
  });

  failover(NAMES.failover, async () => {
    const own = await startSentinels({ replicas: 1 });
    let started: Started | undefined;
    try {
      const key = await createKey(own, 'failco', '--quota', '1000000');
      const { server, lines } = (started = await serve(own));
      const running = load(server.url, key, 8);
      try {
        const old = await killPrimaryUnderLoad(own, running, 100);
        const notReady = await answered(server.url, '/readyz');
        if (notReady.status === 503) assert.match(String(notReady.json().details.reason), /via sentinels/);
        await until(async () => (await own.primary()) !== old, 'the sentinels promote the replica');
        const before = running.tally.ok;
        await diagnosed(until(() => running.tally.ok >= before + 100, () => `serves again against the promoted replica (${JSON.stringify(running.tally).slice(0, 400)})`), own, server.url, lines);
      } finally {
        await running.stop();
      }
      assert.equal(running.tally.other, []);
      await untilReady(server.url, 'ready again');
      assert.ok(lines.some((line) => /unreachable/.test(line)), 'the outage is logged');
      assert.ok(lines.some((line) => /connected to .* again/.test(line)), 'so is the recovery');
      // Without --store-replicas counts acknowledged in the last replication lag may be lost: only sanity.
      const counted = await countIn(await own.primary(), 'failco');
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
    let started: Started | undefined;
    try {
      const key = await createKey(own, 'waitco', '--quota', String(QUOTA), '--store-replicas', '1');
      const { server, lines } = (started = await serve(own, { storeReplicas: { count: 1, timeoutMs: 500 } }));
      const running = load(server.url, key, 8);
      try {
        const old = await killPrimaryUnderLoad(own, running, 150);
        await until(async () => (await own.primary()) !== old, 'the sentinels promote a replica');
        // Served again, until the quota is spent.
        await diagnosed(until(() => running.tally.limited >= 20, () => `the quota is spent (${JSON.stringify(running.tally)})`), own, server.url, lines);
      } finally {
        await running.stop();
      }
      assert.equal(running.tally.other, []);
      await untilReady(server.url, 'ready again');
      const counted = await countIn(await own.primary(), 'waitco');
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
