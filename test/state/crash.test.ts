import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKey } from '../../src/keys/changes.ts';
import { leaseSize } from '../../src/quota/window.ts';
import { run as keysCommand } from '../../scripts/keys.ts';
import { until } from '../helpers/wait.ts';
import { get } from '../helpers/http.ts';
import { spawnServer, type ServerProcess } from '../helpers/process.ts';
import { buildFixture } from '../helpers/server.ts';

const QUOTA = 20_000;
const CLIENTS = 8;
const PATH = '/api/v2/language/models/free';

const crash = suite('a stop under load: kill -9 charges at most a lease, SIGTERM is exact');

/** CLIENTS clients request until `stopWhen` says so, which calls `stop` once; returns how many were answered 200 before the server exited. */
async function hammer(server: ServerProcess, key: string, stopWhen: (answered: number) => boolean, stop: () => void): Promise<number> {
  let answered = 0;
  let stopped = false;
  const client = async () => {
    while (!stopped) {
      try {
        const reply = await get(server.url, PATH, key);
        if (reply.status === 200) answered++;
        else throw new Error(`answered ${reply.status}`);
      } catch {
        return; // connection cut by the stop
      }
      if (!stopped && stopWhen(answered)) {
        stopped = true;
        stop();
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  await server.exited;
  return answered;
}

/** What the state folder charges the key now: read by one request to a server stopped gracefully after it (exact). */
async function counted(args: string[], key: string): Promise<number> {
  const server = await spawnServer(args);
  const probe = await get(server.url, PATH, key);
  server.child.kill('SIGTERM');
  await server.exited;
  assert.is(probe.status, 200);
  return QUOTA - Number(probe.headers['x-ratelimit-remaining']) - 1;
}

crash('should charge every answer served, and at most one lease more, across repeated kill -9; exactly what was served after SIGTERM', async () => {
  const root = mkdtempSync(join(tmpdir(), 'crash-'));
  const { snapshotDir } = await buildFixture(root);
  const stateDir = join(root, 'state');
  const { key } = createKey(stateDir, { tier: 'commercial', org: 'crashco', user: 'c', quota: QUOTA });
  const args = ['--port', '0', '--snapshot', snapshotDir, '--state', stateDir];
  const lease = leaseSize(QUOTA);
  /** What the state folder charged before the round (the probe after the last round included). */
  let charged = 0;

  // Kills land at different points of a lease of 200: 150, 233, 316 answers into a round.
  for (const [round, signal] of (['SIGKILL', 'SIGKILL', 'SIGKILL', 'SIGTERM'] as const).entries()) {
    const server = await spawnServer(args);
    const served = await hammer(server, key, (answered) => answered >= 150 + round * 83, () => server.child.kill(signal));
    const now = await counted(args, key);
    const extra = now - charged - served;
    if (signal === 'SIGKILL') {
      assert.ok(extra >= 0, `round ${round}: ${now - charged} charged < ${served} served`);
      // A request whose answer the kill cut off in flight may be counted too: one per client.
      assert.ok(extra <= lease + CLIENTS, `round ${round}: ${extra} charged beyond the ${served} served (a lease is ${lease})`);
    } else {
      assert.is(now - charged, served, `round ${round}: a graceful stop records exactly what was served`);
    }
    charged = now + 1; // the probe
  }
  rmSync(root, { recursive: true, force: true });
});

/** What `keys usage --json` says the key's scope has used (the command beside the server, reading the state folder). */
function usedByKeysCommand(stateDir: string, scope: string): number {
  let out = '';
  const status = keysCommand(['usage', '--json', '--state', stateDir], { out: (text) => (out += text), err: () => {} });
  assert.is(status, 0);
  return (JSON.parse(out) as { kind: string; scope: string; used: number }[]).find((r) => r.kind === 'data' && r.scope === scope)!.used;
}

crash('should show in keys usage what the server answered, not its leases, while it runs and after kill -9; after a restart, what the new server counts', async () => {
  const root = mkdtempSync(join(tmpdir(), 'crash-usage-'));
  const { snapshotDir } = await buildFixture(root);
  const stateDir = join(root, 'state');
  const { key } = createKey(stateDir, { tier: 'commercial', org: 'usageco', user: 'u', quota: QUOTA });
  const args = ['--port', '0', '--snapshot', snapshotDir, '--state', stateDir];
  const scope = 'user:usageco/u';
  const server = await spawnServer(args);
  let remaining = QUOTA;
  for (let i = 0; i < 4; i++) remaining = Number((await get(server.url, PATH, key)).headers['x-ratelimit-remaining']);
  assert.is(remaining, QUOTA - 4);
  // The journal holds a lease of 200 for these 4; usage reads the answers, noted within a second.
  const seen: number[] = [];
  await until(() => seen[seen.push(usedByKeysCommand(stateDir, scope)) - 1] === QUOTA - remaining, () => `keys usage to say ${QUOTA - remaining} (it said ${seen.at(-1)})`);
  assert.ok(seen.every((used) => used >= 1 && used <= 4), `never above what the server answered: ${seen.join(', ')}`);
  server.child.kill('SIGKILL');
  await server.exited;
  assert.is(usedByKeysCommand(stateDir, scope), 4, 'after kill -9, the answers served');
  // A server starting now counts the whole lease (it cannot know what the kill cut); usage then says so too.
  const next = await spawnServer(args);
  const after = Number((await get(next.url, PATH, key)).headers['x-ratelimit-remaining']);
  assert.is(after, QUOTA - leaseSize(QUOTA) - 1);
  await until(() => usedByKeysCommand(stateDir, scope) === QUOTA - after, 'keys usage to follow the restarted server');
  next.child.kill('SIGTERM');
  await next.exited;
  assert.is(usedByKeysCommand(stateDir, scope), QUOTA - after, 'after a graceful stop, exactly');
  rmSync(root, { recursive: true, force: true });
});

crash.run();
