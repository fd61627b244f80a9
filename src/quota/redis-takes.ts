/**
 * The data quota's counts on Redis, one script run an event-loop iteration: the requests read
 * in one poll phase are checked and counted by one EVALSHA, and each is settled as if it had
 * been counted alone, in the order it came (its own remaining count; the limit held exactly).
 * Still one round trip a counted request, and each request's key record checked in the same
 * atomic step as its count, as the one-step script (src/quota/redis-quota.ts) does.
 *
 * Why: Redis, the server and the load share the machine's cores, and the requests of an
 * iteration wait for Redis together, so Redis's time a request is added to every request. The
 * one-step script cost Redis 36-46 µs of CPU a counted request under load (an empty script 6):
 * its key check, its window's read and write, and Lua's own work. In one script run a batch,
 * each key check and window once: 12-15 µs, and the server on Redis went from 0.57-0.59 to
 * 0.90-1.25 of the same server on its state folder (the Pro list page at c=16, the server on one
 * core and wrk and Redis on the other, three alternated rounds; /proc/PID/stat around each run).
 *
 * The batch is assembled as the iteration's write to Redis leaves (RedisClient.beforeWrite),
 * so it rides in that write as a single command did.
 */
import type { KeyRecord } from '../state/key-record.ts';
import type { Clock } from '../lib/clock.ts';
import { LuaScript, type RedisClient } from '../redis/client.ts';
import type { Reply } from '../redis/resp.ts';
import { counterStatus, NO_CHECK, NO_KEY_CHECK_LUA, takenAs, windowKeyOf } from './redis-counters.ts';
import type { RedisKeyCheck } from '../state/redis-key-check.ts';
import { WINDOW_MS } from './window.ts';
import { usageTarget, USAGE_FIELD_LUA } from './redis-usage.ts';
import type { QuotaKind, Taken } from '../state/quota-counter.ts';

/**
 * After the key check's function. KEYS: the key check's (`first` of them), then the batch's
 * windows, each once, then the day's usage hash (redis-usage.ts). ARGV: now (ms), the window's
 * length (ms), `first`, the number of key checks, when the usage hash expires (Unix seconds),
 * the key checks (two values each, checkOf's), then four a group of counts (those of one
 * key check, window and limit, in the order they came): its key check (its number, 0 for none),
 * its window (its number), its limit and how many counts it asks for. Returns one reply a
 * group: its key check's early answer, or {granted, count, 0, start}, the counts granted (as
 * many as the limit leaves, the first ones of the group) and the window after them.
 *
 * So each key check runs once and each group reads and writes its window once, however many
 * counts it holds (one client's requests, mostly): the script's work grows with the groups, not
 * the requests. A loop over the counts, each checked and counted on its own, left Redis at 19-21
 * µs a request in the same alternation: Lua's own work a count (its tables, its reply) was
 * most of it. A group's first write comes after its reads, and a batch refused by a
 * full Redis (OOM, refused at a script's first write) counts nothing.
 */
const TAKES_LUA = `${USAGE_FIELD_LUA}
local now, span, first, checks = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local usage, served = KEYS[#KEYS], false
local early = {}
for c = 1, checks do early[c] = key_check(KEYS, ARGV[4 + 2 * c], ARGV[5 + 2 * c]) or false end
local replies = {}
local base = 5 + 2 * checks
for g = 1, (#ARGV - base) / 4 do
  local at = base + 4 * g - 3
  local c, window = tonumber(ARGV[at]), KEYS[first + tonumber(ARGV[at + 1])]
  if c > 0 and early[c] then
    replies[g] = early[c]
  else
    local stored = redis.call('HMGET', window, 'start', 'count')
    local start, count = tonumber(stored[1]), tonumber(stored[2]) or 0
    if start == nil or now >= start + span then start, count = -1, 0 end
    local granted = math.min(tonumber(ARGV[at + 3]), math.max(0, tonumber(ARGV[at + 2]) - count))
    if granted > 0 and start < 0 then
      start, count = now, granted
      redis.call('HSET', window, 'start', ARGV[1], 'count', granted)
      redis.call('PEXPIRE', window, span)
    elseif granted > 0 then
      count = redis.call('HINCRBY', window, 'count', granted)
    end
    if granted > 0 then
      redis.call('HINCRBY', usage, usage_field(window), granted)
      served = true
    end
    replies[g] = {granted, count, 0, start}
  end
end
if served then redis.call('PEXPIRE', usage, ARGV[5]) end
return replies
`;

/**
 * The most counts one script run holds; an iteration with more sends more runs in the same write.
 * A script holds Redis for its whole run, every other client waiting: 256 counts of as many
 * keys is about 3 ms of Redis (a key check and a window about 10 µs, quiet, INFO commandstats).
 */
const COUNTS_A_RUN = 256;

/** One count waiting for its iteration's batch. */
interface Pending {
  window: string;
  limit: number;
  check: readonly [string, string];
  resolve(taken: Taken): void;
  reject(error: unknown): void;
}

/** The counts of one key check, window and limit in a batch, in the order they came. */
interface Group {
  check: readonly [string, string];
  /** Its key check's number in the command (0: none). */
  checkNumber: number;
  limit: number;
  counts: Pending[];
  /** Its place in the command (and so in the reply). */
  index: number;
}

/** A batch's command: each key check and each window once, and the groups of counts referring to them. */
function commandOf(
  batch: readonly Pending[],
  checkKeys: readonly string[],
  now: number,
  retentionDays: number,
): { keys: string[]; args: (string | number)[]; groups: Group[] } {
  const checks: string[] = [];
  /** Key check numbers by key hash (a hash met with two records, one changing mid-batch, is checked twice). */
  const checkNumbers = new Map<string, number>();
  const windows = new Map<string, number>();
  const groups: Group[] = [];
  /** The groups of each window, by its number: mostly one (no string made and hashed a count to find it). */
  const groupsOfWindow: Group[][] = [];
  const groupArgs: number[] = [];
  for (const count of batch) {
    const { window, limit, check } = count;
    let c = 0;
    if (check !== NO_CHECK) {
      c = checkNumbers.get(check[0]) ?? 0;
      if (c === 0 || checks[2 * c - 1] !== check[1]) {
        c = checks.push(check[0], check[1]) / 2;
        checkNumbers.set(check[0], c);
      }
    }
    let n = windows.get(window);
    if (n === undefined) windows.set(window, (n = windows.size + 1));
    const mates = (groupsOfWindow[n] ??= []);
    let group: Group | undefined;
    for (const other of mates) if (other.checkNumber === c && other.limit === limit) group = other;
    if (group) {
      group.counts.push(count);
      groupArgs[4 * group.index + 3]++;
    } else {
      const made = { check, checkNumber: c, limit, counts: [count], index: groups.length };
      groups.push(made);
      mates.push(made);
      groupArgs.push(c, n, limit, 1);
    }
  }
  const usage = usageTarget(now, retentionDays);
  return {
    keys: [...checkKeys, ...windows.keys(), usage.key],
    args: [now, WINDOW_MS, checkKeys.length, checks.length / 2, usage.ttlMs, ...checks, ...groupArgs],
    groups,
  };
}

export class RedisTakes {
  private readonly script: LuaScript;
  private readonly checkKeys: readonly string[];
  private pending: Pending[] = [];

  constructor(
    private readonly client: RedisClient,
    private readonly clock: Clock,
    private readonly keyCheck: RedisKeyCheck | undefined,
    /** Told the batch's reply came (the refusal watch), once a batch. */
    private readonly answered: () => void,
    /** What a failure of the batch's script becomes (StoreUnavailable), for each of its counts. */
    private readonly fail: (error: unknown) => never,
    /** Days the usage history keeps. */
    private readonly retentionDays: number,
  ) {
    this.script = new LuaScript(`${keyCheck?.lua ?? NO_KEY_CHECK_LUA}${TAKES_LUA}`);
    client.load(this.script);
    this.checkKeys = keyCheck?.redisKeys ?? [];
  }

  /** Count one request of a counter without held slots, with the iteration's others. */
  take(kind: QuotaKind, scope: string, limit: number, key: KeyRecord | undefined): Promise<Taken> {
    const check = key && this.keyCheck ? this.keyCheck.checkOf(key) : NO_CHECK;
    return new Promise((resolve, reject) => {
      if (this.pending.push({ window: windowKeyOf(kind, scope), limit, check, resolve, reject }) === 1)
        this.client.beforeWrite(this.send);
    });
  }

  /** The iteration's counts, in script runs of at most COUNTS_A_RUN. */
  private readonly send = (): void => {
    const pending = this.pending;
    this.pending = [];
    const now = this.clock.now();
    for (let i = 0; i < pending.length; i += COUNTS_A_RUN) this.run(pending.slice(i, i + COUNTS_A_RUN), now);
  };

  /** One script run for `batch`, each count settled from its group's reply. */
  private run(batch: readonly Pending[], now: number): void {
    const { keys, args, groups } = commandOf(batch, this.checkKeys, now, this.retentionDays);
    this.client.evalReplicated(this.script, keys, args).then(
      (reply) => {
        this.answered();
        groups.forEach((group, i) => this.settle(group, (reply as Reply[])[i], now));
      },
      (error: unknown) => {
        for (const count of batch) {
          try {
            this.fail(error);
          } catch (failure) {
            count.reject(failure);
          }
        }
      },
    );
  }

  /**
   * Settle a group's counts from its reply: the first `granted` counted, each seeing the window
   * as its own count left it, the rest refused, seeing the window as the group left it.
   */
  private settle(group: Group, reply: Reply, now: number): void {
    try {
      if (group.check !== NO_CHECK) this.keyCheck!.checked(group.check[0], reply);
    } catch (error) {
      for (const count of group.counts) count.reject(error);
      return;
    }
    const [granted, count, held, start] = reply as number[];
    group.counts.forEach(({ resolve }, i) => {
      const allowed = i < granted;
      resolve(
        takenAs(allowed, counterStatus(allowed ? count - granted + i + 1 : count, held, start, group.limit, now)),
      );
    });
  }
}
