import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bundle } from '../scripts/bundle.ts';
import { createKey } from '../src/keys.ts';
import { get } from './helpers/http.ts';
import { spawnServer } from './helpers/process.ts';
import { buildFixture } from './helpers/server.ts';

const bundled = suite('the one-file bundle');

bundled('should run dist/server.mjs with plain node and answer 200', async () => {
  const root = mkdtempSync(join(tmpdir(), 'bundle-'));
  const outfile = join(root, 'server.mjs');
  await bundle(outfile);
  assert.ok(statSync(outfile).size > 10_000);
  const { snapshotDir } = await buildFixture(root);
  const stateDir = join(root, 'state');
  const { key } = createKey(stateDir, { tier: 'pro', org: 'bundle', user: 'b' });
  // Run from a folder with no node_modules: the bundle must carry its dependencies.
  const server = await spawnServer(['--port', '0', '--snapshot', snapshotDir, '--state', stateDir], [outfile]);
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const reply = await get(server.url, '/api/v2/language/models', key);
    assert.is(reply.status, 200);
    assert.is(reply.json().tier, 'pro');
  } finally {
    server.child.kill('SIGTERM');
    assert.is(await server.exited, 0, 'a graceful shutdown exits 0');
    rmSync(root, { recursive: true, force: true });
  }
});

bundled('should refuse to start with a clear message when there is no snapshot', async () => {
  const root = mkdtempSync(join(tmpdir(), 'bundle-'));
  try {
    await spawnServer(['--port', '0', '--snapshot', join(root, 'none'), '--state', join(root, 'state')]);
    assert.unreachable('should not start');
  } catch (error) {
    assert.match((error as Error).message, /exited \(1\)/);
    assert.match((error as Error).message, /no snapshot at .*none\/current; build one with: npm run build/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

bundled('should reject a bad flag with exit 2 and the usage', async () => {
  try {
    await spawnServer(['--port', 'eighty']);
    assert.unreachable('should not start');
  } catch (error) {
    assert.match((error as Error).message, /exited \(2\)/);
    assert.match((error as Error).message, /--port must be an integer from 0 to 65535/);
    assert.match((error as Error).message, /usage: node dist\/server\.mjs/);
  }
});

bundled.run();
