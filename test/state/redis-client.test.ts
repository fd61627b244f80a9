/**
 * The Redis client against a real redis-server: pipelining, scripts, errors that name their
 * command, failing fast while Redis is away, deadlines, and coming back by itself.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LuaScript, RedisClient, RedisCommandError, RedisUnavailable } from '../../src/redis/client.ts';
import { REDIS_INSTALLED, skipWithoutRedis, startRedis, type RedisServer } from '../helpers/redis.ts';
import { until } from '../helpers/wait.ts';

const client = suite('RedisClient on a real redis-server');
let redis: RedisServer;
const open: RedisClient[] = [];

function connect(db = 0, options: { commandTimeoutMs?: number } = {}): RedisClient {
  const c = new RedisClient({ address: { ...redis.address, db }, backoffMs: { first: 20, max: 100 }, ...options });
  open.push(c);
  return c;
}

const NAMES = [
  'should pipeline a thousand commands and match every reply to its command',
  'should name the command that failed in Redis\'s error',
  'should run a script by SHA, sending it whole only when Redis does not know it',
  'should keep databases apart (SELECT on connect)',
  'should refuse at once while Redis is away, say why, and reconnect by itself',
  'should fail a command that gets no reply in time, and recover when Redis answers again',
  'should not fail a command answered in time while its own process was held past the deadline',
];

/** Hold this process's event loop for `ms`: what a long turn or a stalled process does to the client. */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

if (!REDIS_INSTALLED) skipWithoutRedis(client, NAMES);
else {
  client.before(async () => {
    redis = await startRedis();
  });

  client.after(async () => {
    for (const c of open) c.close();
    await redis.close();
  });

  client(NAMES[0], async () => {
    const c = connect();
    await c.started();
    const replies = await Promise.all(Array.from({ length: 1000 }, (_, i) => (i % 2 ? c.send(['INCR', 'pipelined']) : c.send(['ECHO', `m${i}`]))));
    replies.forEach((reply, i) => {
      if (i % 2) assert.is(reply, (i + 1) / 2);
      else assert.is(reply, `m${i}`);
    });
  });

  client(NAMES[1], async () => {
    const c = connect();
    await c.started();
    await c.send(['SET', 'text', 'abc']);
    const error = await c.send(['INCR', 'text']).then(() => null, (e: Error) => e);
    assert.instance(error, RedisCommandError);
    assert.match(error!.message, /^redis INCR: ERR value is not an integer/);
    assert.is(await c.send(['GET', 'text']), 'abc', 'the connection goes on after an error reply');
  });

  client(NAMES[2], async () => {
    const c = connect();
    await c.started();
    const script = new LuaScript(`return {KEYS[1], ARGV[1] + 1}`);
    await c.send(['SCRIPT', 'FLUSH']);
    assert.equal(await c.eval(script, ['k'], [41]), ['k', 42]);
    assert.is(await c.send(['SCRIPT', 'EXISTS', script.sha]).then((r) => (r as number[])[0]), 1, 'EVAL left it cached');
    assert.equal(await c.eval(script, ['k'], [1]), ['k', 2]);
  });

  client(NAMES[3], async () => {
    const zero = connect();
    const three = connect(3);
    await Promise.all([zero.started(), three.started()]);
    await zero.send(['SET', 'where', 'zero']);
    await three.send(['SET', 'where', 'three']);
    assert.is(await zero.send(['GET', 'where']), 'zero');
    assert.is(await three.send(['GET', 'where']), 'three');
  });

  client(NAMES[4], async () => {
    // A command deadline far above anything a refusal takes: a command kept waiting for Redis
    // would end at it, with a "no reply within" message.
    const c = connect(0, { commandTimeoutMs: 30_000 });
    await c.started();
    assert.is(c.problem(), null);
    await redis.stop('SIGKILL');
    await until(() => c.problem() !== null, 'the client notices Redis is gone');
    assert.match(c.problem()!, new RegExp(`^Redis at 127.0.0.1:${redis.port}/0 is unreachable`));
    // "At once" by the event loop, not the clock: refused before the loop's next check phase,
    // so no timer, socket event or retry came between the command and its refusal.
    const sent = c.send(['PING']).then(() => null, (e: Error) => e);
    const first = await Promise.race([sent.then((error) => ({ error })), new Promise<'a loop turn passed'>((resolve) => setImmediate(() => resolve('a loop turn passed')))]);
    assert.type(first, 'object', 'refused before a turn of the event loop passed');
    const refused = (first as { error: Error | null }).error;
    assert.instance(refused, RedisUnavailable);
    assert.match(refused!.message, /^redis PING: /);
    assert.not.match(refused!.message, /no reply within/, 'refused for being away, not for its deadline');
    await redis.start();
    await until(() => c.problem() === null, 'the client reconnects by itself');
    assert.is(await c.send(['PING']), 'PONG');
  });

  client(NAMES[5], async () => {
    const deadlineMs = 300;
    const c = connect(0, { commandTimeoutMs: deadlineMs });
    const operator = connect();
    await Promise.all([c.started(), operator.started()]);
    // Redis holds every write for a minute, as a Redis that hangs would, until the operator
    // lets it go (CLIENT UNPAUSE is no write, so it is answered meanwhile). The only way the
    // SET can end before that is its own deadline.
    assert.is(await operator.send(['CLIENT', 'PAUSE', 60_000, 'WRITE']), 'OK');
    let waited: number;
    let late: Error | null;
    try {
      const started = performance.now();
      late = await c.send(['SET', 'x', '1']).then(() => null, (e: Error) => e);
      waited = performance.now() - started;
    } finally {
      assert.is(await operator.send(['CLIENT', 'UNPAUSE']), 'OK');
    }
    assert.instance(late, RedisUnavailable, 'failed while Redis still held it, not answered');
    assert.match(late!.message, /SET got no reply within 300 ms/);
    // Not before its deadline: the client drops a command once performance.now() is past the
    // deadline from its send, and `started` was read on that clock before the send. A rule of
    // the client, not a latency: a busy machine only makes the wait longer.
    assert.ok(waited > deadlineMs, `failed after ${waited.toFixed(0)} ms, before its ${deadlineMs} ms deadline`);
    await until(async () => (await c.send(['PING']).catch(() => null)) === 'PONG', 'the client answers again');
  });

  client(NAMES[6], async () => {
    const lines: string[] = [];
    // The default deadline: Redis on loopback has all of it to answer once the command has left.
    const c = new RedisClient({ address: redis.address, log: (line) => lines.push(line) });
    open.push(c);
    await c.started();
    // Held before the command left: its deadline runs from its write, after the hold.
    const unsent = c.send(['PING']);
    hold(2500);
    assert.is(await unsent, 'PONG');
    // Held after it left: Redis answers at once, and the reply waits unread past the deadline.
    const sent = c.send(['ECHO', 'held']);
    await new Promise((resolve) => setImmediate(resolve)); // after the write's own setImmediate
    hold(2500);
    assert.is(await sent, 'held');
    assert.is(c.problem(), null);
    assert.equal(lines, [], 'no outage');
  });
}

client.run();
