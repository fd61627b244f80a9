/**
 * API keys in Redis, shared by every server. Two hashes: `keys` (id -> the record as JSON,
 * revoked ones included; the plain key is never stored, only its SHA-256 in the record) and
 * `key-hashes` (SHA-256 -> id, active keys only). Every request looks its key up in Redis (one
 * script, one round trip), so a key revoked or regenerated from any host fails on the very next
 * request at every server: there is no cache to invalidate.
 *
 * Changes (the keys command) are the same KeyChange functions the file store applies, made
 * safe against concurrent commands by a check-and-set: they are written only if every record
 * they touch is still as it was read, else read and applied again.
 */
import { freezeRecord } from './file.ts';
import type { KeyChange } from './changes.ts';
import { hashKey, KEY_PATTERN, KeyStoreError, type KeyLookup, type KeyRecord } from './record.ts';
import { LuaScript, type RedisClient } from '../redis/client.ts';
import { REDIS_PREFIX, unavailable } from '../quota/redis.ts';

const RECORDS = `${REDIS_PREFIX}keys`;
const INDEX = `${REDIS_PREFIX}key-hashes`;

/** ARGV: the key's SHA-256. The active record's JSON, or nil. */
const LOOKUP = new LuaScript(`
local id = redis.call('HGET', KEYS[2], ARGV[1])
if not id then return false end
return redis.call('HGET', KEYS[1], id)
`);

/**
 * ARGV: groups of five: id, the JSON it must have now ('' for none), the new JSON, the hash to
 * drop from the index ('' none), the hash to index ('' none: revoked). All or nothing: 0 when
 * any record changed since it was read.
 */
const PUT = new LuaScript(`
for i = 1, #ARGV, 5 do
  if (redis.call('HGET', KEYS[1], ARGV[i]) or '') ~= ARGV[i + 1] then return 0 end
end
for i = 1, #ARGV, 5 do
  if ARGV[i + 3] ~= '' then redis.call('HDEL', KEYS[2], ARGV[i + 3]) end
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
  if ARGV[i + 4] ~= '' then redis.call('HSET', KEYS[2], ARGV[i + 4], ARGV[i]) end
end
return 1
`);

const MAX_ATTEMPTS = 20;

interface Stored {
  records: KeyRecord[];
  /** The JSON each record was read as, by id: what a check-and-set compares against. */
  json: Map<string, string>;
}

export class RedisKeys implements KeyLookup {
  /** Parsed records by hash, reused while Redis returns the same JSON (parsing is per request otherwise). */
  private readonly parsed = new Map<string, { json: string; record: KeyRecord }>();
  private readonly fail: (error: unknown) => never;

  constructor(
    private readonly client: RedisClient,
    logError: (line: string) => void = () => {},
  ) {
    this.fail = unavailable(logError);
  }

  /** The active key with this value, if any; 503 (HttpError) when Redis cannot be reached. */
  lookup(plainKey: string): Promise<KeyRecord | undefined> | undefined {
    if (!KEY_PATTERN.test(plainKey)) return undefined;
    const hash = hashKey(plainKey);
    return this.client.eval(LOOKUP, [RECORDS, INDEX], [hash]).then((json) => {
      if (typeof json !== 'string') {
        this.parsed.delete(hash);
        return undefined;
      }
      const known = this.parsed.get(hash);
      if (known?.json === json) return known.record;
      const record = freezeRecord(JSON.parse(json) as KeyRecord);
      // The index says active; the record has the last word (and must be this key's).
      if (record.revoked_at !== null || record.hash !== hash) return undefined;
      this.parsed.set(hash, { json, record });
      return record;
    }, this.fail);
  }

  /** Every key, revoked ones included, oldest first. */
  async records(): Promise<KeyRecord[]> {
    return (await this.read()).records;
  }

  private async read(): Promise<Stored> {
    const values = (await this.client.send(['HVALS', RECORDS])) as string[];
    const json = new Map<string, string>();
    const records = values.map((text) => {
      const record = freezeRecord(JSON.parse(text) as KeyRecord);
      json.set(record.id, text);
      return record;
    });
    records.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    return { records, json };
  }

  /** Apply a change of the keys command; throws what it throws (KeyStoreError, KeyInputError). */
  async update<T>(change: KeyChange<T>): Promise<T> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const stored = await this.read();
      const before = new Set(stored.records);
      const records = [...stored.records];
      const result = change(records);
      const changed = records.filter((r) => !before.has(r));
      if (changed.length === 0 || (await this.put(changed, stored.json))) return result;
    }
    throw new KeyStoreError(`the keys in Redis kept changing under this command (${MAX_ATTEMPTS} attempts); try again`);
  }

  /**
   * Add records from a state folder (keys migrate): each one absent is added, one already
   * there as it is is left alone, one there with other contents is a conflict (not changed).
   */
  async import(records: readonly KeyRecord[]): Promise<{ added: number; present: number; conflicts: string[] }> {
    const { json } = await this.read();
    const outcome = { added: 0, present: 0, conflicts: [] as string[] };
    for (const record of records) {
      const existing = json.get(record.id);
      if (existing === undefined && (await this.put([record], json))) outcome.added++;
      else if (existing === JSON.stringify(record)) outcome.present++;
      else outcome.conflicts.push(record.id);
    }
    return outcome;
  }

  private async put(changed: readonly KeyRecord[], json: Map<string, string>): Promise<boolean> {
    const args = changed.flatMap((record) => {
      const old = json.get(record.id);
      const oldHash = old === undefined ? '' : (JSON.parse(old) as KeyRecord).hash;
      return [record.id, old ?? '', JSON.stringify(record), oldHash, record.revoked_at === null ? record.hash : ''];
    });
    return (await this.client.eval(PUT, [RECORDS, INDEX], args)) === 1;
  }
}
