/**
 * API keys as the server sees them: the in-memory index it authenticates against, reloaded
 * when the key file changes. The record is record.ts, the file file.ts, the keys command's
 * changes changes.ts.
 */
import { statSync } from 'node:fs';
import { KeyFileUnreadable, readKeysFile, sameStamp, stampOf, unreadable, type FileStamp, type KeysFile } from './file.ts';
import { hashKey, KEY_PATTERN, keysPath, KeyStoreError, type KeyLookup, type KeyRecord } from './record.ts';
import { ensurePrivateDir } from '../shared/state-files.ts';

export interface KeyStoreOptions {
  /** How often to look for changes to the file (see refresh); default every lookup. */
  recheck?: 'every-lookup' | 'every-turn';
  /** How the file is read (a test gives one that fails). */
  read?: typeof readKeysFile;
}

/**
 * The keys the server authenticates against, indexed by hash (revoked ones too: lookups skip them). Every check first stats the file
 * (one syscall) and reloads when it changed, so a key the keys command revoked or regenerated
 * fails on the very next request, with no restart and no watcher to miss events. When the file
 * changed and cannot be read, or no longer holds valid keys, the keys in memory are known to be
 * stale: lookup refuses to answer from them (the server decides how long to wait: fresh-keys.ts).
 */
export class KeyStore implements KeyLookup {
  private byHash = new Map<string, KeyRecord>();
  private all: readonly KeyRecord[] = [];
  /** The version of the file last read, good or bad; null when there was none. */
  private stamp: FileStamp | null = null;
  /** What is wrong with that version when it was bad (a bad hand edit); null when it was good. */
  private broken: KeyStoreError | null = null;
  /** Why the keys in memory may not be the file's now; null when they are. */
  private problem: KeyStoreError | null = null;
  private checkedThisTurn = false;

  private constructor(
    private readonly path: string,
    private readonly recheck: 'every-lookup' | 'every-turn',
    private readonly read: typeof readKeysFile,
  ) {}

  /** Load the store; throws KeyStoreError when the file is unreadable or invalid. No file: no keys yet. */
  static open(stateDir: string, options: KeyStoreOptions = {}): KeyStore {
    ensurePrivateDir(stateDir);
    const store = new KeyStore(keysPath(stateDir), options.recheck ?? 'every-lookup', options.read ?? readKeysFile);
    store.use(store.read(store.path));
    return store;
  }

  /** The active key with this value, if any; revoked keys are not found. Throws the KeyStoreError when the keys in memory may be stale. */
  lookup(plainKey: string): KeyRecord | undefined {
    const problem = this.check();
    if (problem) throw problem;
    return this.find(plainKey);
  }

  /** Every key, revoked ones included; throws like lookup. */
  records(): readonly KeyRecord[] {
    const problem = this.check();
    if (problem) throw problem;
    return this.all;
  }

  /** Look for a change to the file; null when the keys in memory are the file's, else why they may not be. */
  check(): KeyStoreError | null {
    this.refresh();
    return this.problem;
  }

  /** The active key with this value among the keys in memory, as the last check left them. */
  find(plainKey: string): KeyRecord | undefined {
    if (!KEY_PATTERN.test(plainKey)) return undefined;
    const record = this.byHash.get(hashKey(plainKey));
    return record?.revoked_at === null ? record : undefined;
  }

  private use(loaded: (KeysFile & { stamp: FileStamp }) | null): void {
    // No file (never created, or deleted while running) means no keys: failing closed is the
    // safe reading of a deleted store.
    this.all = Object.freeze(loaded?.records ?? []);
    this.byHash = loaded?.byHash ?? new Map();
    this.stamp = loaded?.stamp ?? null;
    this.broken = null;
    this.problem = null;
  }

  /**
   * Check whether the file changed: before every lookup, or (for the server) once per
   * event-loop turn. The latter is still "the very next request": every request handled in a
   * turn arrived before that turn's poll returned, so a change finished before a client sent
   * its request was made before the check that serves it.
   */
  private refresh(): void {
    if (this.checkedThisTurn) return;
    if (this.recheck === 'every-turn') {
      this.checkedThisTurn = true;
      setImmediate(() => (this.checkedThisTurn = false));
    }
    let current: FileStamp | null;
    try {
      current = stampOf(statSync(this.path, { throwIfNoEntry: false }));
    } catch (error) {
      // Whether the file changed cannot be told: the keys in memory cannot be vouched for.
      this.problem = unreadable('look at', this.path, error);
      return;
    }
    if (sameStamp(current, this.stamp)) {
      // The very version last read (a failed read or stat leaves the stamp alone): good, the keys
      // in memory are the file's; broken, it stays so until it changes, and is not parsed per request.
      this.problem = this.broken;
      return;
    }
    try {
      this.use(this.read(this.path));
    } catch (error) {
      if (!(error instanceof KeyStoreError)) throw error;
      this.problem = error;
      // A read that failed says nothing of the file: keep the stamp, so the next check reads it
      // again. A broken version (a bad hand edit) is remembered, and read again once it changes.
      if (error instanceof KeyFileUnreadable) return;
      this.stamp = current;
      this.broken = error;
    }
  }
}
