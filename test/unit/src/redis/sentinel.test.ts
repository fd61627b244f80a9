import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { replicasOption, resolveOptions, storeOption, type ServerOptions } from '../../../../src/config.ts';
import { parseRedisUrl, storeLabel } from '../../../../src/redis/address.ts';
import { parseSentinelUrl } from '../../../../src/redis/sentinel-url.ts';
import { UsageError } from '../../../../src/shared/flags.ts';

const url = suite('parseSentinelUrl');

url('should read the sentinels, the primary\'s name and the database', () => {
  const address = parseSentinelUrl('redis-sentinel://10.0.0.1:26379,10.0.0.2:26380,[::1]:26381/cache-main/2');
  assert.equal(address.sentinel, {
    masterName: 'cache-main',
    sentinels: [
      { host: '10.0.0.1', port: 26379 },
      { host: '10.0.0.2', port: 26380 },
      { host: '::1', port: 26381 },
    ],
    auth: null,
  });
  assert.is(address.db, 2);
  assert.equal([address.username, address.password], [null, null]);
  assert.is(address.label, 'cache-main via sentinels 10.0.0.1:26379,10.0.0.2:26380,[::1]:26381/2');
});

url('should speak TLS to the sentinels and the primary with rediss-sentinel://, and not with redis-sentinel://', () => {
  const tls = { ca: Buffer.from('ca'), cert: null, key: null };
  assert.equal(parseSentinelUrl('rediss-sentinel://10.0.0.1:26379/m', tls).tls, tls);
  assert.is(parseSentinelUrl('redis-sentinel://10.0.0.1:26379/m', tls).tls, null);
  assert.is(storeLabel(parseSentinelUrl('rediss-sentinel://:pw@10.0.0.1:26379/m/1')), 'rediss-sentinel m via sentinel 10.0.0.1:26379/1');
  assert.is(storeLabel(parseRedisUrl('rediss://:pw@10.0.0.9:6380/2')), 'rediss://10.0.0.9:6380/2');
});

url('should default the database to 0 and a sentinel\'s port to 26379', () => {
  const address = parseSentinelUrl('redis-sentinel://sentinel.internal/mymaster');
  assert.equal([address.db, address.sentinel?.sentinels], [0, [{ host: 'sentinel.internal', port: 26379 }]]);
  assert.is(address.label, 'mymaster via sentinel sentinel.internal:26379/0');
  assert.is(parseSentinelUrl('redis-sentinel://s:1/m/').db, 0);
});

url('should take the data Redis\'s credentials, decoded, and keep the password out of the label', () => {
  const both = parseSentinelUrl('redis-sentinel://app:s%40cret@s1:26379,s2:26379/m/1');
  assert.equal([both.username, both.password], ['app', 's@cret']);
  assert.not.ok(both.label.includes('cret'));
  const passwordOnly = parseSentinelUrl('redis-sentinel://:pw@s1:26379/m');
  assert.equal([passwordOnly.username, passwordOnly.password], [null, 'pw']);
});

url('should refuse a malformed URL, saying what is wrong', () => {
  assert.throws(() => parseSentinelUrl('redis-sentinel://s1:26379'), /names the monitored primary/);
  assert.throws(() => parseSentinelUrl('redis-sentinel://s1:26379/'), /names the monitored primary/);
  assert.throws(() => parseSentinelUrl('redis-sentinel:///m'), /at least one sentinel/);
  assert.throws(() => parseSentinelUrl('redis-sentinel://s1:26379,/m'), /a sentinel is HOST:PORT, got ""/);
  assert.throws(() => parseSentinelUrl('redis-sentinel://s1:port/m'), /a sentinel is HOST:PORT/);
  assert.throws(() => parseSentinelUrl('redis-sentinel://s1:70000/m'), /a port is 1 to 65535/);
  assert.throws(() => parseSentinelUrl('redis-sentinel://s1:26379/m/one'), /database is a number/);
  assert.throws(() => parseSentinelUrl('redis-sentinel://s1:26379/m/1/extra'), /a Sentinel URL is redis-sentinel:\/\/\[\[USER\]:PASSWORD@\]HOST:PORT/);
  assert.throws(() => parseSentinelUrl('redis-sentinel://user@s1:26379/m'), /\[USER\]:PASSWORD@/);
});

url('should take the sentinels\' own credentials from the query, apart from the data Redis\'s, and keep them out of the label', () => {
  const acl = parseSentinelUrl('redis-sentinel://:data@s1:26379,s2:26379/m/0?sentinel_username=watcher&sentinel_password=s%26cret');
  assert.equal(acl.sentinel?.auth, { username: 'watcher', password: 's&cret' });
  assert.equal([acl.username, acl.password], [null, 'data']);
  assert.equal(parseSentinelUrl('redis-sentinel://s1/m?sentinel_password=pw').sentinel?.auth, { username: null, password: 'pw' });
  assert.is(parseSentinelUrl('redis-sentinel://s1/m').sentinel?.auth, null);
  assert.not.ok(acl.label.includes('cret') || acl.label.includes('watcher'));
});

url('should refuse a query it does not know, and a user without a password', () => {
  assert.throws(() => parseSentinelUrl('redis-sentinel://s1/m?sentinel_pasword=pw'), /takes only sentinel_username and sentinel_password in its query, got "sentinel_pasword"/);
  assert.throws(() => parseSentinelUrl('redis-sentinel://s1/m?sentinel_username=u'), /sentinel_password is needed/);
  assert.throws(() => parseSentinelUrl('redis-sentinel://s1/m?'), /sentinel_password is needed/);
});

url.run();

const options = suite('--store redis-sentinel:// and --store-replicas');

options('should take a Sentinel URL as --store, and refuse a bad one as a usage error naming both forms', () => {
  const store = storeOption('redis-sentinel://127.0.0.1:26379/m');
  assert.ok(store !== 'file' && store.sentinel?.masterName === 'm');
  assert.throws(() => storeOption('redis-sentinel://127.0.0.1:26379'), (e: unknown) => e instanceof UsageError && /--store must be file or redis:\/\/.*redis-sentinel:\/\/.*names the monitored primary/.test(e.message));
});

options('should resolve --store-replicas and its timeout from flags and the environment, 0 and 500 ms by default', () => {
  const plain = resolveOptions(['--store', 'redis://127.0.0.1:6379'], {}) as ServerOptions;
  assert.equal(plain.storeReplicas, { count: 0, timeoutMs: 500 });
  const set = resolveOptions(['--store-replicas', '2'], { STORE: 'redis-sentinel://s:26379/m', STORE_REPLICAS_TIMEOUT: '250' }) as ServerOptions;
  assert.equal(set.storeReplicas, { count: 2, timeoutMs: 250 });
});

options('should refuse replicas without Redis, and a timeout past the command deadline', () => {
  assert.throws(() => resolveOptions(['--store-replicas', '1'], {}), (e: unknown) => e instanceof UsageError && /--store-replicas counts Redis replicas/.test(e.message));
  assert.throws(() => replicasOption('file', '0', '2000'), (e: unknown) => e instanceof UsageError && /--store-replicas-timeout must be an integer from 1 to 1500/.test(e.message));
  assert.throws(() => replicasOption('file', '0', '0'), /from 1 to 1500/);
  assert.equal(replicasOption('file', '0', undefined), { count: 0, timeoutMs: 500 });
});

options.run();
