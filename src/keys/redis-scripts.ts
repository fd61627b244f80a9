/**
 * The key store's layout in Redis and the scripts that read and write it (src/keys/redis-keys.ts is
 * the store that runs them): two hashes, `keys` (id -> the record as JSON) and `key-hashes`
 * (SHA-256 -> id, active keys only), and the marker `store`.
 */
import { LuaScript } from '../redis/client.ts';
import { REDIS_PREFIX } from '../redis/keyspace.ts';

export const RECORDS = `${REDIS_PREFIX}keys`;
export const INDEX = `${REDIS_PREFIX}key-hashes`;
/** The Redis key whose presence says this Redis holds the key store. */
export const STORE_MARKER = `${REDIS_PREFIX}store`;
/**
 * The keys' changes, a stream (XADD, read by XREVRANGE: commands the servers' Redis user already
 * runs for the audit trail), one entry a record written: `n` (the count of changes so far, from
 * CHANGE_COUNT) and `id`. A server's admin listener keeps its table of every key in memory and reads
 * only the changes since (src/keys/redis-mirror.ts); a gap in `n` (the stream trimmed past it) has
 * it read every key again.
 */
export const CHANGES = `${REDIS_PREFIX}key-changes`;
export const CHANGE_COUNT = `${REDIS_PREFIX}key-change-count`;
/** Entries the stream keeps, about (MAXLEN ~): a table further behind than this reads every key again. */
export const CHANGES_KEPT = 10_000;

/**
 * The key check (RedisKeyCheck) the quota's scripts run first: that a key's record is still the
 * one the server decided the request with. A Lua function, `key_check(keys, hash, json)`, whose
 * `keys` hold LOOKUP_KEYS from 1 and whose two values are checkOf's (both '' for no check). It
 * returns nil when the record is current (or nothing is checked), else the early answer, before
 * anything is written: {NO_STORE} when the marker is missing, {KEY_CHANGED, record} when the
 * record changed, {KEY_CHANGED} when there is no active record.
 */
export const KEY_CHECK_LUA = `
local function key_check(keys, hash, json)
  if hash == '' then return nil end
  if redis.call('EXISTS', keys[3]) == 0 then return {-1} end
  local id = redis.call('HGET', keys[2], hash)
  local record = id and redis.call('HGET', keys[1], id)
  if not record then return {-2} end
  if record ~= json then return {-2, record} end
  return nil
end
`;
export const LOOKUP_KEYS = [RECORDS, INDEX, STORE_MARKER];
/** KEY_CHECK_LUA's early answers (a script's own answers never start with a negative number). */
export const NO_STORE = -1;
export const KEY_CHANGED = -2;
/**
 * The lookup is the key check against no record (ARGV: the key's SHA-256): it always answers
 * early, {NO_STORE}, {KEY_CHANGED} (no active key) or {KEY_CHANGED, record}.
 */
export const LOOKUP = new LuaScript(`${KEY_CHECK_LUA}return key_check(KEYS, ARGV[1], '')`);

/**
 * KEYS: records, index, marker, changes, change count. ARGV: the marker's JSON (written if absent),
 * then groups of five: id, the JSON it must have now ('' for none), the new JSON, the hashes to
 * drop from the index and the hashes to index (each comma-separated, '' for none: a key is found by
 * its value and, during a regeneration's overlap, by the value replaced). All or nothing: 0 when
 * any record changed since it was read. Each record written is told to the changes' stream.
 */
export const PUT = new LuaScript(`
for i = 2, #ARGV, 5 do
  if (redis.call('HGET', KEYS[1], ARGV[i]) or '') ~= ARGV[i + 1] then return 0 end
end
for i = 2, #ARGV, 5 do
  for hash in string.gmatch(ARGV[i + 3], '[^,]+') do redis.call('HDEL', KEYS[2], hash) end
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
  for hash in string.gmatch(ARGV[i + 4], '[^,]+') do redis.call('HSET', KEYS[2], hash, ARGV[i]) end
  local n = redis.call('HINCRBY', KEYS[5], 'n', 1)
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', ${CHANGES_KEPT}, '*', 'n', n, 'id', ARGV[i])
end
redis.call('SET', KEYS[3], ARGV[1], 'NX')
return 1
`);

/**
 * KEYS: records, marker. ARGV: the marker's JSON. A store with records and no marker was
 * written before the marker existed: the marker is added (1). Writes nothing otherwise (0), so
 * it runs on a replica holding the marker.
 */
export const ADOPT = new LuaScript(`
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('HLEN', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'NX')
return 1
`);
