/**
 * Server options, resolved once from flags and the environment (flags win). Nothing else
 * reads process.argv or process.env.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_LIMITS, type QuotaLimits } from './quota/scopes.ts';
import { parseRedisUrl, type RedisAddress } from './redis/client.ts';

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
  limits: QuotaLimits;
  /** Quota counting; off only for benchmarks that measure its cost. */
  counting: boolean;
  /** Serve Prometheus metrics at /metrics. */
  metrics: boolean;
  /** No access log on stdout. */
  quiet: boolean;
}

export const DEFAULT_OPTIONS: ServerOptions = {
  port: 8080,
  host: '127.0.0.1',
  snapshotDir: 'snapshot',
  stateDir: 'state',
  store: 'file',
  critptUpstream: null,
  critptTimeoutSeconds: 30 * 60,
  critptMaxBodyBytes: 16 * 1024 * 1024,
  critptConcurrency: 2,
  critptContact: 'the operator of this server',
  cacheBytes: 48 * 1024 * 1024,
  sendTimeoutSeconds: 30,
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
  'quota-free': { env: 'QUOTA_FREE', help: 'requests per 24 h window for Free keys', default: '100' },
  'quota-pro': { env: 'QUOTA_PRO', help: 'requests per 24 h window for Pro keys', default: '500' },
  'quota-commercial': { env: 'QUOTA_COMMERCIAL', help: 'default for Commercial keys without a custom quota', default: '10000' },
  'quota-critpt': { env: 'QUOTA_CRITPT', help: 'CritPt gradings per user per 24 h window', default: '10' },
} as const;

export class ConfigError extends Error {}

function integer(name: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new ConfigError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** `file`, or a Redis URL: the store of keys and quota counters. */
export function storeOption(text: string): ServerOptions['store'] {
  if (text === 'file') return 'file';
  try {
    return parseRedisUrl(text);
  } catch (error) {
    throw new ConfigError(`--store must be file or redis://HOST:PORT[/DB]: ${(error as Error).message}`);
  }
}

function url(name: string, text: string): string {
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) throw new ConfigError(`--${name} must be an http(s) URL, got ${JSON.stringify(text)}`);
  return text;
}

export function usage(): string {
  const lines = Object.entries(FLAGS).map(([flag, { env, help, default: d }]) => `  --${flag.padEnd(18)} ${help} (env ${env}, default ${d})`);
  return ['usage: node dist/server.mjs [options]', ...lines, '  --metrics            serve Prometheus metrics at /metrics (env METRICS=1)', '  --quiet              no access log on stdout (env QUIET=1)', '  --no-counting        do not count quotas (benchmarks only)', '  --help'].join('\n');
}

/** Resolve options from argv and env; throws ConfigError with a message for the user. */
export function resolveOptions(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ServerOptions | 'help' {
  let values: Record<string, string | boolean | undefined>;
  try {
    const options = Object.fromEntries(Object.keys(FLAGS).map((flag) => [flag, { type: 'string' as const }]));
    values = parseArgs({ args: [...argv], options: { ...options, 'no-counting': { type: 'boolean' }, metrics: { type: 'boolean' }, quiet: { type: 'boolean' }, help: { type: 'boolean' } }, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (values.help) return 'help';
  const get = (flag: keyof typeof FLAGS): string | undefined => (values[flag] as string | undefined) ?? env[FLAGS[flag].env];
  const d = DEFAULT_OPTIONS;
  const maybe = <T>(flag: keyof typeof FLAGS, parse: (text: string) => T, fallback: T): T => {
    const text = get(flag);
    return text === undefined ? fallback : parse(text);
  };
  return {
    port: maybe('port', (t) => integer('port', t, 0, 65535), d.port),
    host: get('host') ?? d.host,
    snapshotDir: get('snapshot') ?? d.snapshotDir,
    stateDir: get('state') ?? d.stateDir,
    store: maybe('store', storeOption, d.store),
    critptUpstream: maybe('critpt-upstream', (t) => url('critpt-upstream', t), d.critptUpstream),
    critptTimeoutSeconds: maybe('critpt-timeout', (t) => integer('critpt-timeout', t, 1, 24 * 3600), d.critptTimeoutSeconds),
    critptMaxBodyBytes: maybe('critpt-max-body-mb', (t) => integer('critpt-max-body-mb', t, 1, 1024) * 1024 * 1024, d.critptMaxBodyBytes),
    critptConcurrency: maybe('critpt-concurrency', (t) => integer('critpt-concurrency', t, 1, 64), d.critptConcurrency),
    critptContact: get('critpt-contact') ?? d.critptContact,
    cacheBytes: maybe('cache-mb', (t) => integer('cache-mb', t, 1, 65536) * 1024 * 1024, d.cacheBytes),
    sendTimeoutSeconds: maybe('send-timeout', (t) => integer('send-timeout', t, 1, 3600), d.sendTimeoutSeconds),
    limits: {
      free: maybe('quota-free', (t) => integer('quota-free', t, 0, 1e9), d.limits.free),
      pro: maybe('quota-pro', (t) => integer('quota-pro', t, 0, 1e9), d.limits.pro),
      commercialDefault: maybe('quota-commercial', (t) => integer('quota-commercial', t, 0, 1e9), d.limits.commercialDefault),
      critpt: maybe('quota-critpt', (t) => integer('quota-critpt', t, 0, 1e6), d.limits.critpt),
    },
    counting: !values['no-counting'],
    metrics: Boolean(values.metrics) || env.METRICS === '1',
    quiet: Boolean(values.quiet) || env.QUIET === '1',
  };
}
