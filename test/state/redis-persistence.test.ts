/**
 * Redis as operators run it, against real redis-servers: a Redis that keeps nothing on disk
 * (`--save '' --appendonly no`) is reported, one log line at start and /readyz 200 listing it
 * under `warnings`, and the report follows it when AOF is turned on and off; AOF or RDB save
 * points are not reported. The ACL user deploy/redis/users.acl ships (its line read from a copy
 * whose password deploy/README.md's step set) runs the server and the keys command, and without
 * CONFIG the server says it cannot tell rather than guess.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RedisClient } from '../../src/redis/client.ts';
import { get, request, type Reply } from '../helpers/http.ts';
import { placeShipped, setPasswords } from '../helpers/deploy-kit.ts';
import { keysCommand, REDIS_INSTALLED, skipWithoutRedis, startRedis, type RedisServer } from '../helpers/redis.ts';
import { createFreeKey, RedisTestBed, type LoggedServer } from '../helpers/redis-servers.ts';
import { until } from '../helpers/wait.ts';

const FREE_LIST = '/api/v2/language/models/free';
const root = mkdtempSync(join(tmpdir(), 'redis-persistence-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const bed = new RedisTestBed(root);

const NAMES = {
  off: 'should report a Redis that keeps nothing on disk: one log line at start, /readyz 200 with it under warnings, keyed requests still 200',
  follows: 'should follow AOF turned on and off at runtime: the warning ends and begins again, one log line each',
  on: 'should report nothing with AOF on, or with RDB save points and AOF off',
  acl: 'should run the server and the keys command as the ACL user deploy/redis/users.acl ships, with AOF on: ready, no warning, requests counted',
  cannotTell: 'should say it cannot tell, not guess, when AOF is off and the ACL refuses CONFIG GET save',
};

const persistence = suite('Redis persistence reported');
const acl = suite('Redis ACL user as shipped');

/** SETs Redis has run: the probe writes one a round (nothing else here runs SET), so this counts rounds. */
async function probeWrites(admin: RedisClient): Promise<number> {
  return Number(/cmdstat_set:calls=(\d+)/.exec(String(await admin.send(['INFO', 'commandstats'])))?.[1] ?? 0);
}

async function readyz(url: string): Promise<{ status: number; warnings: string[]; reply: Reply }> {
  const reply = await get(url, '/readyz');
  return { status: reply.status, warnings: reply.json().warnings ?? reply.json().details?.warnings, reply };
}

async function untilWarnings(url: string, match: (warnings: string[]) => boolean, what: string): Promise<string[]> {
  let last: Awaited<ReturnType<typeof readyz>> | null = null;
  await until(async () => {
    last = await readyz(url);
    return last.status === 200 && match(last.warnings);
  }, () => `${what} (last: ${last?.status} ${last?.reply.text})`);
  return last!.warnings;
}

const NOTHING_ON_DISK = /keeps nothing on disk \(appendonly no, no save points\): a restart loses every key and quota window; set `appendonly yes`/;

/**
 * The `bda` user of deploy/redis/users.acl as an ACL SETUSER command, and its password: a copy of
 * the shipped files, the documented password step run on it, the user's line read back.
 */
function shippedAcl(): { command: string[]; password: string } {
  const dir = join(root, 'deploy-redis');
  mkdirSync(dir);
  for (const file of ['users.acl', 'redis.conf', 'sentinel.conf']) placeShipped(`redis/${file}`, dir, file, []);
  const { bda: password } = setPasswords(dir, ['bda']);
  const line = readFileSync(join(dir, 'users.acl'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('user bda '));
  assert.ok(line, 'deploy/redis/users.acl has a user bda line');
  return { command: ['ACL', 'SETUSER', ...line!.split(/\s+/).slice(1)], password };
}

if (!REDIS_INSTALLED) {
  skipWithoutRedis(persistence, [NAMES.off, NAMES.follows, NAMES.on]);
  skipWithoutRedis(acl, [NAMES.acl, NAMES.cannotTell]);
} else {
  persistence.after(() => {
    bed.closeOperators();
  });

  let bare: RedisServer;
  let bareServer: LoggedServer;
  persistence(NAMES.off, async () => {
    // The helper's default: --save '' --appendonly no.
    bare = await startRedis();
    const key = await createFreeKey(bare.url, 'diskless');
    bareServer = await bed.serve(bare.url);
    const { url } = bareServer.server;
    const warnings = await untilWarnings(url, (w) => w.length > 0, '/readyz lists the warning');
    assert.is(warnings.length, 1);
    assert.match(warnings[0], `Redis at 127.0.0.1:${bare.port}/0 ${'keeps nothing on disk'}`);
    assert.match(warnings[0], NOTHING_ON_DISK);
    assert.is((await get(url, FREE_LIST, key)).status, 200, 'the server answers correctly meanwhile');
    const logged = bareServer.lines.filter((line) => NOTHING_ON_DISK.test(line));
    assert.equal(logged.length, 1, bareServer.lines.join('\n'));
    assert.match(logged[0], /^warning: Redis at /);
    // Many probe rounds later, still the one line.
    const admin = await bed.operator(bare);
    const rounds = await probeWrites(admin);
    await until(async () => (await probeWrites(admin)) >= rounds + 5, 'five more probe rounds');
    assert.is(bareServer.lines.filter((line) => NOTHING_ON_DISK.test(line)).length, 1, bareServer.lines.join('\n'));
  });

  persistence(NAMES.follows, async () => {
    try {
      const admin = await bed.operator(bare);
      const { url } = bareServer.server;
      await admin.send(['CONFIG', 'SET', 'appendonly', 'yes']);
      await untilWarnings(url, (w) => w.length === 0, 'no warning with AOF on');
      assert.ok(bareServer.lines.some((line) => /^no longer: Redis at .* keeps nothing on disk/.test(line)), bareServer.lines.join('\n'));
      await admin.send(['CONFIG', 'SET', 'appendonly', 'no']);
      await untilWarnings(url, (w) => w.some((text) => NOTHING_ON_DISK.test(text)), 'the warning again with AOF off');
      assert.is(bareServer.lines.filter((line) => /^warning: .*keeps nothing on disk/.test(line)).length, 2, bareServer.lines.join('\n'));
    } finally {
      await bareServer.close();
      await bare.close();
    }
  });

  persistence(NAMES.on, async () => {
    for (const args of [['--appendonly', 'yes'], ['--save', '900 1']]) {
      const redis = await startRedis({ args });
      await createFreeKey(redis.url, 'durable');
      const started = await bed.serve(redis.url);
      try {
        const ready = await readyz(started.server.url);
        assert.is(ready.status, 200, ready.reply.text);
        assert.equal(ready.warnings, [], `${args.join(' ')}: ${ready.reply.text}`);
        // The probe has run several rounds since: nothing was reported in any of them.
        const admin = await bed.operator(redis);
        await until(async () => (await probeWrites(admin)) >= 5, 'five probe rounds');
        assert.equal((await readyz(started.server.url)).warnings, []);
        assert.not.ok(started.lines.some((line) => /^warning:/.test(line)), started.lines.join('\n'));
      } finally {
        await started.close();
        await redis.close();
      }
    }
  });

  acl.after(() => {
    bed.closeOperators();
  });

  let shipped: ReturnType<typeof shippedAcl> | undefined;
  /** A Redis with the shipped ACL user; the server's URL logs in as it (database 1, so SELECT is used too). */
  async function withAclUser(args: readonly string[]): Promise<{ redis: RedisServer; url: string }> {
    const redis = await startRedis({ args, db: 1 });
    const admin = await bed.operator(redis);
    const { command, password } = (shipped ??= shippedAcl());
    assert.is(await admin.send(command), 'OK');
    return { redis, url: `redis://bda:${password}@127.0.0.1:${redis.port}/1` };
  }

  acl(NAMES.acl, async () => {
    const { redis, url } = await withAclUser(['--appendonly', 'yes']);
    const started = await bed.serve(url);
    try {
      const key = await createFreeKey(url, 'aclco');
      await until(async () => (await readyz(started.server.url)).status === 200, 'ready as the ACL user');
      assert.is((await get(started.server.url, FREE_LIST, key)).status, 200);
      const head = await request(started.server.url, FREE_LIST, { method: 'HEAD', headers: { 'x-api-key': key } });
      assert.is(Number(head.headers['x-ratelimit-limit']) - Number(head.headers['x-ratelimit-remaining']), 1);
      const list = await keysCommand('list', '--json', '--store', url);
      assert.is(list.status, 0, list.stderr);
      const id = (JSON.parse(list.stdout) as { id: string }[])[0].id;
      const usage = await keysCommand('usage', '--json', '--store', url);
      assert.is(usage.status, 0, usage.stderr);
      // A folder's keys migrated in, as the ACL user.
      const folder = join(root, 'acl-state');
      const fileKey = await keysCommand('create', '--tier', 'pro', '--org', 'folderco', '--state', folder);
      assert.is(fileKey.status, 0, fileKey.stderr);
      const migrated = await keysCommand('migrate', '--state', folder, '--store', url);
      assert.is(migrated.status, 0, migrated.stderr);
      const revoked = await keysCommand('revoke', id, '--store', url);
      assert.is(revoked.status, 0, revoked.stderr);
      assert.is((await get(started.server.url, FREE_LIST, key)).status, 401);
      // The admin tokens and the audit trail, as the ACL user: nothing refused, no warning.
      assert.not.match(revoked.stderr, /warning/, 'the revocation went into the audit trail');
      const token = await keysCommand('admin-token', 'create', '--name', 'acl-ops', '--json', '--store', url);
      assert.is(token.status, 0, token.stderr);
      const tokens = await keysCommand('admin-token', 'list', '--json', '--store', url);
      assert.is(tokens.status, 0, tokens.stderr);
      assert.is((await keysCommand('admin-token', 'revoke', JSON.parse(token.stdout).id, '--store', url)).status, 0);
      const trail = await keysCommand('audit', '--json', '--store', url);
      assert.is(trail.status, 0, trail.stderr);
      assert.ok((JSON.parse(trail.stdout) as { action: string }[]).some((e) => e.action === 'key.revoke'), 'the trail is read back');
      // Many probe rounds later: nothing the ACL refused, no warning.
      const ready = await readyz(started.server.url);
      assert.is(ready.status, 200, ready.reply.text);
      assert.equal(ready.warnings, []);
      assert.not.ok(started.lines.some((line) => /NOPERM|warning:/.test(line)), started.lines.join('\n'));
    } finally {
      await started.close();
      await redis.close();
    }
  });

  acl(NAMES.cannotTell, async () => {
    const { redis, url } = await withAclUser([]);
    await createFreeKey(url, 'unsureco');
    const started = await bed.serve(url);
    try {
      const warnings = await untilWarnings(started.server.url, (w) => w.length > 0, 'the warning that it cannot tell');
      assert.match(warnings[0], `cannot tell whether Redis at 127.0.0.1:${redis.port}/1 keeps its data across a restart: AOF is off and it refused CONFIG GET save (NOPERM`);
      assert.is(started.lines.filter((line) => /^warning: cannot tell/.test(line)).length, 1, started.lines.join('\n'));
    } finally {
      await started.close();
      await redis.close();
    }
  });
}

persistence.run();
acl.run();
