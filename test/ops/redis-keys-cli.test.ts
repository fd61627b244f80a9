/**
 * The keys command against Redis (`--store redis://...`), and `keys migrate`, which brings a
 * state folder's keys and open quota windows into Redis, checked by a server on that Redis.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS } from '../../src/config.ts';
import { createKey, revokeKey } from '../../src/keys/changes.ts';
import { QuotaBook } from '../../src/quota/book.ts';
import { settled } from '../../src/quota/counter.ts';
import { parseRedisUrl } from '../../src/redis/client.ts';
import { startServer } from '../../src/start.ts';
import { get } from '../helpers/http.ts';
import { keysCommand, REDIS_INSTALLED, skipWithoutRedis, startRedis, type RedisServer } from '../helpers/redis.ts';
import { buildFixture, TestClock } from '../helpers/server.ts';

const root = mkdtempSync(join(tmpdir(), 'redis-keys-cli-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

const keys = keysCommand;

const NAMES = {
  commands: 'should create, list, grant, ungrant, approve, regenerate and revoke keys in Redis, never showing a hash',
  concurrent: 'should keep every change of keys commands run at the same time',
  refusals: 'should exit 1 naming Redis when it cannot be reached, and 2 for a store that is not one',
  migrate: 'should migrate a state folder\'s keys and open windows once, however often it is run',
};

const cli = suite('keys --store redis://');
let redis: RedisServer;

if (!REDIS_INSTALLED) skipWithoutRedis(cli, Object.values(NAMES));
else {
  let snapshotDir = '';
  cli.before(async () => {
    redis = await startRedis();
    ({ snapshotDir } = await buildFixture(join(root, 'built')));
  });
  cli.after(async () => redis.close());

  cli(NAMES.commands, async () => {
    const store = ['--store', `${redis.url.replace(/\/0$/, '/1')}`];
    const empty = await keys('list', ...store);
    assert.is(empty.status, 0);
    assert.match(empty.stderr, /^no keys in redis:\/\/127\.0\.0\.1:\d+\/1/);
    const made = await keys('create', '--tier', 'commercial', '--org', 'acme', '--user', 'pat', ...store);
    assert.is(made.status, 0, made.stderr);
    assert.match(made.stdout, /^bdk_\S+\n$/);
    const [record] = JSON.parse((await keys('list', '--json', ...store)).stdout);
    assert.equal([record.tier, record.org, record.user, record.scope, record.revoked_at], ['commercial', 'acme', 'pat', 'user', null]);
    assert.not.ok('hash' in record);
    assert.is((await keys('grant', record.id, 'capstan-serve', '--snapshot', snapshotDir, ...store)).stdout, `${record.id} now holds 1 grant, including capstan-serve\n`);
    assert.is((await keys('grant', record.id, 'hangar-inference', '--snapshot', snapshotDir, ...store)).status, 0);
    assert.is((await keys('ungrant', record.id, 'hangar-inference', ...store)).status, 0);
    assert.is((await keys('critpt', record.id, 'on', ...store)).status, 0);
    const approved = JSON.parse((await keys('list', '--json', ...store)).stdout)[0];
    assert.equal([approved.grants, approved.critpt], [['capstan-serve'], true]);
    const regenerated = await keys('regenerate', record.id, ...store);
    assert.match(regenerated.stdout, /^bdk_\S+\n$/);
    assert.is.not(regenerated.stdout, made.stdout);
    const revoked = await keys('revoke', record.id, ...store);
    assert.match(revoked.stdout, /^revoked key_/);
    const again = await keys('revoke', record.id, ...store);
    assert.is(again.status, 1);
    assert.match(again.stderr, /was revoked at/);
    const table = (await keys('list', ...store)).stdout;
    assert.match(table, /revoked/);
    assert.not.match(table, /capstan-serve/, 'list counts grants');
    assert.not.match(table, /[0-9a-f]{64}/);
  });

  cli(NAMES.concurrent, async () => {
    const store = ['--store', redis.url.replace(/\/0$/, '/2')];
    const made = await Promise.all(Array.from({ length: 12 }, (_, i) => keys('create', '--tier', 'free', '--org', `org${i}`, '--json', ...store)));
    assert.ok(made.every((m) => m.status === 0));
    const ids = made.map((m) => JSON.parse(m.stdout).id as string);
    await Promise.all(ids.slice(0, 6).map((id) => keys('revoke', id, ...store)));
    const listed = JSON.parse((await keys('list', '--json', ...store)).stdout) as { id: string; revoked_at: string | null }[];
    assert.is(listed.length, 12, 'no create lost another');
    assert.is(listed.filter((r) => r.revoked_at !== null).length, 6, 'no revocation lost another');
  });

  cli(NAMES.refusals, async () => {
    const down = await keys('list', '--store', 'redis://127.0.0.1:1');
    assert.is(down.status, 1);
    assert.match(down.stderr, /^keys: Redis at 127\.0\.0\.1:1\/0 is unreachable/);
    const bad = await keys('list', '--store', 'postgres://x');
    assert.is(bad.status, 2);
    assert.match(bad.stderr, /--store must be file or redis:\/\//);
    const fileMigrate = await keys('migrate', '--state', root);
    assert.is(fileMigrate.status, 2);
    assert.match(fileMigrate.stderr, /migrate copies a state folder into Redis/);
  });

  cli(NAMES.migrate, async () => {
    const stateDir = join(root, 'state');
    const clock = new TestClock(Date.now());
    const kept = createKey(stateDir, { tier: 'free', org: 'moving', user: 'm' });
    const gone = createKey(stateDir, { tier: 'pro', org: 'moving', user: 'g' });
    revokeKey(stateDir, gone.record.id);
    const book = QuotaBook.open({ stateDir, clock, log: () => {} });
    for (let i = 0; i < 7; i++) await settled(book.take('data', 'user:moving/m', 100).durable!);
    book.close();

    const store = ['--store', redis.url.replace(/\/0$/, '/3')];
    const first = await keys('migrate', '--state', stateDir, ...store);
    assert.is(first.status, 0, first.stderr);
    assert.match(first.stderr, /2 keys added, 0 already there, 1 open quota windows/);
    const second = await keys('migrate', '--state', stateDir, ...store);
    assert.match(second.stderr, /0 keys added, 2 already there, 1 open quota windows/);

    const server = await startServer({ ...DEFAULT_OPTIONS, port: 0, snapshotDir, stateDir: join(root, 'other'), store: parseRedisUrl(store[1]), quiet: true, limits: { ...DEFAULT_OPTIONS.limits, free: 20 } }, { clock, log: () => {}, logError: () => {} });
    try {
      const reply = await get(server.url, '/api/v2/language/models/free', kept.key);
      assert.is(reply.status, 200);
      assert.is(reply.headers['x-ratelimit-remaining'], '12', 'seven counted in the folder, one now: migrated once');
      const usage = await keys('usage', '--json', ...store);
      assert.is(usage.status, 0, usage.stderr);
      const row = JSON.parse(usage.stdout).find((r: { scope: string }) => r.scope === 'user:moving/m');
      assert.equal([row.used, row.limit, row.remaining], [8, 20, 12], 'keys usage asks Redis, for the counts and for the limits the server runs with');
      assert.match(usage.stderr, /^limits as the server recorded them in \S+ at [^:]+:\d\d:\d\d\.\d{3}Z: free 20, pro 500,/);
      assert.is((await get(server.url, '/api/v2/language/models/free', gone.key)).status, 401, 'a revoked key stays revoked');
    } finally {
      await server.close();
    }
  });
}

cli.run();
