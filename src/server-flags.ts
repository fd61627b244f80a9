/**
 * The server's flags, each once: its variable, default, parser and help line (the form of
 * src/shared/flag-table.ts). src/config.ts turns their values into ServerOptions; --help and the
 * options table of docs/operating.md (test/unit/src/server-flags.test.ts holds the doc to it) are
 * written from this table, in its order. The CritPt route's rows are server-flags-critpt.ts's.
 */
import { DEFAULT_LIMITS } from './quota/scopes.ts';
import { DEFAULT_USAGE_RETENTION_DAYS } from './quota/usage-day.ts';
import type { AddressSet } from './lib/address-set.ts';
import { durationText } from './lib/duration.ts';
import { asText, flagRow, integerFrom, switchFlag, type FlagTable } from './shared/flag-table.ts';
import { ADMIN_SESSION_MS, DAY_MS, durationFrom, MINUTE_MS, trustedProxies } from './server-flag-parsers.ts';
import { CRITPT_FLAGS } from './server-flags-critpt.ts';
import { PULL_FLAGS } from './server-flags-pull.ts';

/**
 * The WAIT timeout's bounds. Its ceiling stays below the Redis client's 2 s command deadline: a
 * WAIT holds back the commands pipelined behind it on the connection, and one that outlived the
 * deadline would take the connection down instead of answering 503.
 */
export const REPLICAS_TIMEOUT_MS = { default: 500, max: 1500 };

/** A whole number up to 10 million, or null (the server works it out) when not given. */
const CONNECTIONS = integerFrom(1, 10_000_000);

export const SERVER_FLAGS = {
  port: { value: 'N', env: 'PORT', default: 8080, parse: integerFrom(0, 65535), help: 'TCP port; 0 picks a free one' },
  host: {
    value: 'H',
    env: 'HOST',
    default: '127.0.0.1',
    parse: asText,
    help: 'address to listen on (put a TLS reverse proxy in front)',
  },
  'trust-proxy': flagRow<AddressSet | null>({
    value: 'CIDR[,CIDR...]',
    env: 'TRUST_PROXY',
    default: null,
    shownDefault: 'none: `X-Forwarded-For` is ignored',
    parse: trustedProxies,
    help:
      'reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed: IPv4 and IPv6 addresses and ' +
      'CIDR blocks, and `loopback` (127.0.0.0/8 and ::1); the access log and the audit trail then name the client ' +
      'they forwarded (see [Behind a reverse proxy](#behind-a-reverse-proxy))',
  }),
  snapshot: {
    value: 'DIR',
    env: 'SNAPSHOT_DIR',
    default: 'snapshot',
    parse: asText,
    help: 'folder holding `current` and the builds',
  },
  ...PULL_FLAGS,
  state: {
    value: 'DIR',
    env: 'STATE_DIR',
    default: 'state',
    parse: asText,
    help: 'private folder for keys and quota counters',
  },
  // Read with the TLS files it may need, in src/config.ts's storeOption.
  store: {
    value: 'S',
    env: 'STORE',
    default: 'file',
    parse: asText,
    help:
      '`file` (the state folder), `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]` (`rediss://...` for TLS) or ' +
      '`redis-sentinel://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT...]/MASTER_NAME[/DB]' +
      '[?sentinel_username=USER&sentinel_password=PASSWORD]` (`rediss-sentinel://...` for TLS; ' +
      'the primary a majority of the sentinels names), shared by several servers ' +
      '(see [Running several servers](#running-several-servers))',
  },
  'store-ca': flagRow<string | undefined>({
    value: 'FILE',
    env: 'STORE_CA',
    default: undefined,
    shownDefault: "the system's roots",
    parse: asText,
    help:
      "with TLS: PEM file of the CA that signed Redis's certificate " +
      '(see [Redis in production](#redis-in-production))',
  }),
  'store-cert': flagRow<string | undefined>({
    value: 'FILE',
    env: 'STORE_CERT',
    default: undefined,
    parse: asText,
    help:
      'with TLS: PEM client certificate, for a Redis that asks for one (`tls-auth-clients yes`); ' +
      'needs `--store-key`',
  }),
  'store-key': flagRow<string | undefined>({
    value: 'FILE',
    env: 'STORE_KEY',
    default: undefined,
    parse: asText,
    help: 'with TLS: the PEM key of `--store-cert`',
  }),
  'store-replicas': {
    value: 'N',
    env: 'STORE_REPLICAS',
    default: 0,
    parse: integerFrom(0, 100),
    help:
      'with Redis: a counted request is answered only once N replicas acknowledged its count (`WAIT`), else 503 ' +
      '(see [Running several servers](#running-several-servers))',
  },
  'store-replicas-timeout': {
    value: 'MS',
    env: 'STORE_REPLICAS_TIMEOUT',
    default: REPLICAS_TIMEOUT_MS.default,
    parse: integerFrom(1, REPLICAS_TIMEOUT_MS.max),
    help: `milliseconds a count waits for those replicas (1 to ${REPLICAS_TIMEOUT_MS.max})`,
  },
  'cache-mb': {
    value: 'N',
    env: 'CACHE_MB',
    default: 48,
    parse: integerFrom(1, 65536),
    help: 'MiB of response bodies kept in memory (LRU)',
  },
  'send-timeout': {
    value: 'N',
    env: 'SEND_TIMEOUT',
    default: 30,
    parse: integerFrom(1, 3600),
    help: 'seconds an unsent answer may make no progress before its connection is closed (clients that never read)',
  },
  'max-connections': flagRow<number | null>({
    value: 'N',
    env: 'MAX_CONNECTIONS',
    default: null,
    shownDefault: 'the descriptor limit less an eighth (at least 64) and the refusal slots: 864 at `ulimit -n` 1024',
    parse: CONNECTIONS,
    help:
      "connections open at once, the admin listener's included; at it, connections serving no one are closed first, " +
      'then new ones answered 503 with `Retry-After` (see [Hardening](#hardening))',
  }),
  'max-connections-per-client': flagRow<number | null>({
    value: 'N',
    env: 'MAX_CONNECTIONS_PER_CLIENT',
    default: null,
    shownDefault: 'half of `--max-connections`',
    parse: CONNECTIONS,
    help:
      'connections of one client address; loopback addresses are held to `--max-connections` alone, so a reverse ' +
      'proxy on the same host is never starved (behind a proxy on another host, set it to `--max-connections`)',
  }),
  'stop-grace': {
    value: 'N',
    env: 'STOP_GRACE',
    default: 10,
    parse: integerFrom(0, 24 * 3600),
    help:
      'seconds requests under way (CritPt gradings included) may take to finish after SIGTERM before their ' +
      'connections are closed (see [Running under systemd](#running-under-systemd-behind-tls))',
  },
  'keys-grace': {
    value: 'N',
    env: 'KEYS_GRACE',
    default: 10,
    parse: integerFrom(0, 3600),
    help:
      'seconds keyed requests wait for a changed `keys.json` the server cannot read before they are answered 503; ' +
      '0 answers 503 at once (see [Keys](#keys))',
  },
  'usage-retention-days': {
    value: 'N',
    env: 'USAGE_RETENTION_DAYS',
    default: DEFAULT_USAGE_RETENTION_DAYS,
    parse: integerFrom(1, 100_000),
    help:
      'UTC days the usage history keeps (answers served per scope and day; older days are dropped) ' +
      '(see [Usage history](#usage-history))',
  },
  'admin-port': flagRow<number | null>({
    value: 'N',
    env: 'ADMIN_PORT',
    default: null,
    shownDefault: 'none: no admin listener',
    parse: integerFrom(0, 65535),
    help: 'port of the admin listener (key management API and page, admin tokens only); 0 picks a free one',
  }),
  'admin-host': {
    value: 'H',
    env: 'ADMIN_HOST',
    default: '127.0.0.1',
    parse: asText,
    help: 'address of the admin listener',
  },
  'admin-session-idle': {
    value: 'D',
    env: 'ADMIN_SESSION_IDLE',
    default: ADMIN_SESSION_MS.idle,
    shownDefault: durationText(ADMIN_SESSION_MS.idle),
    parse: durationFrom(MINUTE_MS, DAY_MS),
    help:
      'a key-management page session unused this long ends, and the page asks to sign in again (`90s`, `30m`, `2h`; ' +
      '1m to 1d; see [The admin listener](#the-admin-listener-keys-over-http))',
  },
  'admin-session-lifetime': {
    value: 'D',
    env: 'ADMIN_SESSION_LIFETIME',
    default: ADMIN_SESSION_MS.lifetime,
    shownDefault: durationText(ADMIN_SESSION_MS.lifetime),
    parse: durationFrom(MINUTE_MS, 30 * DAY_MS),
    help: 'a key-management page session ends this long after its sign-in, however much it is used (1m to 30d)',
  },
  'quota-free': {
    value: 'N',
    env: 'QUOTA_FREE',
    default: DEFAULT_LIMITS.free,
    parse: integerFrom(0, 1e9),
    help: 'requests per window for Free keys',
  },
  'quota-pro': {
    value: 'N',
    env: 'QUOTA_PRO',
    default: DEFAULT_LIMITS.pro,
    parse: integerFrom(0, 1e9),
    help: 'requests per window for Pro keys',
  },
  'quota-commercial': {
    value: 'N',
    env: 'QUOTA_COMMERCIAL',
    default: DEFAULT_LIMITS.commercialDefault,
    parse: integerFrom(0, 1e9),
    help: 'Commercial keys without a quota of their own',
  },
  'quota-critpt': {
    value: 'N',
    env: 'QUOTA_CRITPT',
    default: DEFAULT_LIMITS.critpt,
    parse: integerFrom(0, 1e6),
    help: 'CritPt gradings per user per window',
  },
  ...CRITPT_FLAGS,
  metrics: switchFlag('serve Prometheus metrics at `/metrics`', 'METRICS'),
  quiet: switchFlag('no access log on stdout', 'QUIET'),
  'no-counting': switchFlag('do not count quotas (benchmarks only)'),
} satisfies FlagTable;

export type ServerFlag = keyof typeof SERVER_FLAGS;
