/**
 * Where the server keeps its state (keys, quota counters, CritPt reservations), behind the two
 * interfaces the app uses (KeyLookup, QuotaCounter): the state folder of one server (the
 * default; its request path stays synchronous), or a Redis shared by several servers.
 */
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from './lib/clock.ts';
import type { Conditions } from './lib/conditions.ts';
import type { ServerOptions, StoreReplicas } from './config.ts';
import { FreshKeys } from './keys/fresh-keys.ts';
import { FileKeys } from './keys/file-keys.ts';
import type { KeyLookup, KeyRecord } from './state/key-record.ts';
import { FileQuota } from './quota/file-quota.ts';
import type { QuotaCounter } from './state/quota-counter.ts';
import { RedisClient, RedisUnavailable, type RedisAddress } from './redis/client.ts';
import { PROBE_INTERVAL_MS, readEvictionPolicy, RedisHealth } from './redis/health.ts';
import { SentinelWatch } from './redis/sentinel-watch.ts';
import { Refusals } from './redis/refusals.ts';
import { RedisKeys } from './keys/redis-keys.ts';
import { RedisRecords } from './keys/redis-records.ts';
import { fileLastUsed, LastUsed, redisLastUsed } from './keys/last-used.ts';
import { RedisQuota } from './quota/redis-quota.ts';
import { limitsRecord, LIMITS_REDIS_KEY, recordLimitsFile } from './quota/recorded-limits.ts';
import type { QuotaLimits } from './quota/scopes.ts';
import { REDIS_PREFIX } from './redis/keyspace.ts';
import { takePidLock } from './shared/pid-lock.ts';
import { ensurePrivateDir } from './shared/state-files.ts';
import { errorCode } from './lib/error-code.ts';

export interface StateStore {
  keys: KeyLookup;
  /** When each key was last used, noted per request and written twice a minute (src/keys/last-used.ts). */
  lastUsed: LastUsed;
  /** Every key by id as the server holds them (the state folder's: src/keys/file-keys.ts); null on Redis. */
  directory: (() => ReadonlyMap<string, KeyRecord>) | null;
  quota: QuotaCounter;
  /** The state folder's quota (null with Redis): tests reach into it, the file store closes it. */
  fileQuota: FileQuota | null;
  /**
   * Why requests cannot be counted right now (for /readyz), or null. The state folder's store
   * also checks its key file here, so a failure to read it is among the conditions at once.
   */
  problem(): string | null;
  close(): void;
}

export interface StoreHooks {
  clock: Clock;
  /** Where a store reports what keeps it from answering correctly (readiness). */
  conditions: Conditions;
  /** Where it reports what an operator should fix though the server answers correctly (/readyz's warnings). */
  warnings: Conditions;
  log: (line: string) => void;
  logError: (line: string) => void;
  /** How often the Redis probe runs (default PROBE_INTERVAL_MS in src/redis/health.ts; tests shorten it). */
  redisProbeMs?: number;
}

/** Why the state folder cannot take writes, or null when it can. */
function stateProblem(stateDir: string): string | null {
  try {
    accessSync(stateDir, constants.W_OK);
    return null;
  } catch (error) {
    return `state folder ${stateDir} is not writable: ${errorCode(error)}`;
  }
}

/** The state folder's lock file, naming the server that holds the folder. */
export const SERVER_LOCK_FILE = 'server.lock';

/**
 * Hold the state folder for this server; throws naming the holder when another live server holds
 * it. Two servers on one folder lose counts in silence: each start compacts the journals and
 * deletes the journal the other is still appending to, so the other's leases written after that
 * are gone at its next crash. Servers that share state do it on Redis.
 */
function holdStateFolder(stateDir: string): () => void {
  const lock = join(stateDir, SERVER_LOCK_FILE);
  const taken = takePidLock(lock);
  if (typeof taken === 'function') return taken;
  throw new Error(
    `state folder ${stateDir} is held by another server (pid ${taken.holder}): one server a state folder, or ` +
      'their quota journals are lost (several servers share state on Redis, --store); ' +
      `if no server runs there, delete ${lock}`,
  );
}

function openFileStore(
  { stateDir, keysGraceSeconds, limits, usageRetentionDays }: ServerOptions,
  hooks: StoreHooks,
): StateStore {
  ensurePrivateDir(stateDir);
  const release = holdStateFolder(stateDir);
  try {
    return openHeldFolder(stateDir, keysGraceSeconds, usageRetentionDays, limits, hooks, release);
  } catch (error) {
    release();
    throw error;
  }
}

/** The file store on a folder this server holds; `release` lets the folder go when the store closes. */
function openHeldFolder(
  stateDir: string,
  keysGraceSeconds: number,
  usageRetentionDays: number,
  limits: QuotaLimits,
  { clock, conditions, logError }: StoreHooks,
  release: () => void,
): StateStore {
  try {
    recordLimitsFile(stateDir, limits, clock.now());
  } catch (error) {
    logError(`cannot record the quota limits in ${stateDir} for the keys command: ${errorCode(error)}`);
  }
  const fileKeys = FileKeys.open(stateDir, { recheck: 'every-turn' });
  // Said once, at start: a server no key can use answers every keyed request 401.
  if (fileKeys.activeCount === 0) {
    logError(
      `warning: the key store in ${stateDir} holds no usable key (none yet, or every one revoked), so every keyed ` +
        `request is answered 401. ` +
        `Make one with the keys command (node dist/keys.mjs beside the bundle, npm run -s keys -- in a checkout): ` +
        `create --tier pro --org ORG --user USER --state ${stateDir}`,
    );
  }
  const keys = new FreshKeys(fileKeys, { clock, conditions, graceMs: keysGraceSeconds * 1000 });
  let fileQuota: FileQuota;
  try {
    fileQuota = FileQuota.open({ stateDir, clock, log: logError, usageRetentionDays });
  } catch (error) {
    keys.close();
    throw error;
  }
  const lastUsed = new LastUsed(fileLastUsed(stateDir), clock, logError);
  return {
    keys,
    lastUsed,
    directory: () => fileKeys.directory(),
    quota: fileQuota,
    fileQuota,
    problem: () => {
      keys.fresh();
      return stateProblem(stateDir) ?? fileQuota.problem();
    },
    close: () => {
      lastUsed.stop();
      keys.close();
      fileQuota.close();
      release();
    },
  };
}

/**
 * Connect to Redis, waiting for the first attempt only: a Redis that is down at start-up is
 * reported by /readyz and answered with 503s until it comes, as when it goes away later. A
 * Redis that answers but may evict keys is refused at once (the caller cannot start): see
 * src/redis/health.ts. Its refusals, its lost store and a policy changed later are conditions
 * (/readyz), found by requests and by the probe.
 */
async function openRedisStore(
  address: RedisAddress,
  replicas: StoreReplicas,
  leaseMs: number,
  usageRetentionDays: number,
  limits: QuotaLimits,
  { clock, log, logError, conditions, warnings, redisProbeMs }: StoreHooks,
): Promise<StateStore> {
  // A reconnection may be to a Redis restarted with other settings or without its data: the
  // probe checks at once (from when it exists; the start-up check below covers the first).
  let reconnected = () => {};
  const client = new RedisClient({
    address,
    replicas,
    log: logError,
    connected: () => reconnected(),
    primary: sentinelWatch(address, warnings, redisProbeMs),
  });
  await client.started();
  const problem = client.problem() ?? (await startUpCheck(client));
  if (problem) logError(`${problem}; answering 503 until it can be reached`);
  else log(`state store: Redis at ${address.label}`);
  const refusals = new Refusals(conditions, address.label);
  const keys = new RedisKeys(client, { watch: refusals, conditions });
  // A store an older version wrote gets its marker here too, so upgrading the servers before
  // anyone runs the keys command does not make every key a 503. A refusal (a replica) is the
  // probe's to report.
  if (!problem) await new RedisRecords(client, clock).adopt().catch(() => false);
  // Written again at each reconnection: a Redis that was down at start-up, or lost its data, gets
  // them then. A failure is not logged here: a Redis that refuses writes (a replica, an ACL, a
  // full memory) or cannot be reached is a condition the probe reports once, with what to do.
  const recordLimits = () =>
    client.send(['SET', LIMITS_REDIS_KEY, limitsRecord(limits, clock.now())]).then(
      () => {},
      () => {},
    );
  if (!problem) await recordLimits();
  const health = new RedisHealth({
    client,
    conditions,
    warnings,
    refusals,
    probeKey: `${REDIS_PREFIX}probe`,
    storeCheck: () => keys.checkStore(),
    logError,
    intervalMs: redisProbeMs,
  });
  reconnected = () => {
    void health.round();
    void recordLimits();
  };
  await health.start();
  const lastUsed = new LastUsed(redisLastUsed(client), clock, logError);
  return {
    keys,
    lastUsed,
    directory: null,
    quota: new RedisQuota(client, { clock, leaseMs, keyCheck: keys, watch: refusals, usageRetentionDays }),
    fileQuota: null,
    problem: () => client.problem(),
    close: () => {
      lastUsed.stop();
      health.stop();
      client.close();
    },
  };
}

/** The warning a minority of sentinels that disagree, or do not answer, makes (src/redis/sentinel-verdict.ts). */
const SENTINEL_WARNING = 'sentinel dissent';

/**
 * What a sentinel's questions may take: they travel on the private network, where a sentinel
 * answers in a millisecond; one that takes a second is as good as silent, and a round waits for
 * the slowest before it may resume counting after a failover.
 */
const SENTINEL_DEADLINE_MS = 1000;

/**
 * With Sentinel, the watch that follows the sentinels' majority (src/redis/sentinel-watch.ts); else
 * the client's plain address.
 */
function sentinelWatch(
  address: RedisAddress,
  warnings: Conditions,
  intervalMs = PROBE_INTERVAL_MS,
): SentinelWatch | undefined {
  if (!address.sentinel) return undefined;
  const warn = (warning: string | null) => warnings.report(SENTINEL_WARNING, warning);
  return new SentinelWatch({
    target: address.sentinel,
    tls: address.tls,
    timeoutMs: SENTINEL_DEADLINE_MS,
    watch: { intervalMs, warn },
  });
}

/**
 * Null when Redis may be used, or why it is unreachable after all; throws (the server cannot
 * start) when its eviction policy is not noeviction.
 */
async function startUpCheck(client: RedisClient): Promise<string | null> {
  try {
    const policyProblem = await readEvictionPolicy(client);
    if (policyProblem === null) return null;
    client.close();
    throw new Error(policyProblem);
  } catch (error) {
    if (error instanceof RedisUnavailable) return client.problem() ?? error.message;
    throw error;
  }
}

export async function openStateStore(options: ServerOptions, hooks: StoreHooks): Promise<StateStore> {
  if (options.store === 'file') return openFileStore(options, hooks);
  // A grading holds its slot while it waits for a place and while the grader works.
  const leaseMs = 2 * options.critptTimeoutSeconds * 1000 + 60_000;
  return openRedisStore(
    options.store,
    options.storeReplicas,
    leaseMs,
    options.usageRetentionDays,
    options.limits,
    hooks,
  );
}
