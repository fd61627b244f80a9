import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveOptions, storeOption, type ServerOptions } from '../../../src/config.ts';
import type { RedisAddress } from '../../../src/redis/client.ts';
import { UsageError } from '../../../src/shared/flags.ts';
import { throwsWith } from '../../helpers/throws.ts';

const config = suite('upload options');
const MIB = 1024 * 1024;

config('should resolve the upload budget, rate and grace from flags and the environment', () => {
  const options = resolveOptions(['--critpt-upload-budget-mb', '40', '--critpt-upload-min-rate', '4'], { CRITPT_USER_UPLOAD_MB: '20', CRITPT_UPLOAD_GRACE: '5' }) as ServerOptions;
  assert.is(options.critptUploadBudgetBytes, 40 * MIB);
  assert.is(options.critptUserUploadBytes, 20 * MIB);
  assert.is(options.critptMinUploadBytesPerSecond, 4 * 1024);
  assert.is(options.critptUploadGraceSeconds, 5);
});

config('should refuse a budget smaller than the largest body it must hold', () => {
  assert.throws(() => resolveOptions(['--critpt-user-upload-mb', '8'], {}), (error: unknown) => error instanceof UsageError && /at least --critpt-max-body-mb \(16\)/.test(error.message));
  assert.ok(resolveOptions(['--critpt-user-upload-mb', '8', '--critpt-max-body-mb', '8'], {}) !== 'help');
});

config.run();

const store = suite('store options');
const dir = mkdtempSync(join(tmpdir(), 'store-options-'));
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const caFile = join(dir, 'ca.pem');
writeFileSync(caFile, PEM);
const notPem = join(dir, 'not.pem');
writeFileSync(notPem, 'hello\n');
store.after(() => rmSync(dir, { recursive: true, force: true }));

store('should read rediss:// as TLS, its CA file once from the flag or the environment, and keep TLS off for redis://', () => {
  const flagged = (resolveOptions(['--store', 'rediss://:pw@10.0.0.9:6380/1', '--store-ca', caFile], {}) as ServerOptions).store as RedisAddress;
  assert.equal([flagged.host, flagged.port, flagged.db, flagged.password], ['10.0.0.9', 6380, 1, 'pw']);
  assert.equal(flagged.tls, { ca: Buffer.from(PEM), cert: null, key: null });
  assert.is(flagged.label, '10.0.0.9:6380/1', 'the label names no scheme and no password');
  const fromEnv = (resolveOptions([], { STORE: 'rediss://redis.internal', STORE_CA: caFile }) as ServerOptions).store as RedisAddress;
  assert.equal(fromEnv.tls?.ca, Buffer.from(PEM));
  assert.is(fromEnv.port, 6379);
  assert.equal((storeOption('rediss://redis.internal') as RedisAddress).tls, { ca: null, cert: null, key: null }, 'no CA: the system roots');
  assert.is((storeOption('redis://redis.internal') as RedisAddress).tls, null);
});

store('should refuse TLS options without a TLS store, naming them', () => {
  throwsWith(() => resolveOptions(['--store', 'redis://10.0.0.9', '--store-ca', caFile], {}), UsageError, /--store-ca: TLS options need a TLS store: --store rediss:\/\//);
  throwsWith(() => resolveOptions([], { STORE_CERT: caFile, STORE_KEY: caFile }), UsageError, /--store-cert, --store-key: TLS options are for --store rediss:\/\/\.\.\., not the state folder/);
});

store('should refuse a certificate without its key, a key without its certificate, an unreadable file and a CA file without a certificate', () => {
  throwsWith(() => storeOption('rediss://h', { cert: caFile }), UsageError, /--store-cert needs --store-key/);
  throwsWith(() => storeOption('rediss://h', { key: caFile }), UsageError, /--store-key needs --store-cert/);
  throwsWith(() => storeOption('rediss://h', { ca: join(dir, 'missing.pem') }), UsageError, /--store-ca .*missing\.pem cannot be read: ENOENT/);
  throwsWith(() => storeOption('rediss://h', { ca: notPem }), UsageError, /--store-ca .*not\.pem holds no PEM certificate/);
  throwsWith(() => storeOption('rediss://h', { cert: notPem, key: notPem }), UsageError, /--store-cert .* and --store-key .* cannot be used together/);
});

store('should refuse other schemes, naming both forms', () => {
  throwsWith(() => storeOption('https://h'), UsageError, /redis:\/\/ \(or rediss:\/\/ for TLS\)/);
});

store.run();
