/**
 * The usage history on Redis: a hash a UTC day, `bda:usage:YYYY-MM-DD`, one field a scope and
 * kind (`SCOPE KIND`, the file store's usage key) holding the answers served that day. The quota's
 * scripts add to it in the same run that counts (redis-takes.ts, redis-quota.ts), so it is exact
 * and atomic with the count; each hash expires at the start of the day the retention ends it.
 */
import { sortInTurns } from '../lib/sort-in-turns.ts';
import type { RedisClient } from '../redis/client.ts';
import { REDIS_PREFIX } from '../redis/keyspace.ts';
import { DAY_MS, daysFrom, usageKey, usageRow, utcDay, type UsageRow } from './usage-day.ts';
import { QUOTA_KINDS } from '../state/quota-counter.ts';

/** Fields asked for in one HSCAN step, and rows in a piece of the answer. */
const SCAN_COUNT = 5_000;
const ROWS_A_PIECE = 5_000;

export function usageRedisKey(day: string): string {
  return `${REDIS_PREFIX}usage:${day}`;
}

/**
 * The day usageTarget last named, and its hash. Every batch of counts asks (one a turn), and
 * naming a day anew (toISOString, then its text parsed back) took about 8k instructions each time
 * (callgrind); a UTC day starts at a multiple of DAY_MS, so the start alone tells the day.
 */
let lastDay = { start: Number.NaN, key: '' };

/**
 * The usage hash of `now`'s day, and how long it has to live (ms): to its day's start plus the
 * retention, by the server's clock, as its days are. Set by PEXPIRE, which the servers' Redis user
 * may already run (deploy/redis/users.acl): an upgrade needs no change to it for counting.
 */
export function usageTarget(now: number, retentionDays: number): { key: string; ttlMs: number } {
  const start = Math.floor(now / DAY_MS) * DAY_MS;
  if (start !== lastDay.start) lastDay = { start, key: usageRedisKey(utcDay(start)) };
  return { key: lastDay.key, ttlMs: Math.max(1, start + retentionDays * DAY_MS - now) };
}

/**
 * Lua: the usage field of a window's Redis key (`bda:quota:KIND:SCOPE` -> `SCOPE KIND`), for the
 * scripts that count (redis-counters.ts names the windows).
 */
export const USAGE_FIELD_LUA = `
local function usage_field(window)
  local rest = string.sub(window, ${`${REDIS_PREFIX}quota:`.length + 1})
  local colon = string.find(rest, ':', 1, true)
  return string.sub(rest, colon + 1) .. ' ' .. string.sub(rest, 1, colon - 1)
end
`;

/** A day's hash read a step at a time (HSCAN), its fields sorted between turns, as pieces of rows. */
async function* dayRows(client: RedisClient, day: string): AsyncGenerator<UsageRow[]> {
  const counts = new Map<string, number>();
  let cursor = '0';
  do {
    const [next, fields] = (await client.send(['HSCAN', usageRedisKey(day), cursor, 'COUNT', SCAN_COUNT])) as [
      string,
      string[],
    ];
    for (let i = 0; i < fields.length; i += 2) counts.set(fields[i]!, Number(fields[i + 1]));
    cursor = next;
  } while (cursor !== '0');
  const keys = await sortInTurns([...counts.keys()]);
  for (let from = 0; from < keys.length; from += ROWS_A_PIECE) {
    const piece: UsageRow[] = [];
    for (const key of keys.slice(from, from + ROWS_A_PIECE)) {
      const served = counts.get(key)!;
      if (served > 0) piece.push(usageRow(day, key, served));
    }
    if (piece.length > 0) yield piece;
  }
}

/** The rows from `from` to `to` (days, inclusive), by day then scope, in pieces. */
export async function* redisUsageHistory(client: RedisClient, from: string, to: string): AsyncGenerator<UsageRow[]> {
  for (const day of daysFrom(from, to)) yield* dayRows(client, day);
}

/** One scope's rows from `from` to `to`, by day then kind: each day's two fields (HMGET), not its whole hash. */
export async function redisScopeHistory(
  client: RedisClient,
  from: string,
  to: string,
  scope: string,
): Promise<UsageRow[]> {
  const keys = [...QUOTA_KINDS].sort().map((kind) => usageKey(kind, scope));
  const days = daysFrom(from, to);
  const replies = await Promise.all(days.map((day) => client.send(['HMGET', usageRedisKey(day), ...keys])));
  return days.flatMap((day, d) =>
    keys.flatMap((key, k) => {
      const served = Number((replies[d] as (string | null)[])[k] ?? 0);
      return served > 0 ? [usageRow(day, key, served)] : [];
    }),
  );
}
