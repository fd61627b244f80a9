/**
 * The keys command against Redis (`--store redis://...`), and `keys migrate`, which brings a
 * state folder's keys, open quota windows, admin tokens and audit trail into Redis, checked by a
 * server on that Redis (its public port, and its admin listener signed in with a carried token).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS } from '../../src/config.ts';
import { createKey, revokeKey } from '../../src/keys/changes.ts';
import { FileQuota } from '../../src/quota/file-quota.ts';
import { settled } from '../../src/state/quota-counter.ts';
import { parseRedisUrl, RedisClient } from '../../src/redis/client.ts';
import { fileTokenStore, redisTokenStore, type AdminTokenRecord } from '../../src/keys/admin-tokens.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import { get, request } from '../helpers/http.ts';
import { keysCommand, keysProcess, REDIS_INSTALLED, skipWithoutRedis, startRedis, type RedisServer } from '../helpers/redis.ts';
import { buildFixture, TestClock } from '../helpers/server.ts';

const root = mkdtempSync(join(tmpdir(), 'redis-keys-cli-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

const keys = keysCommand;

const NAMES = {
  commands: 'should create, list, grant, ungrant, approve, regenerate and revoke keys in Redis, never showing a hash',
  concurrent: 'should keep every change of keys commands run at the same time',
  refusals: 'should exit 1 naming Redis when it cannot be reached, and 2 for a store that is not one',
  migrate: 'should migrate a state folder\'s keys and open windows once, however often it is run',
  tokensAudited: 'should record admin-token create and revoke in Redis\'s audit trail, run as processes, naming the token by its id and name only',
  carry: 'should carry a state folder\'s admin tokens and audit trail into Redis once, in order with their own times, for a server\'s admin listener to sign in with',
  carryOrder: 'should carry entries of one millisecond, or after the clock stepped back, in the file\'s order, skipping lines that are not entries',
  carryLeft: 'should leave a token Redis holds otherwise, and audit entries older than Redis\'s own trail, as Redis has them, and say so with exit status 1',
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
    const book = FileQuota.open({ stateDir, clock, log: () => {} });
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

  /** Redis db `db` of the test's server, as --store. */
  const storeOf = (db: number) => ['--store', redis.url.replace(/\/0$/, `/${db}`)];
  const json = (done: { status: number | null; stdout: string; stderr: string }) => {
    assert.is(done.status, 0, done.stderr);
    return JSON.parse(done.stdout);
  };
  /** The admin tokens as stored, hashes included: what a server signs in with. */
  async function storedTokens(url: string): Promise<AdminTokenRecord[]> {
    const client = new RedisClient({ address: parseRedisUrl(url) });
    try {
      await client.started();
      return await redisTokenStore(client).list();
    } finally {
      client.close();
    }
  }
  const admin = (server: RunningServer, token: string, method = 'GET', path = '/admin/api/audit', body?: unknown) =>
    request(server.admin!.url, path, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });

  cli(NAMES.tokensAudited, async () => {
    const store = storeOf(4);
    const { token, id } = json(await keysProcess('admin-token', 'create', '--name', 'billing', '--json', ...store));
    assert.is((await keysProcess('admin-token', 'revoke', id, ...store)).status, 0);
    assert.is((await keysProcess('admin-token', 'revoke', id, ...store)).status, 1, 'a refused revocation');
    const read = await keysProcess('audit', '--json', ...store);
    const entries = json(read);
    assert.equal(entries.map((e: { action: string; key: string; changes: unknown }) => [e.action, e.key, e.changes]), [['admin-token.revoke', id, {}], ['admin-token.create', id, { name: 'billing' }]], 'newest first; the refused revocation not recorded');
    for (const entry of entries) assert.equal([entry.actor, entry.from], ['keys-command', 'local']);
    const [stored] = await storedTokens(store[1]);
    for (const secret of [token, stored.hash, 'bdat_']) assert.not.ok(read.stdout.includes(secret), 'no token, nor its hash, in the trail');
  });

  cli(NAMES.carry, async () => {
    const folder = ['--state', join(root, 'carry')];
    const store = storeOf(5);
    // Made on the folder as before the move: a key, two admin tokens, one of them revoked.
    json(await keysCommand('create', '--tier', 'pro', '--org', 'moving', '--json', ...folder));
    const billing = json(await keysProcess('admin-token', 'create', '--name', 'billing', '--json', ...folder));
    const old = json(await keysProcess('admin-token', 'create', '--name', 'old-ops', '--json', ...folder));
    assert.is((await keysProcess('admin-token', 'revoke', old.id, ...folder)).status, 0);
    const trail = json(await keysCommand('audit', '--json', ...folder));
    assert.equal(trail.map((e: { action: string }) => e.action), ['admin-token.revoke', 'admin-token.create', 'admin-token.create', 'key.create']);

    const first = await keysProcess('migrate', ...folder, ...store);
    assert.is(first.status, 0, first.stderr);
    assert.match(first.stderr, /: 1 keys added, 0 already there, 0 open quota windows, 2 admin tokens added, 0 already there, 4 audit entries added, 0 already there\n$/);
    assert.equal(await storedTokens(store[1]), await fileTokenStore(folder[1]).list(), 'the tokens as the folder holds them: ids, names, hashes, times');
    assert.equal(json(await keysProcess('audit', '--json', ...store)), trail, 'the trail in its order, with its own times');

    const server = await startServer({ ...DEFAULT_OPTIONS, port: 0, adminPort: 0, snapshotDir, stateDir: join(root, 'carry-server'), store: parseRedisUrl(store[1]), quiet: true }, { log: () => {}, logError: () => {} });
    try {
      const read = await admin(server, billing.token);
      assert.is(read.status, 200, 'the migrated token signs in');
      assert.equal(read.json().data, trail, "the server's admin API reads the carried trail");
      assert.is((await admin(server, old.token)).status, 401, 'the token revoked on the folder stays revoked');
      assert.is((await admin(server, billing.token, 'POST', '/admin/api/keys', { tier: 'free', org: 'moving' })).status, 201, 'a change on Redis after the move');
    } finally {
      await server.close();
    }

    const second = await keysProcess('migrate', ...folder, ...store);
    assert.is(second.status, 0, second.stderr);
    assert.match(second.stderr, /: 0 keys added, 1 already there, 0 open quota windows, 0 admin tokens added, 2 already there, 0 audit entries added, 4 already there\n$/);
    const after = json(await keysProcess('audit', '--json', ...store));
    assert.equal(after.slice(1), trail, 'nothing carried twice');
    assert.equal([after[0].action, after[0].actor], ['key.create', billing.id]);
  });

  cli(NAMES.carryOrder, async () => {
    const stateDir = join(root, 'by-hand');
    mkdirSync(stateDir);
    const entry = (at: string, key: string) => ({ at, actor: 'keys-command', actor_name: 'system user ops', action: 'key.revoke', key, changes: {}, from: 'local' });
    const written = [entry('2026-03-01T10:00:00.000Z', 'key_000000000001'), entry('2026-03-01T10:00:00.000Z', 'key_000000000002'), entry('2026-03-01T09:59:59.000Z', 'key_000000000003')];
    const lines = written.map((e) => JSON.stringify(e));
    // A line a hand edit broke, and a last line a crash cut short: neither is an entry.
    writeFileSync(join(stateDir, 'audit.log'), `${lines[0]}\nnot an entry\n${lines[1]}\n${lines[2]}\n${lines[2].slice(0, 40)}`);
    const store = storeOf(7);
    const first = await keysCommand('migrate', '--state', stateDir, ...store);
    assert.is(first.status, 0, first.stderr);
    assert.match(first.stderr, /3 audit entries added, 0 already there \(1 lines of audit\.log that are not audit entries skipped\)\n$/);
    assert.equal(json(await keysCommand('audit', '--json', ...store)), [...written].reverse(), "newest first in the file's order, each with its own time");
    assert.match((await keysCommand('migrate', '--state', stateDir, ...store)).stderr, /0 audit entries added, 3 already there/);
  });

  cli(NAMES.carryLeft, async () => {
    const folder = ['--state', join(root, 'split')];
    const store = storeOf(6);
    const ops = json(await keysCommand('admin-token', 'create', '--name', 'ops', '--json', ...folder));
    assert.match((await keysProcess('migrate', ...folder, ...store)).stderr, /1 admin tokens added, 0 already there, 1 audit entries added, 0 already there\n$/);
    // After the move, a change on each side: the folder revokes the token, Redis gets a key.
    assert.is((await keysCommand('admin-token', 'revoke', ops.id, ...folder)).status, 0);
    json(await keysCommand('create', '--tier', 'free', '--org', 'after', '--json', ...store));

    const again = await keysProcess('migrate', ...folder, ...store);
    assert.is(again.status, 1, again.stderr);
    assert.match(again.stderr, /: 0 keys added, 0 already there, 0 open quota windows, 0 admin tokens added, 0 already there, 0 audit entries added, 1 already there; /);
    assert.match(again.stderr, new RegExp(`; admin tokens not changed, since Redis holds other tokens under these ids: ${ops.id}; `));
    assert.match(again.stderr, /; 1 audit entries not carried: Redis's trail already holds later changes \(its newest made at \d{4}-\S+Z\) and lists entries in the order they were added; keep \S+\/split\/audit\.log: it is the trail of the changes made before\n$/);
    assert.equal((await storedTokens(store[1])).map((t) => [t.id, t.revoked_at]), [[ops.id, null]], 'the token as Redis has it');
    assert.equal(json(await keysCommand('audit', '--json', ...store)).map((e: { action: string }) => e.action), ['key.create', 'admin-token.create'], 'the trail as Redis has it');
  });
}

cli.run();
