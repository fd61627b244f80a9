/**
 * The data quota's counts on Redis, an event-loop iteration's at once (src/quota/redis-takes.ts),
 * against a real redis-server: one script run for the counts asked in one iteration (256 at
 * most a run), each count settled as if it had been counted alone in the order asked (its own
 * remaining count, the limit held exactly), a changed key record refusing its own counts and no
 * other, and a batch Redis refuses (down, memory full) counting nothing and failing every count
 * it held.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RedisKeys } from '../../src/keys/redis-keys.ts';
import type { KeyRecord } from '../../src/state/key-record.ts';
import type { Taken } from '../../src/state/quota-counter.ts';
import { KeyChanged, StoreUnavailable } from '../../src/state/errors.ts';
import { RedisQuota } from '../../src/quota/redis-quota.ts';
import { RedisClient } from '../../src/redis/client.ts';
import { parseInfo } from '../../src/redis/info.ts';
import { keysCommand, REDIS_INSTALLED, skipWithoutRedis, startRedis, type RedisServer } from '../helpers/redis.ts';
import { TestClock } from '../helpers/server.ts';

const NAMES = {
  batch: 'should count the counts asked in one iteration in one script run, each as if counted alone in order',
  split: 'should send an iteration of more than 256 counts as several script runs, the counts still in order',
  changed: 'should refuse the counts of a key whose record changed, counting nothing for them, and count the others of the batch',
  refused: 'should fail every count of a batch Redis refuses (memory full, down) and count none of them',
};

const test = suite('quota counts on Redis, an iteration at once');

if (!REDIS_INSTALLED) {
  skipWithoutRedis(test, Object.values(NAMES));
} else {
  let redis: RedisServer;
  let client: RedisClient;
  let admin: RedisClient;
  let keys: RedisKeys;
  let quota: RedisQuota;

  const createKey = async (...args: string[]): Promise<{ id: string; record: KeyRecord }> => {
    const done = await keysCommand('create', ...args, '--json', '--store', redis.url);
    assert.is(done.status, 0, done.stderr);
    const { id, key } = JSON.parse(done.stdout) as { id: string; key: string };
    const record = await keys.lookup(key);
    assert.ok(record, 'the new key is found');
    return { id, record };
  };
  const scriptCalls = async (): Promise<number> => {
    const stats = parseInfo(String(await admin.send(['INFO', 'commandstats'])));
    return Number(/calls=(\d+)/.exec(stats.get('cmdstat_evalsha') ?? '')?.[1] ?? 0);
  };
  const counted = async (scope: string): Promise<number> => Number((await admin.send(['HGET', `bda:quota:data:${scope}`, 'count'])) ?? 0);
  /** What each count came to: its remaining count, or the name of its error. */
  const outcomes = (settled: PromiseSettledResult<Taken>[]) =>
    settled.map((s) => (s.status === 'rejected' ? (s.reason as Error).name : s.value.durable ? s.value.status.remaining : `refused ${s.value.status.remaining}`));

  test.before(async () => {
    redis = await startRedis();
    client = new RedisClient({ address: redis.address, backoffMs: { first: 20, max: 100 } });
    admin = new RedisClient({ address: redis.address });
    keys = new RedisKeys(client);
    quota = new RedisQuota(client, { clock: new TestClock(), leaseMs: 60_000, keyCheck: keys });
    await Promise.all([client.started(), admin.started()]);
  });
  test.after(async () => {
    client.close();
    admin.close();
    await redis.close();
  });

  test(NAMES.batch, async () => {
    const a = await createKey('--tier', 'commercial', '--org', 'a', '--quota', '5');
    const b = await createKey('--tier', 'free', '--org', 'b');
    await admin.send(['CONFIG', 'RESETSTAT']);
    const before = await scriptCalls();
    // Asked in one synchronous run: one iteration, so one batch; a's and b's counts interleaved.
    const asked = [a, b, a, a, b, a, a, a, a].map((k) => quota.take('data', k === a ? 'org:a' : 'org:b', k === a ? 5 : 100, k.record));
    const settled = await Promise.allSettled(asked);
    assert.equal(outcomes(settled), [4, 99, 3, 2, 98, 1, 0, 'refused 0', 'refused 0']);
    assert.is((await scriptCalls()) - before, 1, 'one script run for the iteration');
    assert.equal([await counted('org:a'), await counted('org:b')], [5, 2]);
    // The next iteration sees the window as the batch left it.
    assert.equal(outcomes(await Promise.allSettled([quota.take('data', 'org:b', 100, b.record)])), [97]);
    // One window asked under two limits in one iteration: a group each, the first counted first.
    const c = await createKey('--tier', 'commercial', '--org', 'c', '--quota', '5');
    const limits = [5, 5, 3, 3, 5];
    const mixed = await Promise.allSettled(limits.map((limit) => quota.take('data', 'org:c', limit, c.record)));
    assert.equal(outcomes(mixed), [4, 3, 'refused 0', 'refused 0', 2]);
    assert.is(await counted('org:c'), 3);
  });

  test(NAMES.split, async () => {
    const many = await createKey('--tier', 'commercial', '--org', 'many', '--quota', '1000');
    const before = await scriptCalls();
    const settled = await Promise.allSettled(Array.from({ length: 300 }, () => quota.take('data', 'org:many', 1000, many.record)));
    assert.equal(outcomes(settled), Array.from({ length: 300 }, (_, i) => 999 - i));
    assert.is((await scriptCalls()) - before, 2, 'runs of 256 and 44');
    assert.is(await counted('org:many'), 300);
  });

  test(NAMES.changed, async () => {
    const kept = await createKey('--tier', 'pro', '--org', 'kept');
    const gone = await createKey('--tier', 'pro', '--org', 'gone');
    const done = await keysCommand('revoke', gone.id, '--store', redis.url);
    assert.is(done.status, 0, done.stderr);
    const settled = await Promise.allSettled([
      quota.take('data', 'org:gone', 500, gone.record),
      quota.take('data', 'org:kept', 500, kept.record),
      quota.take('data', 'org:gone', 500, gone.record),
    ]);
    assert.equal(outcomes(settled), ['KeyChanged', 499, 'KeyChanged']);
    assert.is(((settled[0] as PromiseRejectedResult).reason as KeyChanged).record, undefined, 'no active record for a revoked key');
    assert.equal([await counted('org:gone'), await counted('org:kept')], [0, 1]);
  });

  test(NAMES.refused, async () => {
    const full = await createKey('--tier', 'pro', '--org', 'full');
    // Memory full: the script is refused at its first write, after its reads.
    await admin.send(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
    await admin.send(['CONFIG', 'SET', 'maxmemory', '1']);
    try {
      const settled = await Promise.allSettled([1, 2, 3].map(() => quota.take('data', 'org:full', 500, full.record)));
      assert.equal(outcomes(settled), ['StoreUnavailable', 'StoreUnavailable', 'StoreUnavailable']);
    } finally {
      await admin.send(['CONFIG', 'SET', 'maxmemory', '0']);
    }
    assert.is(await counted('org:full'), 0);
    // Down: refused at once, every count failed, none left waiting.
    await redis.stop();
    try {
      const settled = await Promise.allSettled([1, 2].map(() => quota.take('data', 'org:full', 500, full.record)));
      assert.ok(settled.every((s) => s.status === 'rejected' && s.reason instanceof StoreUnavailable), JSON.stringify(outcomes(settled)));
    } finally {
      await redis.start();
    }
  });
}

test.run();
