import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKey } from '../../src/keys/changes.ts';
import { get } from '../helpers/http.ts';
import { spawnServer } from '../helpers/process.ts';
import { buildFixture } from '../helpers/server.ts';

const crash = suite('kill -9 loses no counted request');

crash('should still count every request answered 200 after kill -9 mid-stream', async () => {
  const root = mkdtempSync(join(tmpdir(), 'crash-'));
  const { snapshotDir } = await buildFixture(root);
  const stateDir = join(root, 'state');
  const { key } = createKey(stateDir, { tier: 'pro', org: 'crashco', user: 'c' });
  const args = ['--port', '0', '--snapshot', snapshotDir, '--state', stateDir];
  const totals = { answered: 0 };

  for (let round = 0; round < 3; round++) {
    const server = await spawnServer(args);
    let answered200 = 0;
    let killed = false;
    // Eight clients hammer the server; it is killed while requests are in flight.
    const client = async () => {
      while (!killed) {
        try {
          const reply = await get(server.url, '/api/v2/language/models/free', key);
          if (reply.status === 200) answered200++;
        } catch {
          return; // connection cut by the kill
        }
      }
    };
    const clients = Array.from({ length: 8 }, client);
    while (answered200 < 40 + round * 7) await new Promise((r) => setTimeout(r, 1));
    server.child.kill('SIGKILL');
    killed = true;
    await Promise.all(clients);
    await server.exited;

    const restarted = await spawnServer(args);
    const probe = await get(restarted.url, '/api/v2/language/models/free', key);
    restarted.child.kill('SIGKILL');
    await restarted.exited;
    const remainingBeforeProbe = Number(probe.headers['x-ratelimit-remaining']) + 1;
    const usedBefore = 500 - remainingBeforeProbe;
    // Everything answered 200 in earlier rounds (and their probes) is counted too.
    totals.answered += answered200;
    assert.ok(usedBefore >= totals.answered, `round ${round}: ${usedBefore} counted < ${totals.answered} answered 200`);
    // The journal may hold a request whose response the kill cut off, never one too few.
    assert.ok(usedBefore - totals.answered <= 8, `round ${round}: ${usedBefore - totals.answered} more counted than answered (at most one per client in flight)`);
    totals.answered += 1; // the probe
  }
  rmSync(root, { recursive: true, force: true });
});

crash.run();
