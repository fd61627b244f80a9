/**
 * The key store's lock, `keys.json.lock` (a pid lock, src/shared/pid-lock.ts): a change reads,
 * modifies and writes the store, and the lock keeps two changes (keys commands, a server's admin
 * listener) from losing each other's. Whose the files are is settled first: a user who could not
 * keep the store's owner is refused before anything is made or changed (store-owner.ts); the
 * change is told what the files it writes keep.
 */
import { performance } from 'node:perf_hooks';
import { takePidLock } from '../shared/pid-lock.ts';
import { ensurePrivateDir, PRIVATE_FILE_MODE, type Keep } from '../shared/state-files.ts';
import { KeyStoreError, keysPath } from './record.ts';
import { keepForWrites } from './store-owner.ts';

const LOCK_WAIT_MS = 5000;
const LOCK_RETRY_MS = 20;

/** Another change holds the store's lock: worth another try a moment later. */
export class StoreLocked extends KeyStoreError {}

/**
 * Take the lock once: its release and what written files keep, or a try to make again later
 * (`retry` says who holds it).
 */
function tryLock(stateDir: string): { release: () => void; keep: Keep } | { retry: () => StoreLocked } {
  const keep = keepForWrites(stateDir);
  ensurePrivateDir(stateDir);
  const lock = `${keysPath(stateDir)}.lock`;
  const taken = takePidLock(lock, PRIVATE_FILE_MODE, keep.owner);
  if (typeof taken === 'function') return { release: taken, keep };
  return {
    retry: () =>
      new StoreLocked(`${lock} is held by another keys command (pid ${taken.holder}); if none is running, delete it`),
  };
}

/**
 * Run `change` under the lock, waiting for it up to `waitMs` (the keys command: it blocks, as
 * nothing else runs in its process).
 */
export function withStoreLock<T>(stateDir: string, change: (keep: Keep) => T, waitMs = LOCK_WAIT_MS): T {
  const deadline = performance.now() + waitMs;
  for (;;) {
    const taken = tryLock(stateDir);
    if ('release' in taken) {
      try {
        return change(taken.keep);
      } finally {
        taken.release();
      }
    }
    if (performance.now() >= deadline) throw taken.retry();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, LOCK_RETRY_MS);
  }
}

/**
 * The changes of this process waiting for a store's lock, by state folder: one after the other,
 * each when the one before has let go.
 */
const queues = new Map<string, Promise<unknown>>();

/**
 * The same for a server, whose change may take turns of the event loop (file-change.ts): the
 * lock held by a keys command is waited for between turns, never by blocking the loop; this
 * process's own changes queue for it here instead of each trying the lock file every few ms.
 */
export function withStoreLockInTurns<T>(
  stateDir: string,
  change: (keep: Keep) => Promise<T>,
  waitMs = LOCK_WAIT_MS,
): Promise<T> {
  const run = async (): Promise<T> => {
    const deadline = performance.now() + waitMs;
    for (;;) {
      const taken = tryLock(stateDir);
      if ('release' in taken) {
        try {
          return await change(taken.keep);
        } finally {
          taken.release();
        }
      }
      if (performance.now() >= deadline) throw taken.retry();
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
  };
  const before = queues.get(stateDir) ?? Promise.resolve();
  const result = before.then(run, run);
  const settled = result.then(
    () => {},
    () => {},
  );
  queues.set(stateDir, settled);
  void settled.then(() => {
    if (queues.get(stateDir) === settled) queues.delete(stateDir);
  });
  return result;
}
