/**
 * What the quota's scripts on Redis share (src/quota/redis-quota.ts, one step at a time, and
 * src/quota/redis-takes.ts, an iteration's counts at once): a counter's Redis keys, the key
 * check they run first, and how a counter's reply reads.
 */
import { rememberedByKind } from '../lib/recent-map.ts';
import { REDIS_PREFIX } from '../redis/keyspace.ts';
import type { Reply } from '../redis/resp.ts';
import { WINDOW_MS } from './window.ts';
import { DURABLE_NOW, type QuotaKind, type QuotaStatus, type Taken } from '../state/quota-counter.ts';

/** The key check's arguments when no key is checked (the keys command's own steps). */
export const NO_CHECK: readonly [string, string] = ['', ''];

/** The key check of a counter that checks no key (the keys command's). */
export const NO_KEY_CHECK_LUA = 'local function key_check() return nil end\n';

/** A counter's two Redis keys: its window and its held slots. */
export function redisKeysOf(kind: QuotaKind, scope: string): [string, string] {
  return [windowKeyOf(kind, scope), `${REDIS_PREFIX}held:${kind}:${scope}`];
}

/**
 * A counter's window key, the same string for the same counter: made once, not for every counted
 * request, and hashed once by the Maps a batch keys it in (src/quota/redis-takes.ts).
 */
export const windowKeyOf: (kind: QuotaKind, scope: string) => string = rememberedByKind(
  (kind, scope) => `${REDIS_PREFIX}quota:${kind}:${scope}`,
);

/** What a step found: whether it was allowed, and the counter after it. */
export interface Outcome {
  allowed: boolean;
  status: QuotaStatus;
}

/** A counter's reply, {allowed (1/0), count, held, start (-1: no window)}, read at `now` against `limit`. */
export function outcomeOf(reply: Reply, limit: number, now: number): Outcome {
  const [allowed, count, held, start] = reply as number[];
  return { allowed: allowed === 1, status: counterStatus(count, held, start, limit, now) };
}

/** The quota a counter shows with `count` counted and `held` held in its window from `start` (-1: none), at `now`. */
export function counterStatus(count: number, held: number, start: number, limit: number, now: number): QuotaStatus {
  const remaining = Math.max(0, limit - count - held);
  return { limit, remaining, resetAt: (start < 0 ? now : start) + WINDOW_MS, exhausted: remaining === 0 };
}

/** A count's answer: counted (durable at once: Redis has it when it answers) or refused, and the quota it shows. */
export function takenAs(allowed: boolean, status: QuotaStatus): Taken {
  return { status, durable: allowed ? DURABLE_NOW : null };
}
