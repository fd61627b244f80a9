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
import type { KeyRecord } from '../state/key-record.ts';
import type { Clock } from '../lib/clock.ts';
import {
  type QuotaCounter,
  type Reservation,
  type Reserved,
  type Taken,
  type QuotaKind,
  type QuotaStatus,
} from '../state/quota-counter.ts';
import { WINDOW_MS, type Window } from './window.ts';
import { LuaScript, type RedisClient } from '../redis/client.ts';
import { UNWATCHED, type RefusalWatch } from '../redis/refusals.ts';
import type { Reply } from '../redis/resp.ts';
import { unavailable } from '../state/redis-errors.ts';
import { NO_CHECK, NO_KEY_CHECK_LUA, outcomeOf, redisKeysOf, takenAs, type Outcome } from './redis-counters.ts';
import type { RedisKeyCheck } from '../state/redis-key-check.ts';
import { RedisTakes } from './redis-takes.ts';
import { usageTarget, USAGE_FIELD_LUA } from './redis-usage.ts';
import { DEFAULT_USAGE_RETENTION_DAYS } from './usage-day.ts';

/**
 * The quota's Lua, after the key check. KEYS: the key check's, then the window, the held slots
 * and the day's usage hash (the last three; redis-usage.ts). ARGV: the key check's two,
 * operation, now (ms), limit, window length (ms), reservation id, lease end (ms), `slots` when the
 * counter holds slots (CritPt's; the data quota's never does, and skips them; see
 * src/keys/redis-keys.ts, checkOf, for the figure), when the usage hash expires (Unix seconds). A
 * counted answer (take, commit) is added to the usage hash too. Returns {allowed (1/0),
 * count, held, start (-1: no window)}. `merge` (migration) sets the count to the larger of the two, so running
 * it twice adds nothing.
 *
 * It reads before it writes, and its first write is the one that takes memory (HSET, HINCRBY,
 * ZADD): Redis refuses a script out of memory (noeviction, maxmemory reached) only at its first
 * write, and lets every later one through. A cleanup first would let a count past a full Redis;
 * this way a count is refused whole (OOM) and `status` writes nothing at all.
 */
const QUOTA_LUA = `${USAGE_FIELD_LUA}
local early = key_check(KEYS, ARGV[1], ARGV[2])
if early then return early end
local window, slots, usage = KEYS[#KEYS - 2], KEYS[#KEYS - 1], KEYS[#KEYS]
local op, now, limit, span = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local reservation, extra, slotted = ARGV[7], ARGV[8], ARGV[9] == 'slots'
local held = 0
if slotted then held = redis.call('ZCOUNT', slots, '(' .. ARGV[4], '+inf') end
local w = redis.call('HMGET', window, 'start', 'count')
local start, count = tonumber(w[1]), tonumber(w[2]) or 0
if start == nil or now >= start + span then start, count = -1, 0 end
if op == 'status' then return {0, count, held, start} end
if op == 'commit' or op == 'release' then
  local lease = tonumber(redis.call('ZSCORE', slots, reservation))
  if lease and lease > now then held = held - 1 end
  redis.call('ZREM', slots, reservation)
end
local allowed = 0
if (op == 'take' or op == 'reserve') and count + held < limit then allowed = 1 end
if (op == 'take' and allowed == 1) or op == 'commit' then
  if start < 0 then
    start, count = now, 1
    redis.call('HSET', window, 'start', ARGV[4], 'count', 1)
    redis.call('PEXPIRE', window, span)
  else
    count = redis.call('HINCRBY', window, 'count', 1)
  end
  redis.call('HINCRBY', usage, usage_field(window), 1)
  redis.call('PEXPIRE', usage, ARGV[10])
elseif op == 'reserve' and allowed == 1 then
  redis.call('ZADD', slots, extra, reservation)
  redis.call('PEXPIRE', slots, tonumber(extra) - now)
  held = held + 1
elseif op == 'merge' then
  local from, n = tonumber(reservation), tonumber(extra)
  if start < 0 then
    start, count = from, n
    redis.call('HSET', window, 'start', reservation, 'count', n)
    redis.call('PEXPIRE', window, from + span - now)
  elseif n > count then
    count = n
    redis.call('HSET', window, 'count', n)
  end
end
if slotted then redis.call('ZREMRANGEBYSCORE', slots, '-inf', now) end
return {allowed, count, held, start}
`;

type Operation = 'status' | 'take' | 'reserve' | 'commit' | 'release' | 'merge';

/** The counter whose gradings hold slots while they are under way (src/critpt/grader.ts). */
const SLOTTED: QuotaKind = 'critpt';

export interface RedisQuotaOptions {
  clock: Clock;
  /** How long a grading may hold a slot before it is taken back (longer than any grading). */
  leaseMs: number;
  /** How a step given a key checks its record (none: the keys command, whose steps check no key). */
  keyCheck?: RedisKeyCheck;
  /** Told of each step's refusals and successes (default: nobody; the keys command reports failures itself). */
  watch?: RefusalWatch;
  /** Days the usage history keeps (default DEFAULT_USAGE_RETENTION_DAYS). */
  usageRetentionDays?: number;
}

const OPERATIONS: readonly Operation[] = ['status', 'take', 'reserve', 'commit', 'release', 'merge'];

/** Each step is a command of its own to the refusal watch: with memory full `status` runs and `take` is refused. */
const COMMAND_NAMES = Object.fromEntries(OPERATIONS.map((op) => [op, `quota ${op}`])) as Record<Operation, string>;

const statusOf = (outcome: Outcome): QuotaStatus => outcome.status;
const takenOf = ({ allowed, status }: Outcome): Taken => takenAs(allowed, status);

/** One run of the script: which counter, and the key whose record it checks first (if any). */
interface Step {
  op: Operation;
  kind: QuotaKind;
  scope: string;
  limit: number;
  key?: KeyRecord;
  /** A reservation's id (reserve, commit, release), or a merged window's start. */
  id?: string;
  /** A reservation's lease end, or a merged window's count. */
  extra?: number;
}

/** The steps whose writes a client's answer rests on (see the top of this file). */
const COUNTS: ReadonlySet<Operation> = new Set(['take', 'reserve', 'commit', 'merge']);

export class RedisQuota implements QuotaCounter {
  private readonly watch: RefusalWatch;
  /** Per step, made once: the request path builds no closure to fail with. */
  private readonly fail: Record<Operation, (error: unknown) => never>;
  private readonly script: LuaScript;
  private readonly checkKeys: readonly string[];
  private readonly takes: RedisTakes;

  constructor(
    private readonly client: RedisClient,
    private readonly options: RedisQuotaOptions,
  ) {
    this.script = new LuaScript(`${options.keyCheck?.lua ?? NO_KEY_CHECK_LUA}${QUOTA_LUA}`);
    client.load(this.script);
    this.checkKeys = options.keyCheck?.redisKeys ?? [];
    const watch = (this.watch = options.watch ?? UNWATCHED);
    this.fail = Object.fromEntries(OPERATIONS.map((op) => [op, unavailable(watch, COMMAND_NAMES[op])])) as Record<
      Operation,
      (error: unknown) => never
    >;
    this.takes = new RedisTakes(
      client,
      options.clock,
      options.keyCheck,
      () => watch.answered(COMMAND_NAMES.take),
      this.fail.take,
      options.usageRetentionDays ?? DEFAULT_USAGE_RETENTION_DAYS,
    );
  }

  /**
   * One step of the script: its outcome, else Redis's own errors (RedisUnavailable,
   * RedisCommandError) as `fail` makes them, and the key check's (KeyChanged, StoreReset:
   * nothing was counted) as they are.
   */
  private step(
    { op, kind, scope, limit, key, id = '', extra }: Step,
    fail?: (error: unknown) => never,
  ): Promise<Outcome> {
    const now = this.options.clock.now();
    const keyCheck = key ? this.options.keyCheck : undefined;
    const check = keyCheck ? keyCheck.checkOf(key!) : NO_CHECK;
    const read = (reply: Reply): Outcome => {
      this.watch.answered(COMMAND_NAMES[op]);
      keyCheck?.checked(check[0], reply);
      return outcomeOf(reply, limit, now);
    };
    const usage = usageTarget(now, this.options.usageRetentionDays ?? DEFAULT_USAGE_RETENTION_DAYS);
    const keys = [...this.checkKeys, ...redisKeysOf(kind, scope), usage.key];
    const args = [...check, op, now, limit, WINDOW_MS, id, extra ?? '', kind === SLOTTED ? 'slots' : '', usage.ttlMs];
    const reply = COUNTS.has(op)
      ? this.client.evalReplicated(this.script, keys, args)
      : this.client.eval(this.script, keys, args);
    return reply.then(read, fail);
  }

  /** The same on the request path: any failure of Redis is the 503 of an unreachable store. */
  private run(step: Step): Promise<Outcome> {
    return this.step(step, this.fail[step.op]);
  }

  status(kind: QuotaKind, scope: string, limit: number, key?: KeyRecord): Promise<QuotaStatus> {
    return this.run({ op: 'status', kind, scope, limit, key }).then(statusOf);
  }

  /**
   * Counted in Redis by the time this settles: the answer may go out at once. Counted with the
   * iteration's others in one script run (src/quota/redis-takes.ts), but for a counter with
   * held slots, whose count must see them.
   */
  take(kind: QuotaKind, scope: string, limit: number, key?: KeyRecord): Promise<Taken> {
    if (kind === SLOTTED) return this.run({ op: 'take', kind, scope, limit, key }).then(takenOf);
    // Settled as a Taken by the batch itself: no step more a request (src/quota/redis-takes.ts).
    return this.takes.take(kind, scope, limit, key);
  }

  async reserve(kind: QuotaKind, scope: string, limit: number, key?: KeyRecord): Promise<Reserved> {
    const id = randomUUID();
    const { allowed, status } = await this.run({
      op: 'reserve',
      kind,
      scope,
      limit,
      key,
      id,
      extra: this.options.clock.now() + this.options.leaseMs,
    });
    if (!allowed) return { status, reservation: null };
    let settled = false;
    const reservation: Reservation = {
      commit: async () => {
        if (settled) return;
        settled = true;
        await this.run({ op: 'commit', kind, scope, limit, id });
      },
      release: () => {
        if (settled) return;
        settled = true;
        // A refund that cannot reach Redis is taken back by the lease instead.
        this.run({ op: 'release', kind, scope, limit, id }).catch(() => {});
      },
    };
    return { status, reservation };
  }

  /** Bring a window from a state folder (keys migrate): the larger count wins, so twice is once. */
  async merge(kind: QuotaKind, scope: string, window: Window): Promise<void> {
    await this.step({ op: 'merge', kind, scope, limit: 0, id: String(window.start), extra: window.count });
  }
}
