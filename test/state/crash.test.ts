import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKey } from '../../src/keys/changes.ts';
import { leaseSize } from '../../src/quota/window.ts';
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

crash.run();
