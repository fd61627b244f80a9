/**
 * On Redis, a server's admin listener holds every key and follows the changes (src/keys/redis-mirror.ts):
 * its table reads every key once (HSCAN), then only the changes since (XREVRANGE, HMGET), and
 * shows every change made anywhere (through the other server's admin API, by the keys command)
 * at its next page. What it reads is counted by Redis itself (INFO commandstats). It reads every
 * key again when the changes cannot say what changed: the stream trimmed past them, or Redis
 * emptied (FLUSHALL) and given other keys. A change reads the keys it touches, not every key (no HVALS).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS } from '../../src/config.ts';
import { CHANGES } from '../../src/keys/redis-scripts.ts';
import { RedisClient } from '../../src/redis/client.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import { request, type Reply } from '../helpers/http.ts';
import { keysCommand, REDIS_INSTALLED, skipWithoutRedis, startRedis } from '../helpers/redis.ts';
import { buildFixture } from '../helpers/server.ts';

const test = suite('the admin table on Redis');
const root = mkdtempSync(join(tmpdir(), 'redis-admin-table-'));
test.after(() => rmSync(root, { recursive: true, force: true }));

async function keys(where: string[], ...args: string[]): Promise<string> {
  const done = await keysCommand(...args, ...where);
  assert.is(done.status, 0, done.stderr);
  return done.stdout;
}

/** How many times Redis has run each command so far (INFO commandstats), by lower-case name. */
async function commandCalls(client: RedisClient): Promise<Map<string, number>> {
  const info = String(await client.send(['INFO', 'commandstats']));
  return new Map([...info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
}

/** The commands run between two counts, and how many times each. */
function ran(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const runs: Record<string, number> = {};
  for (const [name, calls] of after) if (calls > (before.get(name) ?? 0)) runs[name] = calls - (before.get(name) ?? 0);
  return runs;
}

if (REDIS_INSTALLED) {
  test('a page reads the changes since the last, and every change made anywhere shows at the next', async () => {
    const { snapshotDir } = await buildFixture(root);
    const redis = await startRedis();
    const where = ['--store', redis.url];
    const client = new RedisClient({ address: redis.address });
    const servers: RunningServer[] = [];
    try {
      await client.started();
      const { token } = JSON.parse(await keys(where, 'admin-token', 'create', '--name', 'ops', '--json'));
      for (let i = 0; i < 30; i++) await keys(where, 'create', '--tier', 'free', '--org', `org${i % 3}`, '--user', `u${i}`);
      for (const name of ['a', 'b'])
        servers.push(
          await startServer(
            { ...DEFAULT_OPTIONS, port: 0, adminPort: 0, snapshotDir, stateDir: join(root, name), store: redis.address, quiet: true },
            { log: () => {}, logError: () => {}, redisProbeMs: 3_600_000 },
          ),
        );
      const [a, b] = servers as [RunningServer, RunningServer];
      const call = (server: RunningServer, method: string, path: string, body?: unknown): Promise<Reply> =>
        request(server.admin!.url, `/admin/api${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
      const page = async (query = 'per_page=500&sort=created') => {
        const reply = await call(b, 'GET', `/keys?${query}`);
        assert.is(reply.status, 200, reply.text);
        return reply.json() as { data: { id: string; org: string; state: string; name: string | null }[]; pagination: { total: number } };
      };

      let before = await commandCalls(client);
      assert.is((await page()).pagination.total, 30);
      let runs = ran(before, await commandCalls(client));
      assert.ok(runs.hscan! >= 1, `the first page reads every key a step at a time: ${JSON.stringify(runs)}`);

      // Through A's admin API and by the keys command: B's next page has them, reading the changes alone.
      const created = await call(a, 'POST', '/keys', { tier: 'pro', org: 'shared', user: 'sam', name: 'nightly' });
      assert.is(created.status, 201, created.text);
      const id = created.json().record.id as string;
      await keys(where, 'revoke', JSON.parse(await keys(where, 'list', '--json'))[0].id);
      before = await commandCalls(client);
      let shown = await page();
      runs = ran(before, await commandCalls(client));
      assert.is(shown.pagination.total, 31);
      assert.is(shown.data.find((k) => k.id === id)?.name, 'nightly');
      assert.is(shown.data.filter((k) => k.state === 'revoked').length, 1);
      assert.not.ok(runs.hscan || runs.hvals, `a later page reads no key but those changed: ${JSON.stringify(runs)}`);
      assert.ok(runs.hmget >= 1 && runs.xrevrange >= 1, JSON.stringify(runs));

      // A change through B's own API reads the key it changes, not every key; its page shows it at once.
      before = await commandCalls(client);
      assert.is((await call(b, 'PUT', `/keys/${id}/name`, { name: 'weekly' })).status, 200);
      assert.not.ok(ran(before, await commandCalls(client)).hvals, 'a change reads no list of every key');
      assert.is((await page('q=weekly')).data[0]?.id, id);
      // An org's keys, for a key's page, from the same keys held.
      assert.equal((await call(b, 'GET', '/keys?org=shared')).json().data.map((k: { id: string }) => k.id), [id]);

      // The stream trimmed past a change B has not read: the changes cannot say what changed, so B reads every key again.
      await keys(where, 'rename', id, 'trimmed');
      await client.send(['XTRIM', CHANGES, 'MAXLEN', 0]);
      await keys(where, 'create', '--tier', 'free', '--org', 'late', '--user', 'lou');
      before = await commandCalls(client);
      shown = await page();
      assert.ok(ran(before, await commandCalls(client)).hscan! >= 1, 'read whole after a gap');
      assert.is(shown.pagination.total, 32);
      assert.is(shown.data.find((k) => k.id === id)?.name, 'trimmed');
      assert.ok(shown.data.some((k) => k.org === 'late'));

      // Redis emptied and given other keys (its marker is new): read whole, none of the old keys shown.
      await client.send(['FLUSHALL']);
      const again = JSON.parse(await keys(where, 'admin-token', 'create', '--name', 'ops', '--json')).token as string;
      await keys(where, 'create', '--tier', 'free', '--org', 'fresh', '--user', 'fay');
      const afterReset = await request(b.admin!.url, '/admin/api/keys?per_page=500', { headers: { authorization: `Bearer ${again}` } });
      assert.equal(afterReset.json().data.map((k: { org: string }) => k.org), ['fresh']);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
      client.close();
      await redis.close();
    }
  });
} else skipWithoutRedis(test, ['a page reads the changes since the last, and every change made anywhere shows at the next']);

test.run();
