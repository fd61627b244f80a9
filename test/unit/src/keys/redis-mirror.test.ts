import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RedisMirror } from '../../../../src/keys/redis-mirror.ts';
import { CHANGE_COUNT, CHANGES, RECORDS, STORE_MARKER } from '../../../../src/keys/redis-scripts.ts';
import type { Reply } from '../../../../src/redis/resp.ts';

/**
 * A Redis of the commands the mirror sends, in memory: the records hash, the marker, the change
 * count and the changes' stream (ids `N-0`); `write` is the PUT script's part the mirror reads.
 */
class FakeRedis {
  records = new Map<string, string>();
  marker: string | null = '{"created_at":"2026-11-29T00:00:00.000Z"}';
  count = 0;
  stream: [string, string[]][] = [];
  sent: string[] = [];
  /** Fail the command of this name the next time it is sent (a connection lost mid-read). */
  failNext: string | null = null;

  write(id: string, fields: Record<string, unknown> = {}): void {
    this.records.set(id, JSON.stringify(record(id, fields)));
    this.count++;
    this.stream.push([`${this.count}-0`, ['n', String(this.count), 'id', id]]);
  }

  async send(args: readonly (string | number)[]): Promise<Reply> {
    const [name, key, ...rest] = args.map(String);
    this.sent.push(name!);
    if (this.failNext === name) {
      this.failNext = null;
      throw new Error(`${name} failed`);
    }
    if (name === 'GET' && key === STORE_MARKER) return this.marker;
    if (name === 'HGET' && key === CHANGE_COUNT) return this.count === 0 ? null : String(this.count);
    if (name === 'HMGET' && key === RECORDS) return rest.map((id) => this.records.get(id) ?? null);
    if (name === 'HSCAN' && key === RECORDS) {
      // Two records a step, the cursor the index of the next.
      const all = [...this.records];
      const at = Number(rest[0]);
      const next = at + 2 >= all.length ? '0' : String(at + 2);
      return [next, all.slice(at, at + 2).flat()];
    }
    if (name === 'XREVRANGE' && key === CHANGES) {
      const [end, start, , count] = rest;
      const seq = (id: string) => Number(id.replace(/^\(/, '').split('-')[0]);
      const below = end === '+' ? Infinity : end!.startsWith('(') ? seq(end!) : seq(end!) + 1;
      const above = start === '-' ? -Infinity : start!.startsWith('(') ? seq(start!) : seq(start!) - 1;
      const entries = this.stream.filter(([id]) => seq(id) < below && seq(id) > above).reverse();
      return entries.slice(0, Number(count));
    }
    throw new Error(`unexpected ${args.join(' ')}`);
  }
}

function record(id: string, fields: Record<string, unknown>) {
  return {
    id,
    hash: id.padEnd(64, '0'),
    tier: 'free',
    org: 'acme',
    user: id,
    scope: 'user',
    quota: null,
    grants: [],
    critpt: false,
    created_at: '2026-11-29T00:00:00.000Z',
    revoked_at: null,
    ...fields,
  };
}

const names = (map: ReadonlyMap<string, { name?: unknown }>) => [...map.keys()].sort();
const mirror = suite('RedisMirror');

mirror('reads every key once, then the changes since: a change, a new key, one read again', async () => {
  const redis = new FakeRedis();
  for (const id of ['a', 'b', 'c', 'd', 'e']) redis.write(id);
  const held = new RedisMirror(redis);
  assert.equal(names(await held.fresh()), ['a', 'b', 'c', 'd', 'e']);
  assert.is(held.wholeReads, 1);
  redis.write('b', { name: 'renamed' });
  redis.write('f');
  redis.sent = [];
  const now = await held.fresh();
  assert.equal(names(now), ['a', 'b', 'c', 'd', 'e', 'f']);
  assert.is((now.get('b') as { name?: string }).name, 'renamed');
  assert.is(held.wholeReads, 1);
  assert.not.ok(redis.sent.includes('HSCAN'), 'no key read but those changed');
});

mirror('reads every key again after a gap in the changes, a new marker, or a count gone back', async () => {
  const redis = new FakeRedis();
  for (const id of ['a', 'b', 'c']) redis.write(id);
  const held = new RedisMirror(redis);
  await held.fresh();
  // A gap: the stream trimmed past a change not read.
  redis.write('a', { name: 'lost' });
  redis.stream = [];
  redis.write('d');
  assert.is(((await held.fresh()).get('a') as { name?: string }).name, 'lost');
  assert.is(held.wholeReads, 2);
  // Emptied and given other keys: a new marker.
  redis.records.clear();
  redis.marker = '{"created_at":"2026-11-30T00:00:00.000Z"}';
  redis.write('z');
  assert.equal(names(await held.fresh()), ['z']);
  assert.is(held.wholeReads, 3);
  // A backup from before: the count lower than the one read.
  redis.records = new Map([['y', JSON.stringify(record('y', {}))]]);
  redis.count = 0;
  redis.stream = [];
  assert.equal(names(await held.fresh()), ['y']);
  assert.is(held.wholeReads, 4);
});

mirror('a whole read that fails holds nothing: the next is made whole again', async () => {
  const redis = new FakeRedis();
  for (const id of ['a', 'b', 'c', 'd', 'e']) redis.write(id);
  const held = new RedisMirror(redis);
  await held.fresh();
  redis.marker = '{"created_at":"2026-11-30T00:00:00.000Z"}'; // read whole at the next view
  redis.write('f');
  redis.failNext = 'HSCAN';
  await held.fresh().then(
    () => assert.unreachable('a failed read answered'),
    (error: Error) => assert.match(error.message, /HSCAN failed/),
  );
  assert.equal(names(await held.fresh()), ['a', 'b', 'c', 'd', 'e', 'f'], 'every key, not what was left');
});

mirror('reads asked for at once each start after the one before', async () => {
  const redis = new FakeRedis();
  redis.write('a');
  const held = new RedisMirror(redis);
  const first = held.fresh();
  redis.write('b');
  const second = held.fresh();
  assert.equal(names(await first), ['a', 'b']);
  assert.equal(names(await second), ['a', 'b']);
});

mirror.run();
