import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EMPTY_LOCK_GRACE_MS, holderRunning, startTimeOf, takePidLock } from '../../../../src/shared/pid-lock.ts';

const lock = suite('pid lock');

/** A pid no process has: past the kernel's largest (pid_max is at most 2^22). */
const NO_SUCH_PID = 2 ** 22 + 1;
const onLinux = process.platform === 'linux';

lock('should read when a process started, the same each time, and nothing for a process that is not there', () => {
  if (!onLinux) return console.log('skipped: /proc is Linux only');
  const started = startTimeOf(process.pid);
  assert.match(started ?? '', /^\d+$/);
  assert.is(startTimeOf(process.pid), started);
  assert.is(startTimeOf(NO_SUCH_PID), null);
});

lock('should take a holder for running only when its pid lives and, where the lock names it, started then', () => {
  assert.ok(holderRunning(String(process.pid)), 'a pid alone (a lock of an earlier version): alive is enough');
  assert.not.ok(holderRunning(String(NO_SUCH_PID)));
  assert.not.ok(holderRunning('not a pid'));
  if (!onLinux) return console.log('skipped the start times: /proc is Linux only');
  assert.ok(holderRunning(`${process.pid} ${startTimeOf(process.pid)}`));
  assert.not.ok(holderRunning(`${process.pid} 1`), 'the pid lives, but it is another process now');
});

lock('should write its start time into the lock, and refuse the lock to another taker while it holds it', () => {
  const folder = mkdtempSync(join(tmpdir(), 'pid-lock-'));
  try {
    const path = join(folder, 'x.lock');
    const release = takePidLock(path);
    assert.type(release, 'function');
    const text = readFileSync(path, 'utf8');
    assert.is(text, onLinux ? `${process.pid} ${startTimeOf(process.pid)}` : String(process.pid));
    assert.equal(takePidLock(path), { holder: String(process.pid) });
    (release as () => void)();
    writeFileSync(path, `${process.pid} 1`);
    const retaken = takePidLock(path);
    assert.type(retaken, onLinux ? 'function' : 'object');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

lock('should take over an empty lock once it is older than a taker needs to write its pid, and not before', () => {
  const folder = mkdtempSync(join(tmpdir(), 'pid-lock-'));
  try {
    const path = join(folder, 'x.lock');
    // What a taker that died between creating the file and writing its pid leaves.
    writeFileSync(path, '');
    const made = statSync(path).mtimeMs;
    // Its age is read against the clock given: the test's own, not how long the machine took.
    const at = (ms: number) => () => made + ms;
    assert.equal(takePidLock(path, 0o600, null, at(EMPTY_LOCK_GRACE_MS)), { holder: 'unknown' }, 'within the grace: perhaps a live taker about to write');
    assert.equal(takePidLock(path, 0o600, null, at(-EMPTY_LOCK_GRACE_MS)), { holder: 'unknown' });
    const release = takePidLock(path, 0o600, null, at(EMPTY_LOCK_GRACE_MS + 1));
    assert.type(release, 'function');
    assert.match(readFileSync(path, 'utf8'), new RegExp(`^${process.pid}( |$)`));
    (release as () => void)();
    // A clock stepped back (the lock's time far in the future) is no live taker either.
    writeFileSync(path, '');
    assert.type(takePidLock(path, 0o600, null, () => statSync(path).mtimeMs - EMPTY_LOCK_GRACE_MS - 1), 'function');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

lock.run();
