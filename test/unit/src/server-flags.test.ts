/**
 * The server's flag table (src/server-flags.ts) is where its defaults, variables, --help and the
 * options table of docs/operating.md come from.
 */
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS, resolveOptions, usage, type ServerOptions } from '../../../src/config.ts';
import { SERVER_FLAGS } from '../../../src/server-flags.ts';
import { flagsMarkdown, plainText } from '../../../src/shared/flag-help.ts';
import { UsageError } from '../../../src/shared/flags.ts';
import { throwsWith } from '../../helpers/throws.ts';

const MIB = 1024 * 1024;
const ROWS = Object.entries(SERVER_FLAGS);

/** What a command line and environment make: the options, or the refusal's message. */
function outcome(argv: string[], env: Record<string, string>): ServerOptions | 'help' | string {
  try {
    return resolveOptions(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return error.message;
  }
}

const defaults = suite('defaults');

defaults('should be the options of an empty command line and environment', () => {
  assert.equal(resolveOptions([], {}), DEFAULT_OPTIONS);
});

defaults('should answer --help and --version with what was asked, not options', () => {
  assert.is(resolveOptions(['--help'], {}), 'help');
  assert.is(resolveOptions(['--version'], { PORT: 'eighty' }), 'version');
});

defaults('should come from the table, in the units its flags are given in', () => {
  assert.is(DEFAULT_OPTIONS.port, SERVER_FLAGS.port.default);
  assert.is(DEFAULT_OPTIONS.cacheBytes, SERVER_FLAGS['cache-mb'].default * MIB);
  assert.is(DEFAULT_OPTIONS.critptMinUploadBytesPerSecond, SERVER_FLAGS['critpt-upload-min-rate'].default * 1024);
  assert.is(DEFAULT_OPTIONS.storeReplicas.timeoutMs, SERVER_FLAGS['store-replicas-timeout'].default);
  assert.is(DEFAULT_OPTIONS.limits.commercialDefault, SERVER_FLAGS['quota-commercial'].default);
  assert.is(DEFAULT_OPTIONS.counting, true, '--no-counting is off by default, so counting is on');
});

defaults('should be what the server took before the table', () => {
  const { limits, storeReplicas, ...rest } = DEFAULT_OPTIONS;
  assert.equal(rest, {
    port: 8080, host: '127.0.0.1', snapshotDir: 'snapshot', snapshotFrom: null, stateDir: 'state', store: 'file', critptUpstream: null,
    critptTimeoutSeconds: 1800, critptMaxBodyBytes: 16 * MIB, critptUploadBudgetBytes: 64 * MIB,
    critptUserUploadBytes: 32 * MIB, critptMinUploadBytesPerSecond: 1024, critptUploadGraceSeconds: 10,
    critptConcurrency: 2, critptContact: 'the operator of this server', cacheBytes: 48 * MIB, sendTimeoutSeconds: 30,
    maxConnections: null, maxConnectionsPerClient: null, stopGraceSeconds: 10, keysGraceSeconds: 10, usageRetentionDays: 400, counting: true,
    adminPort: null, adminHost: '127.0.0.1', adminSessionIdleMs: 30 * 60_000, adminSessionLifetimeMs: 12 * 3_600_000,
    trustProxy: null, metrics: false, quiet: false,
  });
  assert.equal(limits, { free: 100, pro: 500, commercialDefault: 10000, critpt: 10 });
  assert.equal(storeReplicas, { count: 0, timeoutMs: 500 });
});

defaults.run();

const variables = suite('environment variables');

variables('should be the ones the server has always read', () => {
  const named = ROWS.flatMap(([, flag]) => ('env' in flag && flag.env ? [flag.env] : []));
  assert.equal(named.sort(), [
    'ADMIN_HOST', 'ADMIN_PORT', 'ADMIN_SESSION_IDLE', 'ADMIN_SESSION_LIFETIME', 'CACHE_MB', 'CRITPT_CONCURRENCY', 'CRITPT_CONTACT', 'CRITPT_MAX_BODY_MB',
    'CRITPT_TIMEOUT', 'CRITPT_UPLOAD_BUDGET_MB', 'CRITPT_UPLOAD_GRACE', 'CRITPT_UPLOAD_MIN_RATE', 'CRITPT_UPSTREAM',
    'CRITPT_USER_UPLOAD_MB', 'HOST', 'KEYS_GRACE', 'MAX_CONNECTIONS', 'MAX_CONNECTIONS_PER_CLIENT', 'METRICS', 'PORT',
    'QUIET', 'QUOTA_COMMERCIAL', 'QUOTA_CRITPT', 'QUOTA_FREE', 'QUOTA_PRO', 'SEND_TIMEOUT', 'SNAPSHOT_CA', 'SNAPSHOT_DIR', 'SNAPSHOT_FROM', 'SNAPSHOT_KEYS', 'SNAPSHOT_POLL', 'STATE_DIR',
    'STOP_GRACE', 'STORE', 'STORE_CA', 'STORE_CERT', 'STORE_KEY', 'STORE_REPLICAS', 'STORE_REPLICAS_TIMEOUT',
    'TRUST_PROXY', 'USAGE_RETENTION_DAYS',
  ]);
});

variables('should set what its flag sets, accepted or refused alike', () => {
  const samples = ['7', '300', 'http://grader.example', 'elsewhere', 'redis://10.0.0.9'];
  for (const [name, flag] of ROWS) {
    if (!('env' in flag) || !flag.env || !('value' in flag)) continue;
    for (const sample of samples) {
      assert.equal(outcome([], { [flag.env]: sample }), outcome([`--${name}`, sample], {}), `${flag.env}=${sample}`);
    }
  }
});

variables('should yield to the flag', () => {
  assert.is((resolveOptions(['--port', '1'], { PORT: '2' }) as ServerOptions).port, 1);
  assert.is((resolveOptions(['--state', 'flagged'], { STATE_DIR: 'env' }) as ServerOptions).stateDir, 'flagged');
});

variables('should turn a switch on only when it is 1, as before', () => {
  assert.is((resolveOptions([], { METRICS: '1' }) as ServerOptions).metrics, true);
  assert.is((resolveOptions([], { METRICS: 'yes', QUIET: '0' }) as ServerOptions).metrics, false);
  assert.is((resolveOptions([], { QUIET: '1' }) as ServerOptions).quiet, true);
  assert.is((resolveOptions(['--no-counting'], {}) as ServerOptions).counting, false);
});

variables('should refuse a bad value under the flag\'s name', () => {
  throwsWith(() => resolveOptions([], { PORT: 'eighty' }), UsageError, /^--port must be an integer from 0 to 65535, got "eighty"$/);
  throwsWith(() => resolveOptions([], { CRITPT_UPSTREAM: 'ftp://x' }), UsageError, /^--critpt-upstream must be an http\(s\) URL/);
  throwsWith(() => resolveOptions([], { TRUST_PROXY: '10.0.0.0/8,proxy' }), UsageError, /^--trust-proxy: "proxy" is not an IP address, a CIDR block or loopback$/);
  throwsWith(() => resolveOptions(['--admin-session-idle', '30 minutes'], {}), UsageError, /^--admin-session-idle must be a duration from 1m to 1d \(such as 90s, 30m, 12h, 7d\), got "30 minutes"$/);
  throwsWith(() => resolveOptions(['--admin-session-lifetime', '31d'], {}), UsageError, /from 1m to 30d/);
});

variables('should read --trust-proxy once into the set of addresses, and durations into milliseconds', () => {
  const options = resolveOptions(['--trust-proxy', 'loopback, 10.0.0.0/8', '--admin-session-idle', '15m'], { ADMIN_SESSION_LIFETIME: '8h' }) as ServerOptions;
  assert.ok(options.trustProxy?.has('::ffff:10.1.2.3'));
  assert.ok(options.trustProxy?.has('::1'));
  assert.not.ok(options.trustProxy?.has('192.0.2.1'));
  assert.is(options.adminSessionIdleMs, 15 * 60_000);
  assert.is(options.adminSessionLifetimeMs, 8 * 3_600_000);
  assert.is((resolveOptions(['--admin-session-idle', '600'], {}) as ServerOptions).adminSessionIdleMs, 600_000, 'a bare number is seconds');
});

variables.run();

const typo = suite('a mistyped flag');

typo('should be named with the flag it most likely meant', () => {
  throwsWith(() => resolveOptions(['--prot', '8080'], {}), UsageError, /^unknown option --prot; did you mean --port\?$/);
  throwsWith(() => resolveOptions(['--max-conections', '9'], {}), UsageError, /did you mean --max-connections\?$/);
  throwsWith(() => resolveOptions(['--no-countng'], {}), UsageError, /did you mean --no-counting\?$/);
});

typo('should be named alone when no flag is near it', () => {
  throwsWith(() => resolveOptions(['--verbose'], {}), UsageError, /^unknown option --verbose$/);
});

typo.run();

const help = suite('--help');

help('should list every flag of the table with its help, variable and default', () => {
  // Continuation lines are indented past the flags' column; each flag's line read whole.
  const text = usage().replace(/\n {3,}/g, ' ');
  for (const [name, flag] of ROWS) {
    const line = text.split('\n').find((l) => l.startsWith(`  --${name} `));
    assert.ok(line, `--${name} is listed`);
    assert.ok(line.includes(plainText(flag.help)), `--${name}'s help`);
    if ('env' in flag && flag.env) assert.ok(line.includes(`env ${flag.env}`), `--${name}'s variable`);
  }
  assert.ok(text.includes('default 8080'));
  assert.ok(text.includes('--help'));
});

help('should keep its lines within 100 columns where words allow', () => {
  const long = usage().split('\n').filter((line) => line.length > 100 && line.trim().includes(' '));
  assert.equal(long, []);
});

help.run();

const docs = suite('docs/operating.md');

docs('should hold the options table the flag table makes', () => {
  const doc = readFileSync(new URL('../../../docs/operating.md', import.meta.url), 'utf8').split('\n');
  const start = doc.indexOf('| Flag | Default | Meaning |');
  assert.ok(start >= 0, 'the table is there');
  const end = doc.findIndex((line, i) => i > start && !line.startsWith('|'));
  const written = flagsMarkdown(SERVER_FLAGS);
  assert.fixture(doc.slice(start, end).join('\n'), written, 'regenerate it from src/server-flags.ts (flagsMarkdown)');
});

docs.run();
