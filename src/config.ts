/**
 * Server options, resolved once from flags and the environment (flags win): each flag's variable,
 * default and parser are in src/server-flags.ts; here their values become ServerOptions. Nothing
 * else reads process.argv or process.env.
 */
import type { AddressSet } from './lib/address-set.ts';
import type { QuotaLimits } from './quota/scopes.ts';
import { parseRedisUrl, type RedisAddress, type ReplicaConfirmation } from './redis/client.ts';
import { parseSentinelUrl } from './redis/sentinel-url.ts';
import { givenTlsFiles, readTlsFiles, type TlsFiles } from './redis/tls-files.ts';
import { SERVER_FLAGS, type ServerFlag } from './server-flags.ts';
import { snapshotSource, type SnapshotSource } from './server-flags-pull.ts';
import { flagsUsage } from './shared/flag-help.ts';
import { flagDefaults, readFlags, type Flag, type FlagValues } from './shared/flag-table.ts';
import { UsageError } from './shared/flags.ts';

export interface ServerOptions {
  port: number;
  host: string;
  /** The folder holding `current` and the builds. */
  snapshotDir: string;
  /** The origin builds are pulled from (src/pull/); null: none. */
  snapshotFrom: SnapshotSource | null;
  stateDir: string;
  /** Where keys and quota counters live: the state folder, or a Redis shared by several servers. */
  store: 'file' | RedisAddress;
  /** With Redis: each write that counts waits (WAIT) for this many replicas, up to timeoutMs, or is answered 503. */
  storeReplicas: StoreReplicas;
  critptUpstream: string | null;
  critptTimeoutSeconds: number;
  critptMaxBodyBytes: number;
  /** Bytes of grading request bodies in memory at once on the whole server (src/http/body-budget.ts). */
  critptUploadBudgetBytes: number;
  /** The same for one user (the CritPt quota's scope). */
  critptUserUploadBytes: number;
  /** Average bytes a second a grading request's body must keep up once the grace has passed. */
  critptMinUploadBytesPerSecond: number;
  critptUploadGraceSeconds: number;
  /** Gradings forwarded at once; the rest wait in order. */
  critptConcurrency: number;
  /** Where CritPt approval is requested (shown in the 403). */
  critptContact: string;
  /** Bytes of response bodies kept in memory. */
  cacheBytes: number;
  /** A connection whose unsent answer makes no progress for this long is closed. */
  sendTimeoutSeconds: number;
  /**
   * Connections open at once, all listeners together (src/http/connection-caps.ts); null: from the
   * descriptor limit.
   */
  maxConnections: number | null;
  /** Connections of one client address (loopback exempt); null: half of the cap. */
  maxConnectionsPerClient: number | null;
  /**
   * After SIGTERM, how long requests under way (CritPt gradings included) may take to finish before
   * their connections are closed.
   */
  stopGraceSeconds: number;
  /**
   * How long keyed requests wait for a changed key file the server cannot read before they are
   * answered 503 (src/keys/fresh-keys.ts).
   */
  keysGraceSeconds: number;
  /** UTC days the usage history keeps (src/quota/usage-book.ts, src/quota/redis-usage.ts). */
  usageRetentionDays: number;
  limits: QuotaLimits;
  /** Quota counting; off only for benchmarks that measure its cost. */
  counting: boolean;
  /** The admin listener's port (src/admin/listener.ts); null: none. */
  adminPort: number | null;
  adminHost: string;
  /** A key-management page session ends unused this long, or this long after its sign-in (src/admin/sessions.ts). */
  adminSessionIdleMs: number;
  adminSessionLifetimeMs: number;
  /**
   * The reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are read (src/http/forwarded.ts);
   * null: none, and those headers are ignored.
   */
  trustProxy: AddressSet | null;
  /** Serve Prometheus metrics at /metrics. */
  metrics: boolean;
  /** No access log on stdout. */
  quiet: boolean;
}

export type StoreReplicas = ReplicaConfirmation;

export { REPLICAS_TIMEOUT_MS } from './server-flags.ts';

const MIB = 1024 * 1024;

/** What the server's flags say, each parsed (src/server-flags.ts). */
export type ServerFlagValues = FlagValues<typeof SERVER_FLAGS>;

/**
 * The options the flags' values make: units turned into bytes, the store read with its TLS files,
 * and the refusals that take two flags to make.
 */
function serverOptions(v: ServerFlagValues): ServerOptions {
  const { store, replicas } = storeOf(v);
  const options: ServerOptions = {
    port: v.port,
    host: v.host,
    snapshotDir: v.snapshot,
    snapshotFrom: snapshotSource(v),
    stateDir: v.state,
    store,
    storeReplicas: replicas,
    critptUpstream: v['critpt-upstream'],
    critptTimeoutSeconds: v['critpt-timeout'],
    critptMaxBodyBytes: v['critpt-max-body-mb'] * MIB,
    critptUploadBudgetBytes: v['critpt-upload-budget-mb'] * MIB,
    critptUserUploadBytes: v['critpt-user-upload-mb'] * MIB,
    critptMinUploadBytesPerSecond: v['critpt-upload-min-rate'] * 1024,
    critptUploadGraceSeconds: v['critpt-upload-grace'],
    critptConcurrency: v['critpt-concurrency'],
    critptContact: v['critpt-contact'],
    cacheBytes: v['cache-mb'] * MIB,
    sendTimeoutSeconds: v['send-timeout'],
    maxConnections: v['max-connections'],
    maxConnectionsPerClient: v['max-connections-per-client'],
    stopGraceSeconds: v['stop-grace'],
    keysGraceSeconds: v['keys-grace'],
    usageRetentionDays: v['usage-retention-days'],
    limits: {
      free: v['quota-free'],
      pro: v['quota-pro'],
      commercialDefault: v['quota-commercial'],
      critpt: v['quota-critpt'],
    },
    counting: !v['no-counting'],
    adminPort: v['admin-port'],
    adminHost: v['admin-host'],
    adminSessionIdleMs: v['admin-session-idle'],
    adminSessionLifetimeMs: v['admin-session-lifetime'],
    trustProxy: v['trust-proxy'],
    metrics: v.metrics,
    quiet: v.quiet,
  };
  const { adminPort, adminHost } = options;
  if (adminPort !== null && adminPort !== 0 && adminPort === options.port && adminHost === options.host) {
    throw new UsageError('--admin-port must differ from --port: the admin listener never shares the public one');
  }
  // A body the size limit allows must fit each budget, or it would be told to retry for ever.
  const smallest = Math.min(options.critptUploadBudgetBytes, options.critptUserUploadBytes);
  if (smallest < options.critptMaxBodyBytes) {
    const limit = options.critptMaxBodyBytes / MIB;
    const budgets = '--critpt-upload-budget-mb and --critpt-user-upload-mb';
    throw new UsageError(`${budgets} must each be at least --critpt-max-body-mb (${limit})`);
  }
  return options;
}

/** The options when no flag is given and the environment is empty: the table's defaults. */
export const DEFAULT_OPTIONS: ServerOptions = serverOptions(flagDefaults(SERVER_FLAGS));

/**
 * `file`, or a Redis URL: the store of keys and quota counters. `redis://` (`rediss://` with
 * TLS) names the Redis; `redis-sentinel://` (`rediss-sentinel://`) the sentinels that name its
 * primary. `tlsFiles` (--store-ca, --store-cert, --store-key) are read here, once, and only with
 * TLS. Shared by the server and the keys command.
 */
export function storeOption(text: string, tlsFiles: TlsFiles = {}): ServerOptions['store'] {
  const given = givenTlsFiles(tlsFiles);
  if (text === 'file') {
    if (given.length > 0) {
      throw new UsageError(`${given.join(', ')}: TLS options are for --store rediss://..., not the state folder`);
    }
    return 'file';
  }
  let address: RedisAddress;
  try {
    address = /^rediss?-sentinel:/.test(text) ? parseSentinelUrl(text) : parseRedisUrl(text);
  } catch (error) {
    const forms =
      'file or redis://HOST:PORT[/DB] (rediss:// for TLS; ' +
      'or redis-sentinel://HOST:PORT[,HOST:PORT...]/MASTER_NAME[/DB])';
    throw new UsageError(`--store must be ${forms}: ${(error as Error).message}`);
  }
  if (address.tls === null) {
    if (given.length > 0) {
      const wanted = '--store rediss://... or rediss-sentinel://..., not redis://';
      throw new UsageError(`${given.join(', ')}: TLS options need a TLS store: ${wanted}`);
    }
    return address;
  }
  try {
    return { ...address, tls: readTlsFiles(tlsFiles) };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** --store-replicas and its timeout, as text (the server's and the keys command's); replicas only with Redis. */
export function replicasOption(
  store: ServerOptions['store'],
  count: string | undefined,
  timeout: string | undefined,
): StoreReplicas {
  return replicasOf(store, flagValue('store-replicas', count), flagValue('store-replicas-timeout', timeout));
}

function replicasOf(store: ServerOptions['store'], count: number, timeoutMs: number): StoreReplicas {
  if (count > 0 && store === 'file') {
    throw new UsageError('--store-replicas counts Redis replicas: give --store redis://... or redis-sentinel://...');
  }
  return { count, timeoutMs };
}

/** A server flag's value from its text, or its default when there is none. */
function flagValue<F extends ServerFlag>(flag: F, text: string | undefined): ServerFlagValues[F] {
  const row = SERVER_FLAGS[flag] as Flag<ServerFlagValues[F]>;
  return text === undefined ? row.default : row.parse(text, flag);
}

/** Where keys and quota counters live, and how many replicas a count waits for. */
export interface StoreSettings {
  store: ServerOptions['store'];
  replicas: StoreReplicas;
}

/** The flags that say where the store is and how counts are confirmed. */
export type StoreFlag = 'store' | 'store-ca' | 'store-cert' | 'store-key' | 'store-replicas' | 'store-replicas-timeout';

/** The store, its TLS files and the replicas a count waits for, from the store flags' values. */
export function storeOf(v: Pick<ServerFlagValues, StoreFlag>): StoreSettings {
  const store = storeOption(v.store, { ca: v['store-ca'], cert: v['store-cert'], key: v['store-key'] });
  return { store, replicas: replicasOf(store, v['store-replicas'], v['store-replicas-timeout']) };
}

/**
 * The store, its TLS files and the replicas a count waits for, from `get` (a flag's text, else
 * its environment variable, as the caller reads them): the one reading of the server, the keys
 * command and the soak, so each refuses the same things the same way.
 */
export function storeSettings(get: (flag: StoreFlag) => string | undefined): StoreSettings {
  return storeOf({
    store: flagValue('store', get('store')),
    'store-ca': flagValue('store-ca', get('store-ca')),
    'store-cert': flagValue('store-cert', get('store-cert')),
    'store-key': flagValue('store-key', get('store-key')),
    'store-replicas': flagValue('store-replicas', get('store-replicas')),
    'store-replicas-timeout': flagValue('store-replicas-timeout', get('store-replicas-timeout')),
  });
}

/** A store flag's environment variable, as the server reads it. */
export function storeEnvironment(
  flag: StoreFlag,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const variable: string | undefined = SERVER_FLAGS[flag].env;
  return variable === undefined ? undefined : env[variable];
}

/**
 * The server's --help: every flag of the table with its help, variable and default, under the
 * bundle's usage line (`npm start --help` gives null: it says its own).
 */
export function usage(command: string | null = 'node dist/server.mjs'): string {
  return `${command ? `usage: ${command} [options]\n` : ''}${flagsUsage(SERVER_FLAGS)}`;
}

/** Resolve options from argv and env; throws UsageError with a message for the user. */
export function resolveOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ServerOptions | 'help' | 'version' {
  const { values, help, version } = readFlags(SERVER_FLAGS, argv, env);
  return help ? 'help' : version ? 'version' : serverOptions(values);
}
