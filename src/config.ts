/**
 * Server options, resolved once from flags and the environment (flags win). Nothing else
 * reads process.argv or process.env.
 */
import { DEFAULT_LIMITS, type QuotaLimits } from './quota/scopes.ts';
import { parseRedisUrl, type RedisAddress } from './redis/client.ts';
import { integerFlag, parseFlags, UsageError } from './shared/flags.ts';

export interface ServerOptions {
  port: number;
  host: string;
  /** The folder holding `current` and the builds. */
  snapshotDir: string;
  stateDir: string;
  /** Where keys and quota counters live: the state folder, or a Redis shared by several servers. */
  store: 'file' | RedisAddress;
  critptUpstream: string | null;
  critptTimeoutSeconds: number;
  critptMaxBodyBytes: number;
  /** Gradings forwarded at once; the rest wait in order. */
  critptConcurrency: number;
  /** Where CritPt approval is requested (shown in the 403). */
  critptContact: string;
  /** Bytes of response bodies kept in memory. */
  cacheBytes: number;
  /** A connection whose unsent answer makes no progress for this long is closed. */
  sendTimeoutSeconds: number;
  /** How long keyed requests wait for a changed key file the server cannot read before they are answered 503 (src/keys/fresh-keys.ts). */
  keysGraceSeconds: number;
  limits: QuotaLimits;
  /** Quota counting; off only for benchmarks that measure its cost. */
  counting: boolean;
  /** Serve Prometheus metrics at /metrics. */
  metrics: boolean;
  /** No access log on stdout. */
  quiet: boolean;
}

const MIB = 1024 * 1024;

export const DEFAULT_OPTIONS: ServerOptions = {
  port: 8080,
  host: '127.0.0.1',
  snapshotDir: 'snapshot',
  stateDir: 'state',
  store: 'file',
  critptUpstream: null,
  critptTimeoutSeconds: 30 * 60,
  critptMaxBodyBytes: 16 * MIB,
  critptConcurrency: 2,
  critptContact: 'the operator of this server',
  cacheBytes: 48 * MIB,
  sendTimeoutSeconds: 30,
  keysGraceSeconds: 10,
  limits: DEFAULT_LIMITS,
  counting: true,
  metrics: false,
  quiet: false,
};

/** Flags, the environment variable each falls back to, and what it sets. */
export const FLAGS = {
  port: { env: 'PORT', help: 'TCP port; 0 picks a free one', default: '8080' },
  host: { env: 'HOST', help: 'address to listen on', default: '127.0.0.1' },
  snapshot: { env: 'SNAPSHOT_DIR', help: 'folder with `current` and the builds', default: 'snapshot' },
  state: { env: 'STATE_DIR', help: 'private folder for keys and quota counters', default: 'state' },
  store: { env: 'STORE', help: 'file (the state folder) or redis://HOST:PORT[/DB] shared by several servers', default: 'file' },
  'critpt-upstream': { env: 'CRITPT_UPSTREAM', help: 'URL of the CritPt grading service', default: 'none' },
  'critpt-timeout': { env: 'CRITPT_TIMEOUT', help: 'seconds a grading may take', default: '1800' },
  'critpt-max-body-mb': { env: 'CRITPT_MAX_BODY_MB', help: 'largest grading request, in MiB', default: '16' },
  'critpt-concurrency': { env: 'CRITPT_CONCURRENCY', help: 'gradings forwarded at once; the rest wait in order', default: '2' },
  'critpt-contact': { env: 'CRITPT_CONTACT', help: 'e-mail where CritPt approval is requested', default: 'the operator of this server' },
  'cache-mb': { env: 'CACHE_MB', help: 'megabytes of response bodies kept in memory', default: '48' },
  'send-timeout': { env: 'SEND_TIMEOUT', help: 'seconds an unsent answer may make no progress before its connection is closed', default: '30' },
  'keys-grace': { env: 'KEYS_GRACE', help: 'seconds keyed requests wait for a changed key file that cannot be read before they are answered 503 (0: at once)', default: '10' },
  'quota-free': { env: 'QUOTA_FREE', help: 'requests per 24 h window for Free keys', default: '100' },
  'quota-pro': { env: 'QUOTA_PRO', help: 'requests per 24 h window for Pro keys', default: '500' },
  'quota-commercial': { env: 'QUOTA_COMMERCIAL', help: 'default for Commercial keys without a custom quota', default: '10000' },
  'quota-critpt': { env: 'QUOTA_CRITPT', help: 'CritPt gradings per user per 24 h window', default: '10' },
} as const;

/** `file`, or a Redis URL: the store of keys and quota counters. */
export function storeOption(text: string): ServerOptions['store'] {
  if (text === 'file') return 'file';
  try {
    return parseRedisUrl(text);
  } catch (error) {
    throw new UsageError(`--store must be file or redis://HOST:PORT[/DB]: ${(error as Error).message}`);
  }
}

function url(name: string, text: string): string {
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) throw new UsageError(`--${name} must be an http(s) URL, got ${JSON.stringify(text)}`);
  return text;
}

export function usage(): string {
  const lines = Object.entries(FLAGS).map(([flag, { env, help, default: d }]) => `  --${flag.padEnd(18)} ${help} (env ${env}, default ${d})`);
  return ['usage: node dist/server.mjs [options]', ...lines, '  --metrics            serve Prometheus metrics at /metrics (env METRICS=1)', '  --quiet              no access log on stdout (env QUIET=1)', '  --no-counting        do not count quotas (benchmarks only)', '  --help'].join('\n');
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
  return {
    port: integer('port', d.port, 0, 65535),
    host: get('host') ?? d.host,
    snapshotDir: get('snapshot') ?? d.snapshotDir,
    stateDir: get('state') ?? d.stateDir,
    store: maybe('store', storeOption, d.store),
    critptUpstream: maybe('critpt-upstream', (t) => url('critpt-upstream', t), d.critptUpstream),
    critptTimeoutSeconds: integer('critpt-timeout', d.critptTimeoutSeconds, 1, 24 * 3600),
    critptMaxBodyBytes: integer('critpt-max-body-mb', d.critptMaxBodyBytes / MIB, 1, 1024) * MIB,
    critptConcurrency: integer('critpt-concurrency', d.critptConcurrency, 1, 64),
    critptContact: get('critpt-contact') ?? d.critptContact,
    cacheBytes: integer('cache-mb', d.cacheBytes / MIB, 1, 65536) * MIB,
    sendTimeoutSeconds: integer('send-timeout', d.sendTimeoutSeconds, 1, 3600),
    keysGraceSeconds: integer('keys-grace', d.keysGraceSeconds, 0, 3600),
    limits: {
      free: integer('quota-free', d.limits.free, 0, 1e9),
      pro: integer('quota-pro', d.limits.pro, 0, 1e9),
      commercialDefault: integer('quota-commercial', d.limits.commercialDefault, 0, 1e9),
      critpt: integer('quota-critpt', d.limits.critpt, 0, 1e6),
    },
    counting: !values['no-counting'],
    metrics: Boolean(values.metrics) || env.METRICS === '1',
    quiet: Boolean(values.quiet) || env.QUIET === '1',
  };
}
