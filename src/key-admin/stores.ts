/**
 * The keys command's view of a store: apply a change (src/keys/changes.ts), list the keys, and, for
 * Redis, take in a state folder (`keys migrate`, ./migrate.ts). The file store works as it always has, at
 * once and under its lock (a server's admin listener, in turns: serverFileAdmin); Redis answers
 * later, and its failures are the store's refusals (KeyStoreError: exit status 1). Every change to
 * Redis, and `keys migrate`, leaves its store marker (src/keys/redis-records.ts), by which the servers
 * tell a reset Redis from a bad key.
 */
import { systemClock, type Clock } from '../lib/clock.ts';
import type { Eventually } from '../lib/eventually.ts';
import { loadKeys, readKeysFileInTurns } from '../keys/file-read.ts';
import { changeKeysInTurns, keyInTurns } from '../keys/file-change.ts';
import { keyPiecesInTurns, type KeyPieces } from '../keys/file-list.ts';
import { RedisMirror } from '../keys/redis-mirror.ts';
import { updateKeys } from '../keys/file-append.ts';
import type { KeyChange } from '../keys/table.ts';
import { KeyStoreError, keysPath, matchesFilter, type KeyFilter } from '../keys/record.ts';
import type { KeyRecord } from '../state/key-record.ts';
import { usageOf, usageRows, withStatus, type ScopeUsage } from './usage.ts';
import type { QuotaLimits } from '../quota/scopes.ts';
import { readCounts } from '../quota/replay.ts';
import { readUsageHistory } from '../quota/usage-read.ts';
import { redisScopeHistory, redisUsageHistory } from '../quota/redis-usage.ts';
import type { UsageBook } from '../quota/usage-book.ts';
import type { HistoryPiece, UsageRow } from '../quota/usage-day.ts';
import {
  RedisClient,
  RedisCommandError,
  RedisUnavailable,
  type RedisAddress,
  type ReplicaConfirmation,
} from '../redis/client.ts';
import { RedisRecords } from '../keys/redis-records.ts';
import { storeLabel } from '../redis/address.ts';
import { RedisQuota } from '../quota/redis-quota.ts';
import { fileAudit, redisAudit, type AuditLog } from '../keys/audit.ts';
import { fileTokenStore, redisTokenStore, type AdminTokenStore } from '../keys/admin-tokens.ts';
import { migrateFolder } from './migrate.ts';
import { lastUsedInFile, readLastUsedRedis, type LastUsed, type LastUses } from '../keys/last-used.ts';
import { errorCode } from '../lib/error-code.ts';
import { LIMITS_REDIS_KEY, parseLimitsRecord, readLimitsFile, type RecordedLimits } from '../quota/recorded-limits.ts';

export interface KeyAdmin {
  /** Where the keys are, for messages. */
  readonly where: string;
  apply<T>(change: KeyChange<T>): Eventually<T>;
  /** Every key `filter` lets through (all without one), revoked ones included; null when no store exists yet. */
  list(filter?: KeyFilter): Eventually<KeyRecord[] | null>;
  /**
   * The same keys a piece at a time, never held at once (the state folder's, for a server:
   * src/keys/file-list.ts); null when no store exists yet.
   */
  pieces?(filter?: KeyFilter): Promise<KeyPieces | null>;
  /**
   * Every key by id as a server holds them in memory (its own state folder's, or Redis's as its
   * admin listener follows them: src/keys/redis-mirror.ts), for a view to be made without reading
   * every key; absent where no server holds them (the keys command).
   */
  directory?(): Eventually<ReadonlyMap<string, KeyRecord>>;
  /** Each quota scope of the active keys at `now`, read beside running servers without writing. */
  usage(limits: QuotaLimits, now: number): Eventually<ScopeUsage[]>;
  /**
   * The answers served per UTC day and scope from `from` to `to` (inclusive), by day then scope,
   * in pieces (src/quota/usage-book.ts, src/quota/redis-usage.ts); read beside running servers without writing.
   * Given a scope, that scope's rows only, read by its own lines or fields where the store can.
   */
  usageHistory(from: string, to: string, scope?: string | null): AsyncIterable<HistoryPiece>;
  /** The limits the server last started here recorded (src/quota/recorded-limits.ts); null when none has. */
  recordedLimits(): Eventually<RecordedLimits | null>;
  /**
   * When these keys (every key without ids) were last used, by id, as the servers last wrote it (at
   * most a minute stale: src/keys/last-used.ts); a key never used is absent.
   */
  lastUsed(ids: readonly string[] | null): Eventually<LastUses>;
  /**
   * The admin listener's tokens (src/keys/admin-tokens.ts) and the audit trail of changes
   * (src/keys/audit.ts), kept beside the keys.
   */
  readonly tokens: AdminTokenStore;
  readonly audit: AuditLog;
  close(): void;
}

export function fileAdmin(stateDir: string): KeyAdmin {
  return {
    where: stateDir,
    apply: (change) => updateKeys(stateDir, change),
    list: (filter = {}) => loadKeys(stateDir)?.filter((record) => matchesFilter(record, filter)) ?? null,
    usage: (limits, now) => usageOf(loadKeys(stateDir) ?? [], readCounts(stateDir), limits, now),
    usageHistory: (from, to, scope = null) =>
      onePiece(() => readUsageHistory(stateDir, from, to).filter((row) => scope === null || row.scope === scope)),
    recordedLimits: () => readLimitsFile(stateDir),
    lastUsed: (ids) => {
      try {
        return lastUsedInFile(stateDir, ids);
      } catch (error) {
        throw new KeyStoreError(`cannot read the keys' last-used times in ${stateDir}: ${errorCode(error)}`);
      }
    },
    tokens: fileTokenStore(stateDir),
    audit: fileAudit(stateDir),
    close: () => {},
  };
}

/**
 * The state folder's store as a server changes it (its admin listener): the keys command's, except
 * that nothing holds the event loop for long. A change finds the keys it reads between turns and
 * waits for a keys command holding the store's lock between turns too (changeKeysInTurns), an
 * audit entry is made durable off the loop, a list reads every key in slices between turns
 * keeping only those its filter lets through (readKeysFileInTurns), and a key asked for by its id
 * alone is found by its line, as a change finds it (keyInTurns), not by reading every key.
 */
/** What a server holds in memory that its admin listener reads instead of the state folder's files. */
export interface ServerHeld {
  lastUsed: LastUsed;
  /** Every key by id, as the server follows keys.json (src/keys/file-keys.ts). */
  directory?: (() => ReadonlyMap<string, KeyRecord>) | null;
  usage?: UsageBook | null;
}

export function serverFileAdmin(stateDir: string, { lastUsed, directory = null, usage = null }: ServerHeld): KeyAdmin {
  const path = keysPath(stateDir);
  const admin = fileAdmin(stateDir);
  return {
    ...admin,
    ...(directory ? { directory } : {}),
    lastUsed: () => lastUsed.lookup(),
    // The server's own book: its counts in memory with its files, read between turns.
    usageHistory: (from, to, scope = null) => {
      if (!usage) return admin.usageHistory(from, to, scope);
      return scope === null ? usage.history(from, to) : onePiece(() => usage.scopeHistory(from, to, scope));
    },
    async list(filter = {}) {
      // The keys the server holds, as the file says now: an org's keys for a key's page in
      // milliseconds, where reading the file for them took a second at 100,000 keys.
      if (directory) return held(directory(), filter);
      const id = idAlone(filter);
      if (id !== null) {
        const found = await keyInTurns(path, id);
        if (found !== undefined) return found === null ? [] : [found];
      }
      return (await readKeysFileInTurns(path, filter))?.records ?? null;
    },
    pieces: (filter = {}) => keyPiecesInTurns(path, filter),
    apply: (change) => changeKeysInTurns(stateDir, change),
    audit: fileAudit(stateDir, true),
  };
}

/** The keys a filter lets through of those a server holds. */
function held(directory: ReadonlyMap<string, KeyRecord>, filter: KeyFilter): KeyRecord[] {
  return [...directory.values()].filter((record) => matchesFilter(record, filter));
}

/** Rows read at once, as one piece (the keys command's reads; a server reads in turns). */
async function* onePiece(read: () => UsageRow[] | Promise<UsageRow[]>): AsyncGenerator<UsageRow[]> {
  yield await read();
}

/** The id a filter asks for when it asks for nothing else: that key alone is looked up, not every key read. */
function idAlone({ id, ...others }: KeyFilter): string | null {
  return id !== undefined && Object.values(others).every((value) => value === undefined) ? id : null;
}

/** Redis's failures, as the store's refusals. */
function refused(error: unknown): never {
  if (error instanceof RedisUnavailable || error instanceof RedisCommandError) throw new KeyStoreError(error.message);
  throw error;
}

/** Pieces read from Redis, its failures the store's refusals. */
async function* refusingPieces<T>(pieces: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* pieces;
  } catch (error) {
    refused(error);
  }
}

/** The same methods, with Redis's failures as the store's refusals. */
function refusing<T extends object>(methods: T): T {
  const wrapped = {} as Record<string, unknown>;
  for (const [name, method] of Object.entries(methods) as [string, (...args: unknown[]) => Promise<unknown>][])
    wrapped[name] = (...args: unknown[]) => method(...args).catch(refused);
  return wrapped as T;
}

export interface RedisAdmin extends KeyAdmin {
  /**
   * Carry a state folder into Redis (./migrate.ts: keys, open quota windows, admin tokens, audit
   * trail); what was done, for the operator.
   */
  migrate(stateDir: string): Promise<string>;
}

export async function redisAdmin(
  address: RedisAddress,
  clock: Clock = systemClock,
  replicas?: ReplicaConfirmation,
  /** A server's admin listener: every key held and followed (RedisMirror), its table and lists made from them. */
  { held: holding = false }: { held?: boolean } = {},
): Promise<RedisAdmin> {
  const client = new RedisClient({ address, replicas, commandTimeoutMs: 10_000 });
  await client.started();
  const problem = client.problem();
  if (problem) {
    client.close();
    throw new KeyStoreError(problem);
  }
  const where = storeLabel(address);
  const keys = new RedisRecords(client, clock);
  const quota = new RedisQuota(client, { clock, leaseMs: 0 });
  // A store written before the marker existed (src/keys/redis-keys.ts) is adopted by whichever
  // command comes first. Failing that (a read-only replica) keeps no command from reading; a
  // command that writes fails by itself and says why.
  await keys.adopt().catch(() => false);
  const mirror = holding ? new RedisMirror(client) : null;
  return {
    where,
    apply: (change) => keys.update(change).catch(refused),
    ...(mirror ? { directory: () => mirror.fresh().catch(refused) } : {}),
    list: (filter = {}) => {
      const id = idAlone(filter);
      if (id !== null) return keys.record(id).then((record) => (record === null ? [] : [record]), refused);
      if (mirror) return mirror.fresh().then((records) => held(records, filter), refused);
      return keys.records().then((records) => records.filter((record) => matchesFilter(record, filter)), refused);
    },
    usage: (limits, now) =>
      keys
        .records()
        .then((records) =>
          withStatus(usageRows(records, limits), (kind, scope, limit) => quota.status(kind, scope, limit), now),
        )
        .catch(refused),
    usageHistory: (from, to, scope = null) =>
      refusingPieces(
        scope === null
          ? redisUsageHistory(client, from, to)
          : onePiece(() => redisScopeHistory(client, from, to, scope)),
      ),
    recordedLimits: () =>
      client
        .send(['GET', LIMITS_REDIS_KEY])
        .then((text) => (typeof text === 'string' ? parseLimitsRecord(text) : null), refused),
    lastUsed: (ids) => readLastUsedRedis(client, ids).catch(refused),
    tokens: refusing(redisTokenStore(client)),
    audit: refusing(redisAudit(client)),
    close: () => client.close(),
    migrate: (stateDir) => migrateFolder(stateDir, { client, keys, quota, clock, where }).catch(refused),
  };
}
