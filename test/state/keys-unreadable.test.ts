/**
 * A key file the server cannot read, as it happens: the server runs as its own user (as root
 * here: nobody; otherwise the test's own user), a revocation rewrites `keys.json` so that user
 * can no longer read it (as an older keys command run as root did: root:root 0600; without root:
 * chmod 000), and the server must neither answer the revoked key from the keys it had, nor go on
 * as if ready. The server and the keys command run as processes.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKey } from '../../src/keys/changes.ts';
import { loadKeys } from '../../src/keys/file-read.ts';
import { get, type Reply } from '../helpers/http.ts';
import { ROOT, spawnServer, START_GUARD_MS, stopProcess, type ServerProcess } from '../helpers/process.ts';
import { buildFixture } from '../helpers/server.ts';
import { cannotRun, stagedBundle } from '../helpers/staged-bundle.ts';
import { otherUser } from '../helpers/users.ts';
import { until } from '../helpers/wait.ts';

const other = otherUser();
/**
 * The server and the keys command run bundled (dist/server.mjs, dist/keys.mjs), staged where the
 * other user can read them: it may not reach the checkout or its node_modules (a clone in a 0700
 * folder).
 */
const staged = await stagedBundle();
/** Why the other user cannot run the staged bundle (a private temporary folder): the tests are skipped, saying so. */
const cannot = other ? cannotRun(staged, other) : null;
const PAGE = '/api/v2/language/models/free';

/** Removed at exit too, so a failed assertion leaves nothing behind (root removes any owner's files). */
const root = mkdtempSync(join(tmpdir(), 'keys-unreadable-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
chmodSync(root, 0o755); // the server's user must reach the snapshot and the state folder
const { snapshotDir } = await buildFixture(root);
const state = join(root, 'state');
const file = join(state, 'keys.json');
mkdirSync(state, { mode: 0o700 });
if (other) chownSync(state, other.uid, other.gid);

// Made in-process as the test's user: as root, the keys command gives keys.json to the folder's owner.
const keys = Object.fromEntries(['alice', 'bob', 'carol', 'dave'].map((user) => [user, createKey(state, { tier: 'free', org: 'acme', user })]));

/** The keys command as a process, as the test's user (root when `other` is set). */
function keysCommand(...args: string[]) {
  const child = spawnSync(process.execPath, [staged.keys, ...args, '--state', state], { cwd: ROOT, encoding: 'utf8' });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

/** Revoke a key the way an older keys command run as root did: rewrite keys.json as a file the server's user cannot read. */
function revokeUnreadably(user: string): void {
  const revokedAt = new Date().toISOString();
  const records = loadKeys(state)!.map((k) => (k.id === keys[user].record.id ? { ...k, revoked_at: revokedAt } : k));
  const tmp = join(state, '.keys.json.old-tool.tmp');
  writeFileSync(tmp, JSON.stringify({ format: 1, keys: records }, null, 2), { mode: 0o600 }); // root:root 0600 when root; format 1, as older versions wrote
  if (!other) chmodSync(tmp, 0o000);
  renameSync(tmp, file);
}

/** What the operator does to fix it: give the file back to the server's user. */
function giveBack(): void {
  if (other) chownSync(file, other.uid, other.gid);
  else chmodSync(file, 0o600);
}

function start(grace: number): Promise<ServerProcess> {
  return spawnServer(['--port', '0', '--snapshot', snapshotDir, '--state', state, '--keys-grace', String(grace), '--quiet'], [staged.server], START_GUARD_MS, other?.runAs);
}

const lines = (server: ServerProcess, pattern: RegExp) => server.output().split('\n').filter((line) => pattern.test(line));
const who = other ? `${other.name} (uid ${other.uid})` : `this test's user`;

const unreadableSuite = suite(`a key file the server (running as ${who}) cannot read`);
const unreadable = (name: string, test: () => Promise<void>) =>
  cannot ? unreadableSuite.skip(`${name} (skipped: ${cannot})`, () => {}) : unreadableSuite(name, test);
if (cannot) console.log(`skipped: the server runs as another user, and ${cannot}`);

unreadable('should keep serving after a revocation by the keys command run as root, the revoked key refused at once', async () => {
  const server = await start(1);
  try {
    assert.is((await get(server.url, PAGE, keys.alice.key)).status, 200);
    const revoked = keysCommand('revoke', keys.alice.record.id);
    assert.is(revoked.status, 0, revoked.stderr);
    if (other) assert.equal([statSync(file).uid, statSync(file).gid], [other.uid, other.gid], 'keys.json is still the server user\'s');
    assert.is((await get(server.url, PAGE, keys.alice.key)).status, 401);
    assert.is((await get(server.url, PAGE, keys.bob.key)).status, 200);
    assert.is((await get(server.url, '/readyz')).status, 200);
  } finally {
    await stopProcess(server.child);
  }
});

unreadable('should say so in /readyz at once, never answer from the keys before, answer 503 past the grace, and recover by itself once the file is given back', async () => {
  const server = await start(1);
  try {
    assert.is((await get(server.url, PAGE, keys.bob.key)).status, 200);
    revokeUnreadably('bob');

    const ready = await get(server.url, '/readyz');
    assert.is(ready.status, 503, 'not ready from the first request after the change');
    const reason: string = ready.json().details.reason;
    assert.ok(reason.includes(`cannot read ${file}: EACCES`), reason);
    if (other) assert.ok(reason.includes(`${file} is owned by root (uid 0) with mode 0600, and this process runs as ${other.name} (uid ${other.uid})`), reason);

    // Bob's key was revoked in the version the server cannot read; carol's was not touched. Neither
    // is answered from the keys the server had: they wait out the grace, then are refused.
    const answers: Reply[] = await Promise.all([get(server.url, PAGE, keys.bob.key), get(server.url, PAGE, keys.carol.key)]);
    for (const answer of answers) {
      assert.is(answer.status, 503, answer.text);
      assert.match(answer.json().error, /API keys cannot be checked right now/);
      assert.is(answer.headers['retry-after'], '5');
    }
    // Past the grace, every keyed request is refused at once; public routes still answer.
    for (let i = 0; i < 20; i++) assert.is((await get(server.url, PAGE, keys.carol.key)).status, 503);
    assert.is((await get(server.url, '/healthz')).status, 200);
    assert.is((await get(server.url, '/readyz')).status, 503);

    giveBack();
    await until(async () => (await get(server.url, '/readyz')).status === 200, 'ready again once keys.json is given back');
    assert.is((await get(server.url, PAGE, keys.bob.key)).status, 401, 'the revocation in the file is honoured');
    assert.is((await get(server.url, PAGE, keys.carol.key)).status, 200);

    const begun = lines(server, /not ready: keys: /);
    const ended = lines(server, /no longer: keys: /);
    assert.is(begun.length, 1, server.output());
    assert.is(ended.length, 1, server.output());
    assert.not.match(server.output(), /still using the last good keys/);
    assert.match(begun[0], /keyed requests wait up to 1 s for it to be read, then are answered 503 until it is/);
  } finally {
    await stopProcess(server.child);
  }
});

unreadable('should refuse to start naming the owner, then hold a keyed request until the file reads and answer it from the file', async () => {
  revokeUnreadably('carol');
  const refused = spawnServer(['--port', '0', '--snapshot', snapshotDir, '--state', state, '--quiet'], [staged.server], START_GUARD_MS, other?.runAs);
  const failure = await refused.then(
    async (server) => (await stopProcess(server.child), 'it started'),
    (error: Error) => error.message,
  );
  assert.match(failure, /exited \(1\) before listening/);
  assert.ok(failure.includes(`cannot start: cannot read ${file}: EACCES`), failure);
  if (other) assert.ok(failure.includes('is owned by root (uid 0) with mode 0600'), failure);
  assert.match(failure, /run the keys command as that user/);

  giveBack();
  const server = await start(3600); // a grace longer than the test: the held request can only end when the file reads
  try {
    assert.is((await get(server.url, PAGE, keys.dave.key)).status, 200);
    revokeUnreadably('dave');
    assert.is((await get(server.url, '/readyz')).status, 503);
    let answered = false;
    const held = get(server.url, PAGE, keys.dave.key).then((reply) => ((answered = true), reply));
    // Another round trip after the held request was sent: the server is answering, the held one is not answered.
    assert.is((await get(server.url, '/readyz')).status, 503);
    assert.is((await get(server.url, '/healthz')).status, 200);
    assert.not.ok(answered, 'held while the file cannot be read, not answered from the keys before it');
    giveBack();
    assert.is((await held).status, 401, 'answered from the file once it reads: dave\'s key is revoked there');
    await until(async () => (await get(server.url, '/readyz')).status === 200, 'ready again');
  } finally {
    await stopProcess(server.child);
  }
});

unreadableSuite.run();
