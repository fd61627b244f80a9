import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKey } from '../../src/keys/changes.ts';
import { keysPath } from '../../src/keys/record.ts';
import { EMPTY_LOCK_GRACE_MS } from '../../src/shared/pid-lock.ts';
import { SERVER_LOCK_FILE } from '../../src/state-store.ts';
import { run as keysCommand } from '../../scripts/keys.ts';
import { get } from '../helpers/http.ts';
import { spawnServer, stopProcess, type ServerProcess } from '../helpers/process.ts';
import { buildFixture } from '../helpers/server.ts';

const PATH = '/api/v2/language/models/free';

const lock = suite('one server a state folder');

const t = {} as { root: string; args: string[]; lockFile: string; key: string };

lock.before(async () => {
  t.root = mkdtempSync(join(tmpdir(), 'folder-lock-'));
  const { snapshotDir } = await buildFixture(t.root);
  const stateDir = join(t.root, 'state');
  t.key = createKey(stateDir, { tier: 'pro', org: 'lockco', user: 'l' }).key;
  t.args = ['--port', '0', '--snapshot', snapshotDir, '--state', stateDir, '--quiet'];
  t.lockFile = join(stateDir, SERVER_LOCK_FILE);
});

lock.after(() => rmSync(t.root, { recursive: true, force: true }));

/** The message of a server that did not start, or a failure when it did. */
async function refusal(args: string[]): Promise<string> {
  return spawnServer(args).then(
    async (server) => (await stopProcess(server.child), 'it started'),
    (error: Error) => error.message,
  );
}

/** The quota journals a process holds open that are no longer in any folder. */
function deletedJournals(server: ServerProcess): string[] {
  const fds = `/proc/${server.child.pid}/fd`;
  return readdirSync(fds)
    .map((fd) => {
      try {
        return readlinkSync(join(fds, fd));
      } catch {
        return '';
      }
    })
    .filter((target) => target.includes('quota.journal') && target.endsWith('(deleted)'));
}

lock('should refuse a second server on a held folder, naming the holder, and leave the first counting into its own journal', async () => {
  const first = await spawnServer(t.args);
  try {
    assert.is((await get(first.url, PATH, t.key)).status, 200);
    const message = await refusal(t.args);
    assert.match(message, /exited \(1\) before listening/);
    assert.ok(message.includes(`cannot start: state folder ${join(t.root, 'state')} is held by another server (pid ${first.child.pid})`), message);
    assert.ok(message.includes(`delete ${t.lockFile}`), message);
    // The refused start compacted nothing: the first server's journal is still the folder's.
    assert.equal(deletedJournals(first), []);
    const reply = await get(first.url, PATH, t.key);
    assert.is(reply.status, 200);
    assert.is(reply.headers['x-ratelimit-remaining'], String(500 - 2));
  } finally {
    await stopProcess(first.child);
  }
  assert.not.ok(existsSync(t.lockFile), 'a graceful stop lets the folder go');
  const next = await spawnServer(t.args);
  assert.is((await get(next.url, PATH, t.key)).headers['x-ratelimit-remaining'], String(500 - 3), 'the next server reads the counts the first wrote');
  await stopProcess(next.child);
});

lock('should take over the folder of a server killed with -9', async () => {
  const killed = await spawnServer(t.args);
  killed.child.kill('SIGKILL');
  await killed.exited;
  assert.ok(readFileSync(t.lockFile, 'utf8').startsWith(`${killed.child.pid} `), 'the dead server left its lock');
  const next = await spawnServer(t.args);
  assert.is((await get(next.url, PATH, t.key)).status, 200);
  assert.ok(readFileSync(t.lockFile, 'utf8').startsWith(`${next.child.pid} `));
  await stopProcess(next.child);
});

lock('should take over a lock naming a live pid that started at another time (a pid given to another process since)', async () => {
  // This test's own process is alive, but was not started at tick 1 since boot.
  writeFileSync(t.lockFile, `${process.pid} 1`, { mode: 0o600 });
  const next = await spawnServer(t.args);
  assert.is((await get(next.url, PATH, t.key)).status, 200);
  await stopProcess(next.child);
  assert.not.ok(existsSync(t.lockFile));
});

/** An empty lock file made `ago` milliseconds ago: what a crash between creating a lock and writing its pid leaves. */
function emptyLock(path: string, ago: number): void {
  writeFileSync(path, '', { mode: 0o600 });
  const then = (Date.now() - ago) / 1000;
  utimesSync(path, then, then);
}

lock('should take over an empty server lock and an empty keys lock that a crash left, so neither blocks for ever', async () => {
  emptyLock(t.lockFile, EMPTY_LOCK_GRACE_MS * 10);
  const next = await spawnServer(t.args);
  try {
    assert.is((await get(next.url, PATH, t.key)).status, 200);
    assert.ok(readFileSync(t.lockFile, 'utf8').startsWith(`${next.child.pid} `));
  } finally {
    await stopProcess(next.child);
  }
  const keysLock = `${keysPath(join(t.root, 'state'))}.lock`;
  emptyLock(keysLock, EMPTY_LOCK_GRACE_MS * 10);
  let said = '';
  const status = await keysCommand(['create', '--tier', 'free', '--org', 'afterco', '--state', join(t.root, 'state')], { out: (text) => (said += text), err: (text) => (said += text) });
  assert.is(status, 0, said);
  assert.not.ok(existsSync(keysLock), 'the command let its lock go');
});

lock.run();
