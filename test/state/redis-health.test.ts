/**
 * A Redis that evicts, refuses or forgets, and what the server says about it, against real
 * redis-servers: an eviction policy other than noeviction refuses the start (a process, exit 1,
 * naming the fix) and, changed later, makes /readyz 503; a read-only replica and a full memory
 * make keyed requests 503 and /readyz name the refusal, logged once when it begins and once when
 * it ends; a wiped Redis answers 503 `key store is empty or was reset`, never 401.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RedisCommandError } from '../../src/redis/client.ts';
import { parseInfo } from '../../src/redis/info.ts';
import { get, request, type Reply } from '../helpers/http.ts';
import { spawnServer, stopProcess } from '../helpers/process.ts';
import { keysCommand, REDIS_INSTALLED, skipWithoutRedis, startRedis } from '../helpers/redis.ts';
import { createFreeKey, RedisTestBed, type LoggedServer } from '../helpers/redis-servers.ts';
import { until } from '../helpers/wait.ts';

const FREE_LIST = '/api/v2/language/models/free';
const root = mkdtempSync(join(tmpdir(), 'redis-health-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const bed = new RedisTestBed(root);

const NAMES = {
  startPolicy: 'should refuse to start on a Redis that may evict (volatile-lru, allkeys-lru), exit 1, naming the fix',
  runtimePolicy: 'should turn not ready when the policy is changed at runtime, and ready again once it is noeviction',
  replica: 'should answer 503 on a read-only replica, /readyz naming READONLY, one log line when it begins and one when it ends',
  reset: 'should answer 503 `key store is empty or was reset` (never 401) on an empty or flushed Redis, ready again once the keys command writes',
  adopt: 'should adopt a store written before the marker (at server start and by the keys command), and keys migrate writes it',
  oom: 'should answer counted requests 503 with Redis out of memory, /readyz naming OOM, and serve again once memory is freed',
};

const policy = suite('Redis eviction policy');
const refusals = suite('Redis refusing commands');
const wiped = suite('Redis that lost its data');

function readiness(url: string): Promise<Reply> {
  return get(url, '/readyz');
}

async function untilReady(url: string, what: string): Promise<void> {
  await until(async () => (await readiness(url)).status === 200, what);
}

async function untilNotReady(url: string, reason: RegExp, what: string): Promise<Reply> {
  let reply: Reply | null = null;
  await until(async () => {
    reply = await readiness(url);
    return reply.status === 503 && reason.test(String(reply.json().details.reason));
  }, () => `${what} (last: ${reply?.status} ${reply?.text})`);
  return reply!;
}

if (!REDIS_INSTALLED) {
  skipWithoutRedis(policy, [NAMES.startPolicy, NAMES.runtimePolicy]);
  skipWithoutRedis(refusals, [NAMES.replica, NAMES.oom]);
  skipWithoutRedis(wiped, [NAMES.reset, NAMES.adopt]);
} else {
  policy.after(() => {
    bed.closeOperators();
  });

  policy(NAMES.startPolicy, async () => {
    const redis = await startRedis({ args: ['--maxmemory-policy', 'volatile-lru'] });
    try {
      const admin = await bed.operator(redis);
      const args = ['--port', '0', '--snapshot', await bed.snapshot(), '--state', join(root, 'state'), '--store', redis.url, '--quiet'];
      for (const evicting of ['volatile-lru', 'allkeys-lru']) {
        await admin.send(['CONFIG', 'SET', 'maxmemory-policy', evicting]);
        const outcome = await spawnServer(args).then(
          async (running) => {
            await stopProcess(running.child);
            return 'it started';
          },
          (error: Error) => error.message,
        );
        assert.match(outcome, /server exited \(1\) before listening/, outcome);
        assert.match(outcome, `cannot start: Redis at 127.0.0.1:${redis.port}/0 has maxmemory-policy ${evicting}`);
        assert.match(outcome, '`CONFIG SET maxmemory-policy noeviction`');
        assert.match(outcome, '`maxmemory-policy noeviction` in its redis.conf');
      }
      // And with noeviction it starts.
      await admin.send(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
      const running = await spawnServer(args);
      await stopProcess(running.child);
    } finally {
      await redis.close();
    }
  });

  policy(NAMES.runtimePolicy, async () => {
    const redis = await startRedis();
    const started = await bed.serve(redis.url);
    try {
      const key = await createFreeKey(redis.url, 'policyco');
      await untilReady(started.server.url, 'ready once the keys command wrote the store');
      const admin = await bed.operator(redis);
      await admin.send(['CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru']);
      const reply = await untilNotReady(started.server.url, /maxmemory-policy allkeys-lru/, '/readyz names the changed policy');
      assert.match(reply.json().details.reason, /CONFIG SET maxmemory-policy noeviction/);
      await admin.send(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
      await untilReady(started.server.url, 'ready again with noeviction');
      assert.is((await get(started.server.url, FREE_LIST, key)).status, 200);
      assert.is(started.lines.filter((line) => /maxmemory-policy allkeys-lru/.test(line)).length, 2, `one line when it began, one when it ended:\n${started.lines.join('\n')}`);
    } finally {
      await started.close();
      await redis.close();
    }
  });

  refusals.after(() => {
    bed.closeOperators();
  });

  refusals(NAMES.replica, async () => {
    const primary = await startRedis();
    const replica = await startRedis({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
    let started: LoggedServer | null = null;
    try {
      const key = await createFreeKey(primary.url, 'replicaco');
      const onReplica = await bed.operator(replica);
      await until(async () => (await onReplica.send(['EXISTS', 'bda:store'])) === 1, 'the replica has the key store');
      started = await bed.serve(replica.url);
      const { url } = started.server;
      const reply = await untilNotReady(url, /READONLY/, '/readyz names READONLY');
      assert.match(reply.json().details.reason, /read-only replica; point --store at the primary/);
      const before = started.lines.length;
      const statuses = await Promise.all(Array.from({ length: 300 }, () => get(url, FREE_LIST, key).then((r) => r.status)));
      assert.equal([...new Set(statuses)], [503]);
      assert.is(started.lines.length, before, `nothing logged per request:\n${started.lines.slice(before).join('\n')}`);
      const refusedLines = started.lines.filter((line) => /READONLY/.test(line));
      assert.is(refusedLines.length, 1, refusedLines.join('\n'));
      assert.match(refusedLines[0], /^not ready: Redis at .* refuses commands \(READONLY\)/);

      assert.is(await onReplica.send(['REPLICAOF', 'NO', 'ONE']), 'OK');
      await untilReady(url, 'ready once the replica is a primary');
      assert.is((await get(url, FREE_LIST, key)).status, 200);
      const ended = started.lines.filter((line) => /READONLY/.test(line));
      assert.is(ended.length, 2, ended.join('\n'));
      assert.match(ended[1], /^no longer: Redis at .* refuses commands \(READONLY\)/);
    } finally {
      await started?.close();
      await replica.close();
      await primary.close();
    }
  });

  refusals(NAMES.oom, async () => {
    const redis = await startRedis({ args: ['--maxmemory', '8mb', '--maxmemory-policy', 'noeviction'] });
    const started = await bed.serve(redis.url);
    try {
      const key = await createFreeKey(redis.url, 'oomco');
      const { url } = started.server;
      await untilReady(url, 'ready with memory to spare');
      assert.is((await get(url, FREE_LIST, key)).status, 200);
      // Another program fills the memory until Redis refuses its writes, in small steps (a
      // big write is refused while its own bytes wait in Redis's input buffer).
      const other = await bed.operator(redis);
      const chunk = 'x'.repeat(4096);
      let refusal: unknown = null;
      for (let appended = 0; refusal === null; appended++) {
        refusal = await other.send(['APPEND', 'other:filler', chunk]).then(() => null, (error: unknown) => error);
        assert.ok(appended < 100_000, 'Redis refused no write');
      }
      assert.instance(refusal, RedisCommandError);
      assert.match((refusal as Error).message, /OOM/);
      // Redis frees buffers of its own now and then, which could bring it back under its limit
      // by a few bytes: the limit goes a little under what it holds, as if the filler went on.
      const used = Number(parseInfo(String(await other.send(['INFO', 'memory']))).get('used_memory'));
      await other.send(['CONFIG', 'SET', 'maxmemory', used - 1024 * 1024]);
      const refused = await get(url, FREE_LIST, key);
      assert.is(refused.status, 503, refused.text.slice(0, 200));
      assert.is(refused.headers['retry-after'], '2');
      const reply = await untilNotReady(url, /\(OOM\)/, '/readyz names OOM');
      assert.match(reply.json().details.reason, /out of memory/);
      const before = started.lines.length;
      for (let i = 0; i < 50; i++) assert.is((await get(url, FREE_LIST, key)).status, 503);
      assert.is(started.lines.length, before, 'nothing logged per request');
      // HEAD counts nothing: the quota is still shown while counting is refused.
      assert.is((await request(url, FREE_LIST, { method: 'HEAD', headers: { 'x-api-key': key } })).status, 200);

      await other.send(['DEL', 'other:filler']);
      await untilReady(url, 'ready once memory is freed');
      assert.is((await get(url, FREE_LIST, key)).status, 200);
      assert.is(started.lines.filter((line) => /\(OOM\)/.test(line)).length, 2, started.lines.join('\n'));
    } finally {
      await started.close();
      await redis.close();
    }
  });

  wiped.after(() => {
    bed.closeOperators();
  });

  wiped(NAMES.reset, async () => {
    const redis = await startRedis();
    // A fresh Redis: nothing written yet, so not ready, saying why.
    const started = await bed.serve(redis.url);
    try {
      const { url } = started.server;
      const fresh = await untilNotReady(url, /empty or was reset/, 'an empty Redis is not ready');
      assert.match(fresh.json().details.reason, /no bda:store key/);
      const key = await createFreeKey(redis.url, 'resetco');
      await untilReady(url, 'ready once the keys command wrote the store');
      assert.is((await get(url, FREE_LIST, key)).status, 200);

      const admin = await bed.operator(redis);
      assert.is(await admin.send(['FLUSHALL']), 'OK');
      const lost = await get(url, FREE_LIST, key);
      assert.is(lost.status, 503, lost.text);
      assert.is(lost.json().error, 'The key store is empty or was reset; retry later');
      assert.ok(lost.headers['retry-after']);
      await untilNotReady(url, /empty or was reset/, '/readyz says the store was reset');
      const before = started.lines.length;
      for (let i = 0; i < 50; i++) assert.is((await get(url, FREE_LIST, key)).status, 503);
      assert.is(started.lines.length, before, 'nothing logged per request');
      // A malformed key is no key whatever the store holds.
      assert.is((await get(url, FREE_LIST, 'bdk_short')).status, 401);

      const other = await createFreeKey(redis.url, 'afterco');
      await untilReady(url, 'ready once the keys command wrote the store again');
      assert.is((await get(url, FREE_LIST, other)).status, 200);
      const gone = await get(url, FREE_LIST, key);
      assert.is(gone.status, 401, 'the store is back without the flushed key: now it is unknown');
      assert.is(gone.json().error, 'Invalid API key');
      const resetLines = started.lines.filter((line) => /empty or was reset/.test(line));
      assert.equal(resetLines.map((line) => line.split(':')[0]), ['not ready', 'no longer', 'not ready', 'no longer'], resetLines.join('\n'));
    } finally {
      await started.close();
      await redis.close();
    }
  });

  wiped(NAMES.adopt, async () => {
    const redis = await startRedis();
    let started: LoggedServer | null = null;
    try {
      const key = await createFreeKey(redis.url, 'oldco');
      const admin = await bed.operator(redis);
      // A store as an older version left it: records, no marker.
      assert.is(await admin.send(['DEL', 'bda:store']), 1);
      started = await bed.serve(redis.url);
      const { url } = started.server;
      assert.is((await readiness(url)).status, 200, 'the server adopted it as it started');
      assert.is((await get(url, FREE_LIST, key)).status, 200);
      const marker = JSON.parse(String(await admin.send(['GET', 'bda:store']))) as { created_at: string };
      assert.ok(!Number.isNaN(Date.parse(marker.created_at)), JSON.stringify(marker));

      // Lost while the server runs: only the keys command adopts it now, even one that writes nothing.
      await admin.send(['DEL', 'bda:store']);
      await untilNotReady(url, /empty or was reset/, 'the lost marker is noticed');
      const listed = await keysCommand('list', '--store', redis.url);
      assert.is(listed.status, 0, listed.stderr);
      await untilReady(url, 'ready once keys list adopted the store');
      assert.is((await get(url, FREE_LIST, key)).status, 200);

      // Wiped, then restored from a state folder by keys migrate: ready, and the folder's key works.
      const stateDir = join(root, 'migrate-state');
      const made = await keysCommand('create', '--tier', 'free', '--org', 'folderco', '--json', '--state', stateDir);
      assert.is(made.status, 0, made.stderr);
      await admin.send(['FLUSHALL']);
      await untilNotReady(url, /empty or was reset/, 'the flush is noticed');
      const migrated = await keysCommand('migrate', '--state', stateDir, '--store', redis.url);
      assert.is(migrated.status, 0, migrated.stderr);
      await untilReady(url, 'ready once keys migrate wrote the store');
      assert.is((await get(url, FREE_LIST, (JSON.parse(made.stdout) as { key: string }).key)).status, 200);
    } finally {
      await started?.close();
      await redis.close();
    }
  });
}

policy.run();
refusals.run();
wiped.run();
