/**
 * Daily quotas in Redis, shared by every server: the fixed-window rule of window.ts run
 * inside Redis by one Lua script, so a check and its count are one atomic step however many
 * servers ask at once. A request is counted when the script's reply arrives, before its answer
 * is sent; when Redis cannot be reached the counter throws StoreUnavailable and nothing is served.
 *
 * Per counter two Redis keys: the window (a hash of `start` and `count`, expiring at the
 * window's end) and the slots held by CritPt gradings under way (a sorted set of reservation
 * ids scored by when their lease ends). A server that dies mid-grading cannot hold a slot for
 * ever: its lease runs out and the slot is free again.
 *
 * With --store-replicas the steps that count (take, reserve, commit, merge) are confirmed on
 * that many replicas before they settle (RedisClient.evalReplicated: WAIT in the same write);
 * one that is not is a 503 (NOREPLICAS), never an answer whose count a failover could lose.
 * `status` writes nothing and `release` only gives back (a lost one is taken back by the
 * lease): neither waits.
 *
 * Time is the servers' clock (passed to the script), as with the file store, so tests can move
 * it; servers sharing a Redis must keep their clocks in sync (NTP), as any fixed window needs.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../lib/clock.ts';
import { DURABLE_NOW, StoreUnavailable, type QuotaCounter, type Reservation, type Reserved, type Taken } from './counter.ts';
import { WINDOW_MS, type QuotaKind, type QuotaStatus, type Window } from './window.ts';
import { LuaScript, RedisCommandError, RedisUnavailable, type RedisClient } from '../redis/client.ts';
import { UNWATCHED, type RefusalWatch } from '../redis/refusals.ts';

/** Every Redis key (a name in Redis's keyspace) this server writes starts so, to share a Redis with other programs. */
export const REDIS_PREFIX = 'bda:';

/**
 * KEYS: the window, the held slots. ARGV: operation, now (ms), limit, window length (ms),
 * reservation id, lease end (ms). Returns {allowed (1/0), count, held, start (-1: no window)}.
 * `merge` (migration) sets the count to the larger of the two, so running it twice adds nothing.
 *
 * It reads before it writes, and its first write is the one that takes memory (HSET, HINCRBY,
 * ZADD): Redis refuses a script out of memory (noeviction, maxmemory reached) only at its first
 * write, and lets every later one through. A cleanup first would let a count past a full Redis;
 * this way a count is refused whole (OOM) and `status` writes nothing at all.
 */
const QUOTA_SCRIPT = new LuaScript(`
local op, now, limit, span = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local held = redis.call('ZCOUNT', KEYS[2], '(' .. ARGV[2], '+inf')
local w = redis.call('HMGET', KEYS[1], 'start', 'count')
local start, count = tonumber(w[1]), tonumber(w[2]) or 0
if start == nil or now >= start + span then start, count = -1, 0 end
if op == 'status' then return {0, count, held, start} end
if op == 'commit' or op == 'release' then
  local lease = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[5]))
  if lease and lease > now then held = held - 1 end
  redis.call('ZREM', KEYS[2], ARGV[5])
end
local allowed = 0
if (op == 'take' or op == 'reserve') and count + held < limit then allowed = 1 end
if (op == 'take' and allowed == 1) or op == 'commit' then
  if start < 0 then
    start, count = now, 1
    redis.call('HSET', KEYS[1], 'start', ARGV[2], 'count', 1)
    redis.call('PEXPIRE', KEYS[1], span)
  else
    count = redis.call('HINCRBY', KEYS[1], 'count', 1)
  end
elseif op == 'reserve' and allowed == 1 then
  redis.call('ZADD', KEYS[2], ARGV[6], ARGV[5])
  redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[6]) - now)
  held = held + 1
elseif op == 'merge' then
  local from, n = tonumber(ARGV[5]), tonumber(ARGV[6])
  if start < 0 then
    start, count = from, n
    redis.call('HSET', KEYS[1], 'start', ARGV[5], 'count', n)
    redis.call('PEXPIRE', KEYS[1], from + span - now)
  elseif n > count then
    count = n
    redis.call('HSET', KEYS[1], 'count', n)
  end
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
return {allowed, count, held, start}
`);

type Operation = 'status' | 'take' | 'reserve' | 'commit' | 'release' | 'merge';

/** The two Redis keys of a counter: its window and its held slots. */
function redisKeysOf(kind: QuotaKind, scope: string): string[] {
  return [`${REDIS_PREFIX}quota:${kind}:${scope}`, `${REDIS_PREFIX}held:${kind}:${scope}`];
}

/**
 * A failure to reach Redis (or a refusal by it) becomes StoreUnavailable, which the app answers
 * with a 503. A refusal is told to `watch` as one of `command`'s, which reports it once while it
 * lasts (src/redis/refusals.ts), not once a request.
 */
export function unavailable(watch: RefusalWatch, command: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof RedisCommandError) watch.refused(command, error);
    if (error instanceof RedisUnavailable || error instanceof RedisCommandError) throw new StoreUnavailable({ cause: error });
    throw error;
  };
}

export interface RedisQuotaOptions {
  clock: Clock;
  /** How long a grading may hold a slot before it is taken back (longer than any grading). */
  leaseMs: number;
  /** Told of each step's refusals and successes (default: nobody; the keys command reports failures itself). */
  watch?: RefusalWatch;
}

const OPERATIONS: readonly Operation[] = ['status', 'take', 'reserve', 'commit', 'release', 'merge'];

/** Each step is a command of its own to the refusal watch: with memory full `status` runs and `take` is refused. */
const COMMAND_NAMES = Object.fromEntries(OPERATIONS.map((op) => [op, `quota ${op}`])) as Record<Operation, string>;

/** The steps whose writes a client's answer rests on (see the top of this file). */
const COUNTS: ReadonlySet<Operation> = new Set(['take', 'reserve', 'commit', 'merge']);

export class RedisQuota implements QuotaCounter {
  private readonly watch: RefusalWatch;
  /** Per step, made once: the request path builds no closure to fail with. */
  private readonly fail: Record<Operation, (error: unknown) => never>;

  constructor(
    private readonly client: RedisClient,
    private readonly options: RedisQuotaOptions,
  ) {
    const watch = (this.watch = options.watch ?? UNWATCHED);
    this.fail = Object.fromEntries(OPERATIONS.map((op) => [op, unavailable(watch, COMMAND_NAMES[op])])) as Record<Operation, (error: unknown) => never>;
  }

  /** One step of the script; Redis's own errors (RedisUnavailable, RedisCommandError) pass through. */
  private async script(op: Operation, kind: QuotaKind, scope: string, limit: number, id = '', extra: number | string = ''): Promise<{ allowed: boolean; status: QuotaStatus }> {
    const now = this.options.clock.now();
    const args = [op, now, limit, WINDOW_MS, id, extra];
    const keys = redisKeysOf(kind, scope);
    const reply = await (COUNTS.has(op) ? this.client.evalReplicated(QUOTA_SCRIPT, keys, args) : this.client.eval(QUOTA_SCRIPT, keys, args));
    this.watch.answered(COMMAND_NAMES[op]);
    const [allowed, count, held, start] = reply as number[];
    const remaining = Math.max(0, limit - count - held);
    return { allowed: allowed === 1, status: { limit, remaining, resetAt: (start < 0 ? now : start) + WINDOW_MS, exhausted: remaining === 0 } };
  }

  /** The same on the request path: any failure is the 503 of an unreachable store. */
  private run(...args: Parameters<RedisQuota['script']>): ReturnType<RedisQuota['script']> {
    return this.script(...args).catch(this.fail[args[0]]);
  }

  async status(kind: QuotaKind, scope: string, limit: number): Promise<QuotaStatus> {
    return (await this.run('status', kind, scope, limit)).status;
  }

  /** Counted in Redis by the time this settles: the answer may go out at once. */
  async take(kind: QuotaKind, scope: string, limit: number): Promise<Taken> {
    const { allowed, status } = await this.run('take', kind, scope, limit);
    return { status, durable: allowed ? DURABLE_NOW : null };
  }

  async reserve(kind: QuotaKind, scope: string, limit: number): Promise<Reserved> {
    const id = randomUUID();
    const { allowed, status } = await this.run('reserve', kind, scope, limit, id, this.options.clock.now() + this.options.leaseMs);
    if (!allowed) return { status, reservation: null };
    let settled = false;
    const reservation: Reservation = {
      commit: async () => {
        if (settled) return;
        settled = true;
        await this.run('commit', kind, scope, limit, id);
      },
      release: () => {
        if (settled) return;
        settled = true;
        // A refund that cannot reach Redis is taken back by the lease instead.
        this.run('release', kind, scope, limit, id).catch(() => {});
      },
    };
    return { status, reservation };
  }

  /** Bring a window from a state folder (keys migrate): the larger count wins, so twice is once. */
  async merge(kind: QuotaKind, scope: string, window: Window): Promise<void> {
    await this.script('merge', kind, scope, 0, String(window.start), window.count);
  }
}
