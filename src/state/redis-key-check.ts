/**
 * The key check a store shared by several servers runs in the same step as a count: the Redis
 * key store gives it (src/keys/redis-keys.ts) and the Redis quota runs it (src/quota/redis-quota.ts), each
 * knowing only this, not the other.
 */
import type { Reply } from '../redis/resp.ts';
import type { KeyRecord } from './key-record.ts';

/**
 * What the quota's scripts run first to check the record a request was decided with, in the
 * same step as its count (src/keys/redis-keys.ts gives it): nothing is counted for a key whose record
 * changed, and the request costs one round trip.
 */
export interface RedisKeyCheck {
  /**
   * Lua that defines `key_check(keys, hash, json)`: nil when the record is current, else the early
   * answer to return before anything is written. `keys` holds `redisKeys` from 1; the two values
   * are checkOf's.
   */
  readonly lua: string;
  readonly redisKeys: readonly string[];
  /** The two arguments that check `record`. */
  checkOf(record: KeyRecord): [string, string];
  /** Read a checked step's reply: returns when the record was current, else throws (KeyChanged, StoreReset). */
  checked(hash: string, reply: Reply): void;
}
