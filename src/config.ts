/**
 * Server options, resolved once from flags and the environment (flags win). Nothing else
 * reads process.argv or process.env.
 */
import { DEFAULT_LIMITS, type QuotaLimits } from './quota/scopes.ts';
import { parseRedisUrl, type RedisAddress, type ReplicaConfirmation } from './redis/client.ts';
import { parseSentinelUrl } from './redis/sentinel-url.ts';
import { givenTlsFiles, readTlsFiles, type TlsFiles } from './redis/tls-files.ts';
import { integerFlag, parseFlags, UsageError } from './shared/flags.ts';

export interface ServerOptions {
  port: number;
  host: string;
  /** The folder holding `current` and the builds. */
  snapshotDir: string;
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
  /** Connections open at once, all listeners together (src/http/connection-caps.ts); null: from the descriptor limit. */
  maxConnections: number | null;
  /** Connections of one client address (loopback exempt); null: half of the cap. */
  maxConnectionsPerClient: number | null;
  /** After SIGTERM, how long requests under way (CritPt gradings included) may take to finish before their connections are closed. */
  stopGraceSeconds: number;
  /** How long keyed requests wait for a changed key file the server cannot read before they are answered 503 (src/keys/fresh-keys.ts). */
  keysGraceSeconds: number;
  limits: QuotaLimits;
  /** Quota counting; off only for benchmarks that measure its cost. */
  counting: boolean;
  /** The admin listener's port (src/admin/listener.ts); null: none. */
  adminPort: number | null;
  adminHost: string;
  /** Serve Prometheus metrics at /metrics. */
  metrics: boolean;
  /** No access log on stdout. */
  quiet: boolean;
}

export type StoreReplicas = ReplicaConfirmation;

const MIB = 1024 * 1024;

/**
 * The WAIT timeout's bounds. Its ceiling stays below the Redis client's 2 s command deadline: a
 * WAIT holds back the commands pipelined behind it on the connection, and one that outlived the
 * deadline would take the connection down instead of answering 503.
 */
export const REPLICAS_TIMEOUT_MS = { default: 500, max: 1500 };

export const DEFAULT_OPTIONS: ServerOptions = {
  port: 8080,
  host: '127.0.0.1',
  snapshotDir: 'snapshot',
  stateDir: 'state',
  store: 'file',
  storeReplicas: { count: 0, timeoutMs: REPLICAS_TIMEOUT_MS.default },
  critptUpstream: null,
  critptTimeoutSeconds: 30 * 60,
  critptMaxBodyBytes: 16 * MIB,
  // Four largest bodies on the server, two for one user: a few hundred MB at most, parsing included.
  critptUploadBudgetBytes: 64 * MIB,
  critptUserUploadBytes: 32 * MIB,
  critptMinUploadBytesPerSecond: 1024,
  critptUploadGraceSeconds: 10,
  critptConcurrency: 2,
  critptContact: 'the operator of this server',
  cacheBytes: 48 * MIB,
  sendTimeoutSeconds: 30,
  maxConnections: null,
  maxConnectionsPerClient: null,
  stopGraceSeconds: 10,
  keysGraceSeconds: 10,
  limits: DEFAULT_LIMITS,
  counting: true,
  adminPort: null,
  adminHost: '127.0.0.1',
  metrics: false,
  quiet: false,
};

/** Flags, the environment variable each falls back to, and what it sets. */
export const FLAGS = {
  port: { env: 'PORT', help: 'TCP port; 0 picks a free one', default: '8080' },
  host: { env: 'HOST', help: 'address to listen on', default: '127.0.0.1' },
  snapshot: { env: 'SNAPSHOT_DIR', help: 'folder with `current` and the builds', default: 'snapshot' },
  state: { env: 'STATE_DIR', help: 'private folder for keys and quota counters', default: 'state' },
  store: { env: 'STORE', help: 'file (the state folder), redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] (rediss:// for TLS) or redis-sentinel://HOST:PORT[,HOST:PORT...]/MASTER_NAME[/DB][?sentinel_password=P] (rediss-sentinel:// for TLS; the primary a majority of the sentinels names), shared by several servers', default: 'file' },
  'store-ca': { env: 'STORE_CA', help: 'with TLS: PEM file of the CA that signed Redis\'s certificate', default: 'the system\'s roots' },
  'store-cert': { env: 'STORE_CERT', help: 'with TLS: PEM client certificate, for a Redis that asks for one (with --store-key)', default: 'none' },
  'store-key': { env: 'STORE_KEY', help: 'with TLS: PEM key of --store-cert', default: 'none' },
  'store-replicas': { env: 'STORE_REPLICAS', help: 'with Redis: answer a counted request only once this many replicas have its count (WAIT), else 503', default: '0' },
  'store-replicas-timeout': { env: 'STORE_REPLICAS_TIMEOUT', help: `milliseconds a count waits for those replicas (1 to ${REPLICAS_TIMEOUT_MS.max})`, default: String(REPLICAS_TIMEOUT_MS.default) },
  'critpt-upstream': { env: 'CRITPT_UPSTREAM', help: 'URL of the CritPt grading service', default: 'none' },
  'critpt-timeout': { env: 'CRITPT_TIMEOUT', help: 'seconds a grading may take', default: '1800' },
  'critpt-max-body-mb': { env: 'CRITPT_MAX_BODY_MB', help: 'largest grading request, in MiB', default: '16' },
  'critpt-upload-budget-mb': { env: 'CRITPT_UPLOAD_BUDGET_MB', help: 'MiB of grading request bodies in memory at once; past it, 503 with Retry-After', default: '64' },
  'critpt-user-upload-mb': { env: 'CRITPT_USER_UPLOAD_MB', help: 'the same for one user', default: '32' },
  'critpt-upload-min-rate': { env: 'CRITPT_UPLOAD_MIN_RATE', help: 'KiB a second a grading request body must average after the grace (408 below it; 0: no minimum)', default: '1' },
  'critpt-upload-grace': { env: 'CRITPT_UPLOAD_GRACE', help: 'seconds a grading request body may arrive at any pace', default: '10' },
  'critpt-concurrency': { env: 'CRITPT_CONCURRENCY', help: 'gradings forwarded at once; the rest wait in order', default: '2' },
  'critpt-contact': { env: 'CRITPT_CONTACT', help: 'e-mail where CritPt approval is requested', default: 'the operator of this server' },
  'cache-mb': { env: 'CACHE_MB', help: 'megabytes of response bodies kept in memory', default: '48' },
  'send-timeout': { env: 'SEND_TIMEOUT', help: 'seconds an unsent answer may make no progress before its connection is closed', default: '30' },
  'max-connections': { env: 'MAX_CONNECTIONS', help: 'connections open at once (the admin listener\'s too); past it, idle and slow ones are closed first, then new ones answered 503 with Retry-After', default: 'the descriptor limit less an eighth and the refusal slots (864 at 1024)' },
  'max-connections-per-client': { env: 'MAX_CONNECTIONS_PER_CLIENT', help: 'connections of one client address; loopback (a reverse proxy on this host) is held to --max-connections alone', default: 'half of --max-connections' },
  'stop-grace': { env: 'STOP_GRACE', help: 'seconds requests under way (CritPt gradings included) may take to finish after SIGTERM before their connections are closed', default: '10' },
  'keys-grace': { env: 'KEYS_GRACE', help: 'seconds keyed requests wait for a changed key file that cannot be read before they are answered 503 (0: at once)', default: '10' },
  'admin-port': { env: 'ADMIN_PORT', help: 'port of the admin listener (key management API and page, admin tokens only); 0 picks a free one', default: 'none: no admin listener' },
  'admin-host': { env: 'ADMIN_HOST', help: 'address of the admin listener', default: '127.0.0.1' },
  'quota-free': { env: 'QUOTA_FREE', help: 'requests per 24 h window for Free keys', default: '100' },
  'quota-pro': { env: 'QUOTA_PRO', help: 'requests per 24 h window for Pro keys', default: '500' },
  'quota-commercial': { env: 'QUOTA_COMMERCIAL', help: 'default for Commercial keys without a custom quota', default: '10000' },
  'quota-critpt': { env: 'QUOTA_CRITPT', help: 'CritPt gradings per user per 24 h window', default: '10' },
} as const;

/**
 * `file`, or a Redis URL: the store of keys and quota counters. `redis://` (`rediss://` with
 * TLS) names the Redis; `redis-sentinel://` (`rediss-sentinel://`) the sentinels that name its
 * primary. `tlsFiles` (--store-ca, --store-cert, --store-key) are read here, once, and only with
 * TLS. Shared by the server and the keys command.
 */
export function storeOption(text: string, tlsFiles: TlsFiles = {}): ServerOptions['store'] {
  const given = givenTlsFiles(tlsFiles);
  if (text === 'file') {
    if (given.length > 0) throw new UsageError(`${given.join(', ')}: TLS options are for --store rediss://..., not the state folder`);
    return 'file';
  }
  let address: RedisAddress;
  try {
    address = /^rediss?-sentinel:/.test(text) ? parseSentinelUrl(text) : parseRedisUrl(text);
  } catch (error) {
    throw new UsageError(`--store must be file or redis://HOST:PORT[/DB] (rediss:// for TLS; or redis-sentinel://HOST:PORT[,HOST:PORT...]/MASTER_NAME[/DB]): ${(error as Error).message}`);
  }
  if (address.tls === null) {
    if (given.length > 0) throw new UsageError(`${given.join(', ')}: TLS options need a TLS store: --store rediss://... or rediss-sentinel://..., not redis://`);
    return address;
  }
  try {
    return { ...address, tls: readTlsFiles(tlsFiles) };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** --store-replicas and its timeout (the server's and the keys command's); replicas only with Redis. */
export function replicasOption(store: ServerOptions['store'], count: string | undefined, timeout: string | undefined): StoreReplicas {
  const replicas = {
    count: integerFlag('store-replicas', count, 0, 0, 100),
    timeoutMs: integerFlag('store-replicas-timeout', timeout, REPLICAS_TIMEOUT_MS.default, 1, REPLICAS_TIMEOUT_MS.max),
  };
  if (replicas.count > 0 && store === 'file') throw new UsageError('--store-replicas counts Redis replicas: give --store redis://... or redis-sentinel://...');
  return replicas;
}

/** The flags that say where the store is and how counts are confirmed. */
export type StoreFlag = 'store' | 'store-ca' | 'store-cert' | 'store-key' | 'store-replicas' | 'store-replicas-timeout';

/**
 * The store, its TLS files and the replicas a count waits for, from `get` (a flag's value, else
 * its environment variable, as the caller reads them): the one reading of the server, the keys
 * command and the soak, so each refuses the same things the same way.
 */
export function storeSettings(get: (flag: StoreFlag) => string | undefined): { store: ServerOptions['store']; replicas: StoreReplicas } {
  const store = storeOption(get('store') ?? 'file', { ca: get('store-ca'), cert: get('store-cert'), key: get('store-key') });
  return { store, replicas: replicasOption(store, get('store-replicas'), get('store-replicas-timeout')) };
}

/** A store flag's environment variable, as the server reads it. */
export function storeEnvironment(flag: StoreFlag, env: Readonly<Record<string, string | undefined>>): string | undefined {
  return env[FLAGS[flag].env];
}

function url(name: string, text: string): string {
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) throw new UsageError(`--${name} must be an http(s) URL, got ${JSON.stringify(text)}`);
  return text;
}

export function usage(): string {
  const line = (flag: string, help: string) => `  --${flag.padEnd(24)} ${help}`;
  const lines = Object.entries(FLAGS).map(([flag, { env, help, default: d }]) => line(flag, `${help} (env ${env}, default ${d})`));
  return ['usage: node dist/server.mjs [options]', ...lines, line('metrics', 'serve Prometheus metrics at /metrics (env METRICS=1)'), line('quiet', 'no access log on stdout (env QUIET=1)'), line('no-counting', 'do not count quotas (benchmarks only)'), '  --help'].join('\n');
}

/** Resolve options from argv and env; throws UsageError with a message for the user. */
export function resolveOptions(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ServerOptions | 'help' {
  const valued = Object.fromEntries(Object.keys(FLAGS).map((flag) => [flag, { type: 'string' as const }]));
  const values: Record<string, string | boolean | undefined> = parseFlags({ args: [...argv], options: { ...valued, 'no-counting': { type: 'boolean' }, metrics: { type: 'boolean' }, quiet: { type: 'boolean' }, help: { type: 'boolean' } } }).values;
  if (values.help) return 'help';
  const get = (flag: keyof typeof FLAGS): string | undefined => (values[flag] as string | undefined) ?? env[FLAGS[flag].env];
  const d = DEFAULT_OPTIONS;
  const maybe = <T>(flag: keyof typeof FLAGS, parse: (text: string) => T, fallback: T): T => {
    const text = get(flag);
    return text === undefined ? fallback : parse(text);
  };
  const integer = (flag: keyof typeof FLAGS, fallback: number, min: number, max: number) => integerFlag(flag, get(flag), fallback, min, max);
  const { store, replicas } = storeSettings(get);
  const options: ServerOptions = {
    port: integer('port', d.port, 0, 65535),
    host: get('host') ?? d.host,
    snapshotDir: get('snapshot') ?? d.snapshotDir,
    stateDir: get('state') ?? d.stateDir,
    store,
    storeReplicas: replicas,
    critptUpstream: maybe('critpt-upstream', (t) => url('critpt-upstream', t), d.critptUpstream),
    critptTimeoutSeconds: integer('critpt-timeout', d.critptTimeoutSeconds, 1, 24 * 3600),
    critptMaxBodyBytes: integer('critpt-max-body-mb', d.critptMaxBodyBytes / MIB, 1, 1024) * MIB,
    critptUploadBudgetBytes: integer('critpt-upload-budget-mb', d.critptUploadBudgetBytes / MIB, 1, 65536) * MIB,
    critptUserUploadBytes: integer('critpt-user-upload-mb', d.critptUserUploadBytes / MIB, 1, 65536) * MIB,
    critptMinUploadBytesPerSecond: integer('critpt-upload-min-rate', d.critptMinUploadBytesPerSecond / 1024, 0, 1024 * 1024) * 1024,
    critptUploadGraceSeconds: integer('critpt-upload-grace', d.critptUploadGraceSeconds, 1, 3600),
    critptConcurrency: integer('critpt-concurrency', d.critptConcurrency, 1, 64),
    critptContact: get('critpt-contact') ?? d.critptContact,
    cacheBytes: integer('cache-mb', d.cacheBytes / MIB, 1, 65536) * MIB,
    sendTimeoutSeconds: integer('send-timeout', d.sendTimeoutSeconds, 1, 3600),
    maxConnections: maybe('max-connections', (t) => integerFlag('max-connections', t, 0, 1, 10_000_000), d.maxConnections),
    maxConnectionsPerClient: maybe('max-connections-per-client', (t) => integerFlag('max-connections-per-client', t, 0, 1, 10_000_000), d.maxConnectionsPerClient),
    stopGraceSeconds: integer('stop-grace', d.stopGraceSeconds, 0, 24 * 3600),
    keysGraceSeconds: integer('keys-grace', d.keysGraceSeconds, 0, 3600),
    limits: {
      free: integer('quota-free', d.limits.free, 0, 1e9),
      pro: integer('quota-pro', d.limits.pro, 0, 1e9),
      commercialDefault: integer('quota-commercial', d.limits.commercialDefault, 0, 1e9),
      critpt: integer('quota-critpt', d.limits.critpt, 0, 1e6),
    },
    counting: !values['no-counting'],
    adminPort: maybe('admin-port', (t) => integerFlag('admin-port', t, 0, 0, 65535), d.adminPort),
    adminHost: get('admin-host') ?? d.adminHost,
    metrics: Boolean(values.metrics) || env.METRICS === '1',
    quiet: Boolean(values.quiet) || env.QUIET === '1',
  };
  if (options.adminPort !== null && options.adminPort !== 0 && options.adminPort === options.port && options.adminHost === options.host) throw new UsageError('--admin-port must differ from --port: the admin listener never shares the public one');
  // A body the size limit allows must fit each budget, or it would be told to retry for ever.
  const smallest = Math.min(options.critptUploadBudgetBytes, options.critptUserUploadBytes);
  if (smallest < options.critptMaxBodyBytes) throw new UsageError(`--critpt-upload-budget-mb and --critpt-user-upload-mb must each be at least --critpt-max-body-mb (${options.critptMaxBodyBytes / MIB})`);
  return options;
}
