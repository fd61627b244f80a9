import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bundle } from '../../scripts/bundle.ts';
import { createKey } from '../../src/keys/changes.ts';
import { get } from '../helpers/http.ts';
import { spawnServer } from '../helpers/process.ts';
import { buildFixture } from '../helpers/server.ts';

const root = mkdtempSync(join(tmpdir(), 'bundle-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const outdir = join(root, 'dist');
const serverFile = join(outdir, 'server.mjs');
let snapshotDir = '';

/** Run the bundled server to its end; how long it lived after saying it cannot start. */
function runToExit(args: string[]): Promise<{ code: number | null; output: string; lingerMs: number }> {
  const child = spawn(process.execPath, [serverFile, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let refusedAt = 0;
  const collect = (chunk: Buffer) => {
    output += chunk;
    if (!refusedAt && output.includes('cannot start:')) refusedAt = performance.now();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, output, lingerMs: refusedAt ? performance.now() - refusedAt : Infinity });
    }),
  );
}

const bundled = suite('the one-file bundle');

bundled.before(async () => {
  await bundle(outdir);
  ({ snapshotDir } = await buildFixture(root));
});

bundled('should run dist/server.mjs with plain node and answer 200', async () => {
  assert.ok(statSync(serverFile).size > 10_000);
  const stateDir = join(root, 'state');
  const { key } = createKey(stateDir, { tier: 'pro', org: 'bundle', user: 'b' });
  // Run from a folder with no node_modules: the bundle must carry its dependencies.
  const server = await spawnServer(['--port', '0', '--snapshot', snapshotDir, '--state', stateDir], [serverFile]);
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const reply = await get(server.url, '/api/v2/language/models', key);
    assert.is(reply.status, 200);
    assert.is(reply.json().tier, 'pro');
  } finally {
    server.child.kill('SIGTERM');
    assert.is(await server.exited, 0, 'a graceful shutdown exits 0');
  }
});

bundled('should run dist/keys.mjs with plain node: create a key the bundled server accepts, list and usage', async () => {
  const stateDir = join(root, 'state-keys');
  const keys = (...args: string[]) => spawnSync(process.execPath, [join(outdir, 'keys.mjs'), ...args, '--state', stateDir], { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH } });
  const made = keys('create', '--tier', 'commercial', '--org', 'bundle', '--grant', 'capstan-serve', '--snapshot', snapshotDir);
  assert.is(made.status, 0, made.stderr);
  const key = made.stdout.trim();
  assert.match(key, /^bdk_\S{43}$/);
  assert.is(keys('grant', 'key_000000000000', 'capstan-serve').status, 1, 'an unknown id is refused');
  const server = await spawnServer(['--port', '0', '--snapshot', snapshotDir, '--state', stateDir], [serverFile]);
  try {
    assert.is((await get(server.url, '/api/v2/language/providers/capstan-serve/measurements', key)).status, 200);
    const usage = keys('usage', '--json');
    assert.is(usage.status, 0, usage.stderr);
    assert.is(JSON.parse(usage.stdout)[0].used, 1, 'usage reads the running server\'s journal');
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  const list = keys('list');
  assert.is(list.status, 0, list.stderr);
  assert.is(list.stdout.trim().split('\n').length, 2, 'a header and one line');
  assert.is(keys('--help').status, 0);
  const serverHelp = spawnSync(process.execPath, [serverFile, '--help'], { cwd: root, encoding: 'utf8' });
  assert.is(serverHelp.status, 0);
  assert.match(serverHelp.stdout, /^usage: node dist\/server\.mjs/);
});

bundled('should exit 1 within a second, saying why, when its port is taken', async () => {
  const taken: Server = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const { port } = taken.address() as { port: number };
  try {
    const run = await runToExit(['--port', String(port), '--snapshot', snapshotDir, '--state', join(root, 'state-taken')]);
    assert.is(run.code, 1, run.output);
    assert.match(run.output, /cannot start: listen EADDRINUSE/);
    assert.ok(run.lingerMs < 1000, `lived ${run.lingerMs.toFixed(0)} ms after the message`);
  } finally {
    taken.close();
  }
});

bundled('should exit 1 within a second, saying why, when its host cannot be listened on', async () => {
  for (const host of ['no-such-host.invalid', '192.0.2.1']) {
    const run = await runToExit(['--port', '0', '--host', host, '--snapshot', snapshotDir, '--state', join(root, 'state-host')]);
    assert.is(run.code, 1, run.output);
    assert.match(run.output, /cannot start: .*(ENOTFOUND|EAI_AGAIN|EADDRNOTAVAIL)/);
    assert.ok(run.lingerMs < 1000, `lived ${run.lingerMs.toFixed(0)} ms after the message`);
  }
});

bundled('should refuse to start with a clear message when there is no snapshot', async () => {
  const run = await runToExit(['--port', '0', '--snapshot', join(root, 'none'), '--state', join(root, 'state-none')]);
  assert.is(run.code, 1);
  assert.match(run.output, /no snapshot at .*none\/current; build one with: npm run build/);
  assert.ok(run.lingerMs < 1000, `lived ${run.lingerMs.toFixed(0)} ms after the message`);
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
