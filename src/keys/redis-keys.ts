/**
 * API keys in Redis, shared by every server. Two hashes: `keys` (id -> the record as JSON,
 * revoked ones included; the plain key is never stored, only its SHA-256 in the record) and
 * `key-hashes` (SHA-256 -> id, active keys only), laid out and scripted in
 * src/keys/redis-scripts.ts. Every request's record is checked in Redis in the same script that
 * counts it (KEY_CHECK_LUA, run by src/quota/), so a key revoked or changed from any host takes
 * effect on the very next request at every server, and a request with a key the server has met
 * before costs one round trip, not a lookup and a count.
 *
 * Beside them a marker, `store` (JSON: when the store was first written), written by the keys
 * command with every change. A Redis that lost its data (FLUSHALL, a restart without
 * persistence) has no marker: the lookup script sees that in the same round trip, and the
 * request is answered 503 (StoreReset), not 401, since the key was not found because the
 * server lost it, not because it is bad. A store written before the marker existed is adopted
 * (the marker added) by the keys command and by a server starting on it (redis-records.ts, which
 * reads and changes the records as the keys command and the admin listener do).
 */
import { LRUCache } from 'lru-cache';
import { hashKey, KEY_PATTERN, parseRecord } from './record.ts';
import { presentedAs, type KeyLookup, type KeyRecord } from '../state/key-record.ts';
import type { Conditions } from '../lib/conditions.ts';
import type { RedisClient } from '../redis/client.ts';
import { UNWATCHED, type RefusalWatch } from '../redis/refusals.ts';
import { unavailable } from '../state/redis-errors.ts';
import type { RedisKeyCheck } from '../state/redis-key-check.ts';
import { KeyChanged, StoreReset } from '../state/errors.ts';
import type { Eventually } from '../lib/eventually.ts';
import { TurnMemo } from '../lib/turn-memo.ts';
import type { Reply } from '../redis/resp.ts';
import { KEY_CHANGED, KEY_CHECK_LUA, LOOKUP, LOOKUP_KEYS, NO_STORE, STORE_MARKER } from './redis-scripts.ts';

/** The condition /readyz reports while the marker is missing. */
export const RESET_CONDITION = 'redis reset';
/** The lookup, as a command the refusal watch holds refusals for. */
const LOOKUP_COMMAND = 'key lookup';

/** What the probe looks up to read the marker as requests read it: no key's hash (not hex). */
const NO_KEY = '-';
/** Records kept by key hash (about a kilobyte each). */
const KNOWN_RECORDS = 20_000;

interface Known {
  /** The record as Redis gave it: what KEY_CHECK_LUA compares with the record in Redis. */
  json: string;
  record: KeyRecord;
}

export interface RedisKeysOptions {
  /** Told of the lookup's refusals and successes (default: nobody; the keys command reports failures itself). */
  watch?: RefusalWatch;
  /** Where a missing marker is reported (the server's readiness); the keys command has none. */
  conditions?: Conditions;
}

export class RedisKeys implements KeyLookup, RedisKeyCheck {
  readonly lua = KEY_CHECK_LUA;
  readonly redisKeys: readonly string[] = LOOKUP_KEYS;
  /**
   * Records as Redis last gave them, by key hash: a request with a key met before is decided at
   * once on its record, which the count's own script then checks is still current (KEY_CHECK_LUA),
   * so the counted request costs one round trip and a change still takes effect on the next
   * request. Bounded: a key pushed out costs one lookup more when it comes back.
   */
  private readonly known = new LRUCache<string, Known>({ max: KNOWN_RECORDS });
  /**
   * A presented key's hash (null: not a key's form), for the rest of the turn: its SHA-256 and the
   * form's check were 3.9k of the 22k instructions a request on Redis cost more than one on the
   * state folder, whose key store keeps what it found for the turn too (bench/analysis.md).
   */
  private readonly hashes = new TurnMemo((plainKey) => (KEY_PATTERN.test(plainKey) ? hashKey(plainKey) : null));
  private readonly fail: (error: unknown) => never;
  private readonly watch: RefusalWatch;
  /** The marker was found missing and not yet back: RESET_CONDITION holds. */
  private storeLost = false;

  constructor(
    private readonly client: RedisClient,
    private readonly options: RedisKeysOptions = {},
  ) {
    this.watch = options.watch ?? UNWATCHED;
    this.fail = unavailable(this.watch, LOOKUP_COMMAND);
    client.load(LOOKUP);
  }

  /**
   * The active key with this value, if any: at once for a key met before (its record is checked
   * by the request's quota step, see checkOf), else after a lookup; StoreUnavailable when Redis
   * cannot be reached, StoreReset when it lost the store.
   */
  lookup(plainKey: string): Eventually<KeyRecord | undefined> {
    const hash = this.hashes.get(plainKey);
    if (hash === null) return undefined;
    const known = this.known.get(hash);
    if (known) return known.record;
    return this.client.eval(LOOKUP, LOOKUP_KEYS, [hash, '']).then((reply) => this.found(hash, reply), this.fail);
  }

  /** The record Redis holds now for this value, the one met before forgotten. */
  lookupAgain(plainKey: string): Eventually<KeyRecord | undefined> {
    const hash = this.hashes.get(plainKey);
    if (hash !== null) this.known.delete(hash);
    return this.lookup(plainKey);
  }

  /**
   * What KEY_CHECK_LUA is given to check `record`: its hash and its JSON as this server holds it
   * ('' when it holds another: the check then says changed). The JSON itself, compared as a
   * string, not a digest of it: Redis's sha1hex of each record was most of the check's cost
   * (with the data quota's slots skipped, src/quota/redis-quota.ts, a counted request's script went
   * from 20-23 to 17 µs of Redis's time, INFO commandstats, the two alternated).
   */
  checkOf(record: KeyRecord): [string, string] {
    const known = this.known.peek(record.hash);
    return [record.hash, known?.record === record ? known.json : ''];
  }

  /**
   * Read a checked script's reply: nothing when the record was current, else StoreReset (no
   * marker) or KeyChanged with the record as it is now (undefined: revoked or gone).
   */
  checked(hash: string, reply: Reply): void {
    if ((reply as Reply[])[0] === KEY_CHANGED) throw new KeyChanged(this.found(hash, reply));
    this.found(hash, reply);
  }

  /**
   * The record an early answer of KEY_CHECK_LUA gives (remembered), undefined for none; StoreReset
   * when the marker is missing.
   */
  private found(hash: string, reply: Reply): KeyRecord | undefined {
    const [first, json] = reply as Reply[];
    if (!this.sawMarker(first !== NO_STORE)) throw new StoreReset();
    return first === KEY_CHANGED ? this.remember(hash, typeof json === 'string' ? json : null) : undefined;
  }

  /** Keep the record Redis gave for this hash (or forget it: null), and return it if it is an active key's. */
  private remember(hash: string, json: string | null): KeyRecord | undefined {
    const known = this.known.get(hash);
    if (json !== null && known?.json === json) return known.record;
    this.known.delete(hash);
    if (json === null) return undefined;
    const stored = parseRecord(json);
    // The index says active; the record has the last word (and must be this key's, by its value
    // or by the value its regeneration replaced).
    if (stored.revoked_at !== null || !(stored.hash === hash || stored.previous?.hash === hash)) return undefined;
    const record = presentedAs(stored, hash);
    this.known.set(hash, { json, record });
    return record;
  }

  /**
   * The probe's check (src/redis/health.ts): the lookup script for no key, so the marker is read as
   * requests read it.
   */
  checkStore(): Promise<void> {
    return this.client
      .eval(LOOKUP, LOOKUP_KEYS, [NO_KEY, ''])
      .then((reply) => void this.found(NO_KEY, reply), this.fail);
  }

  /**
   * Note whether a lookup or a check found the marker, beginning or ending RESET_CONDITION when
   * that changed; returns `present`.
   */
  private sawMarker(present: boolean): boolean {
    this.watch.answered(LOOKUP_COMMAND);
    if (present) {
      if (this.storeLost) {
        this.storeLost = false;
        this.options.conditions?.end(RESET_CONDITION);
      }
      return true;
    }
    if (!this.storeLost) {
      this.storeLost = true;
      this.options.conditions?.begin(
        RESET_CONDITION,
        `Redis at ${this.client.address.label} holds no key store (no ${STORE_MARKER} key): it is empty or was reset ` +
          `(FLUSHALL, a restart without persistence, a new Redis); ` +
          'keyed requests answer 503 until it is restored from a backup or written by the keys command (keys ' +
          'migrate, keys create)',
      );
    }
    return false;
  }
}
