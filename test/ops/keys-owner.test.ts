/**
 * The keys command keeps the key store's owner and mode, run as a process as an operator runs
 * it: as root on a store another user owns (the server's, as under the systemd unit), it gives
 * what it writes back to that user; as a user who could not, it refuses before changing anything
 * and says who to run it as. Needs root (to own files as another user); skipped otherwise.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKey } from '../../src/keys/changes.ts';
import { FileKeys } from '../../src/keys/file-keys.ts';
import { cannotRun, stagedBundle } from '../helpers/staged-bundle.ts';
import { otherUser, skipWithout } from '../helpers/users.ts';

const other = otherUser();
/**
 * The keys command as an operator runs it beside the bundled server (node dist/keys.mjs), staged
 * where the other user can read it: that user may not reach the checkout or its node_modules.
 */
const staged = other ? await stagedBundle() : null;
const cannot = other && staged ? cannotRun(staged, other) : null;

/** Removed at exit too, so a failed assertion leaves nothing behind (root removes any owner's files). */
const tempRoots: string[] = [];
process.on('exit', () => tempRoots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** A state folder owned by `owner` (uid, gid), with one key in it, in a folder every user may pass through. */
function store(owner: { uid: number; gid: number }) {
  const root = mkdtempSync(join(tmpdir(), 'keys-owner-'));
  tempRoots.push(root);
  chmodSync(root, 0o755);
  const state = join(root, 'state');
  const file = join(state, 'keys.json');
  mkdirSync(state, { mode: 0o700 });
  chownSync(state, owner.uid, owner.gid);
  const first = createKey(state, { tier: 'pro', org: 'acme', user: 'ana' });
  /** The keys command as a process, as this test's user or (with runAs) another. */
  const keys = (runAs: readonly string[], ...args: string[]) => {
    const [command, ...before] = [...runAs, process.execPath];
    const child = spawnSync(command, [...before, staged!.keys, ...args, '--state', state], { cwd: staged!.dir, encoding: 'utf8' });
    return { status: child.status, stdout: child.stdout, stderr: child.stderr };
  };
  return { state, file, first, keys };
}

const NAMES = {
  root: 'should, run as root, give keys.json and its lock back to the store\'s owner with the mode it had',
  refuse: 'should, run as a user who cannot give the store\'s files their owner, refuse before changing anything, naming the user to run it as',
} as const;

const owner = suite('the keys command and the store\'s owner');

if (!other) skipWithout(owner, Object.values(NAMES), 'the keys command\'s owner checks need root, to own files as another user (setpriv and the user nobody)');
else if (cannot) skipWithout(owner, Object.values(NAMES), `the keys command's owner checks run it as another user, and ${cannot}`);
else {
  owner(NAMES.root, () => {
    const s = store(other);
    const made = statSync(s.file);
    assert.equal([made.uid, made.gid, made.mode & 0o777], [other.uid, other.gid, 0o600], 'the first key, made in-process as root, is the folder owner\'s');
    chmodSync(s.file, 0o640); // an operator's choice of mode, kept too

    const created = s.keys([], 'create', '--tier', 'free', '--org', 'acme', '--json');
    assert.is(created.status, 0, created.stderr);
    const revoked = s.keys([], 'revoke', s.first.record.id);
    assert.is(revoked.status, 0, revoked.stderr);
    const after = statSync(s.file);
    assert.equal([after.uid, after.gid, after.mode & 0o777], [other.uid, other.gid, 0o640]);
    assert.equal(readdirSync(s.state), ['audit.log', 'keys.json'], 'no lock or temporary file left behind');
    const audit = statSync(join(s.state, 'audit.log'));
    assert.equal([audit.uid, audit.gid, audit.mode & 0o777], [other.uid, other.gid, 0o600], "the audit trail of root's changes is the owner's too");
    assert.equal([statSync(s.state).uid, statSync(s.state).gid], [other.uid, other.gid]);

    // The owner reads what root wrote, and may change it itself.
    const listed = s.keys(other.runAs, 'list', '--json');
    assert.is(listed.status, 0, listed.stderr);
    assert.is(JSON.parse(listed.stdout).length, 2);
    const own = s.keys(other.runAs, 'critpt', JSON.parse(created.stdout).id, 'on');
    assert.is(own.status, 0, own.stderr);
    assert.equal([statSync(s.file).uid, statSync(s.file).mode & 0o777], [other.uid, 0o640]);
  });

  owner(NAMES.refuse, () => {
    const s = store({ uid: 0, gid: 0 });
    const before = readFileSync(s.file);
    for (const args of [['revoke', s.first.record.id], ['create', '--tier', 'free', '--org', 'acme']]) {
      const run = s.keys(other.runAs, ...args);
      assert.is(run.status, 1, run.stderr);
      assert.is(run.stdout, '');
      assert.ok(run.stderr.startsWith(`keys: the key store in ${s.state} belongs to root (uid 0), and this keys command runs as ${other.name} (uid ${other.uid})`), run.stderr);
      assert.match(run.stderr, /nothing was changed/);
      assert.match(run.stderr, /Run the keys command as root: runuser -u root -- <the same command>, or sudo -u root <the same command>/);
    }
    assert.ok(readFileSync(s.file).equals(before), 'keys.json is as it was');
    assert.equal(readdirSync(s.state), ['keys.json'], 'no lock or temporary file made');
    assert.ok(FileKeys.open(s.state).lookup(s.first.key), 'the key still works');
  });
}

owner.run();
