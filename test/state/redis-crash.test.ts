/**
 * kill -9 of either of two server processes sharing one Redis loses no counted request: every
 * 200 was counted in Redis before it was sent, so the count is never below the 200s answered,
 * and above them only by requests the kill cut in flight.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { get, request } from '../helpers/http.ts';
import { spawnServer, stopProcess, type ServerProcess } from '../helpers/process.ts';
import { keysCommand, REDIS_INSTALLED, skipWithoutRedis, startRedis } from '../helpers/redis.ts';
import { buildFixture } from '../helpers/server.ts';

const FREE_LIST = '/api/v2/language/models/free';
const NAME = 'should count every 200 in Redis whichever of two servers is killed with SIGKILL under load';
const crash = suite('kill -9 of a server sharing Redis');

if (!REDIS_INSTALLED) skipWithoutRedis(crash, [NAME]);
else {
  crash(NAME, async () => {
    const root = mkdtempSync(join(tmpdir(), 'redis-crash-'));
    const [redis, { snapshotDir }] = await Promise.all([startRedis(), buildFixture(root)]);
    const args = ['--port', '0', '--snapshot', snapshotDir, '--state', join(root, 'state'), '--store', redis.url, '--quiet'];
    const servers: ServerProcess[] = [];
    try {
      const made = await keysCommand('create', '--tier', 'commercial', '--org', 'crashco', '--quota', '100000', '--json', '--store', redis.url);
      assert.is(made.status, 0, made.stderr);
      const { key } = JSON.parse(made.stdout) as { key: string };
      servers.push(...(await Promise.all([spawnServer(args), spawnServer(args)])));
      let answered = 0;
      let cut = 0;
      for (const victim of [0, 1]) {
        let killed = false;
        let roundAnswered = 0;
        // Eight clients per server; those of the victim stop when the kill cuts them.
        const clients = servers.flatMap((server, s) =>
          Array.from({ length: 8 }, async () => {
            while (!killed || s !== victim) {
              if (killed && roundAnswered > 200) return;
              try {
                const reply = await get(server.url, FREE_LIST, key);
                assert.is(reply.status, 200, reply.text);
                answered++;
                roundAnswered++;
              } catch {
                cut++;
                return;
              }
            }
          }),
        );
        while (roundAnswered < 80) await new Promise((r) => setTimeout(r, 1));
        servers[victim].child.kill('SIGKILL');
        killed = true;
        await Promise.all(clients);
        await servers[victim].exited;
        servers[victim] = await spawnServer(args);
      }
      const head = await request(servers[0].url, FREE_LIST, { method: 'HEAD', headers: { 'x-api-key': key } });
      const counted = 100000 - Number(head.headers['x-ratelimit-remaining']);
      assert.ok(counted >= answered, `${counted} counted < ${answered} answered 200`);
      assert.ok(counted - answered <= cut, `${counted - answered} more counted than the ${cut} requests the kills cut`);
      assert.is((await get(servers[1].url, '/readyz')).status, 200);
    } finally {
      await Promise.all(servers.map((s) => stopProcess(s.child, 'SIGKILL')));
      await redis.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
}

crash.run();
