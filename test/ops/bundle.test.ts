import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKey } from '../../src/keys/changes.ts';
import { get } from '../helpers/http.ts';
import { spawnServer } from '../helpers/process.ts';
import { buildFixture } from '../helpers/server.ts';
import { bundleCopy } from '../helpers/staged-bundle.ts';

const root = mkdtempSync(join(tmpdir(), 'bundle-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const outdir = join(root, 'dist');
const serverFile = join(outdir, 'server.mjs');
let snapshotDir = '';

/** A hang guard, not a performance bound: a server still running this long is stuck. */
const EXIT_GUARD_MS = 60_000;

/** Run the bundled server to its end; how long it lived in all, and after printing `marker` (its last words). */
function runToExit(args: string[], marker = 'cannot start:'): Promise<{ code: number | null; output: string; lifeMs: number; lingerMs: number }> {
  const spawned = performance.now();
  const child = spawn(process.execPath, [serverFile, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let saidAt = 0;
  const collect = (chunk: Buffer) => {
    output += chunk;
    if (!saidAt && output.includes(marker)) saidAt = performance.now();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const killer = setTimeout(() => {
    output += `\n[killed after ${EXIT_GUARD_MS / 1000} s: a hang guard]`;
    child.kill('SIGKILL');
  }, EXIT_GUARD_MS);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(killer);
      const exited = performance.now();
      resolve({ code, output, lifeMs: exited - spawned, lingerMs: saidAt ? exited - saidAt : Infinity });
    }),
  );
}

/**
 * How long the bundled server may live after saying it cannot start, on this machine now: the
 * whole life of a run that prints its usage (start, load the bundle, print, exit), measured just
 * before. Exiting at once takes a fraction of that; staying up for a timer, a watch or a grace
 * period (the journal's 1 s fsync, the 10 s shutdown grace) would not.
 */
async function lingerBound(): Promise<number> {
  const usage = await runToExit(['--help'], 'usage:');
  assert.is(usage.code, 0, usage.output);
  return usage.lifeMs;
}

function assertExitedAtOnce(run: { lingerMs: number }, usageLifeMs: number): void {
  assert.ok(run.lingerMs < usageLifeMs, `lived ${run.lingerMs.toFixed(0)} ms after the message; a whole run printing its usage took ${usageLifeMs.toFixed(0)} ms`);
}

const bundled = suite('the one-file bundle');

bundled.before(async () => {
  await bundleCopy(outdir);
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

bundled('should say as it starts that no key can use it, when its key store holds none', async () => {
  const server = await spawnServer(['--port', '0', '--snapshot', snapshotDir, '--state', join(root, 'state-empty')], [serverFile]);
  try {
    assert.match(server.output(), /warning: the key store in \S+state-empty holds no usable key \(none yet, or every one revoked\), so every keyed request is answered 401\. Make one with the keys command \(node dist\/keys\.mjs beside the bundle/);
  } finally {
    server.child.kill('SIGTERM');
    assert.is(await server.exited, 0);
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
    // The journal of a running server holds a lease of 100 (1% of the default Commercial quota) and notes the one answer.
    assert.is(JSON.parse(usage.stdout)[0].used, 1, 'usage reads the running server\'s journal');
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  assert.is(JSON.parse(keys('usage', '--json').stdout)[0].used, 1, 'a graceful stop records the exact count');
  const list = keys('list');
  assert.is(list.status, 0, list.stderr);
  assert.is(list.stdout.trim().split('\n').length, 2, 'a header and one line');
  assert.is(keys('--help').status, 0);
  const serverHelp = spawnSync(process.execPath, [serverFile, '--help'], { cwd: root, encoding: 'utf8' });
  assert.is(serverHelp.status, 0);
  assert.match(serverHelp.stdout, /^usage: node dist\/server\.mjs/);
});

bundled('should exit 1 at once, saying why, when its port is taken', async () => {
  const limit = await lingerBound();
  const taken: Server = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const { port } = taken.address() as { port: number };
  try {
    const run = await runToExit(['--port', String(port), '--snapshot', snapshotDir, '--state', join(root, 'state-taken')]);
    assert.is(run.code, 1, run.output);
    assert.match(run.output, /cannot start: listen EADDRINUSE/);
    assertExitedAtOnce(run, limit);
    assert.not.ok(existsSync(join(root, 'state-taken')), 'the state folder this start made is gone');
  } finally {
    taken.close();
  }
});

bundled('should exit 1 at once, saying why, when its host cannot be listened on', async () => {
  const limit = await lingerBound();
  for (const host of ['no-such-host.invalid', '192.0.2.1']) {
    const run = await runToExit(['--port', '0', '--host', host, '--snapshot', snapshotDir, '--state', join(root, 'state-host')]);
    assert.is(run.code, 1, run.output);
    assert.match(run.output, /cannot start: .*(ENOTFOUND|EAI_AGAIN|EADDRNOTAVAIL)/);
    assertExitedAtOnce(run, limit);
  }
});

bundled('should refuse to start with a clear message when there is no snapshot', async () => {
  const limit = await lingerBound();
  const run = await runToExit(['--port', '0', '--snapshot', join(root, 'none'), '--state', join(root, 'state-none')]);
  assert.is(run.code, 1);
  assert.match(run.output, /no snapshot at .*none\/current; build one with: npm run build/);
  assertExitedAtOnce(run, limit);
  assert.not.ok(existsSync(join(root, 'state-none')), 'the state folder this start made is gone');
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
