/**
 * API keys as the server sees them: the in-memory index it authenticates against, reloaded
 * when the key file changes. The record is record.ts, the file file.ts, the keys command's
 * changes changes.ts.
 */
import { statSync } from 'node:fs';
import { KeyFileUnreadable, readKeysFile, sameStamp, stampOf, type FileStamp } from './file.ts';
import { hashKey, KEY_PATTERN, keysPath, KeyStoreError, type KeyLookup, type KeyRecord } from './record.ts';
import { ensurePrivateDir } from '../shared/state-files.ts';

export interface KeyStoreOptions {
  /** Called once per broken version of the file met on a reload. */
  onError?: (error: KeyStoreError) => void;
  /** How often to look for changes to the file (see refresh); default every lookup. */
  recheck?: 'every-lookup' | 'every-turn';
  /** How the file is read (a test gives one that fails once). */
  read?: typeof readKeysFile;
}

/**
 * The keys the server authenticates against, indexed by hash. Every lookup first stats the
 * file (one syscall) and reloads when it changed, so a key the keys command revoked or
 * regenerated fails on the very next request, with no restart and no watcher to miss events.
 */
export class KeyStore implements KeyLookup {
  private byHash = new Map<string, KeyRecord>();
  private all: readonly KeyRecord[] = [];
  /** The version of the file last read, good or bad; null when there was none. */
  private stamp: FileStamp | null = null;
  private lastReported: string | null = null;
  private checkedThisTurn = false;

  private constructor(
    private readonly path: string,
    private readonly onError: (error: KeyStoreError) => void,
    private readonly recheck: 'every-lookup' | 'every-turn',
    private readonly read: typeof readKeysFile,
  ) {}

  /** Load the store; throws KeyStoreError when the file is unreadable or invalid. No file: no keys yet. */
  static open(stateDir: string, options: KeyStoreOptions = {}): KeyStore {
    ensurePrivateDir(stateDir);
    const store = new KeyStore(keysPath(stateDir), options.onError ?? (() => {}), options.recheck ?? 'every-lookup', options.read ?? readKeysFile);
    store.use(store.read(store.path));
    return store;
  }

  /** The active key with this value, if any; revoked keys are not found. */
  lookup(plainKey: string): KeyRecord | undefined {
    this.refresh();
    if (!KEY_PATTERN.test(plainKey)) return undefined;
    return this.byHash.get(hashKey(plainKey));
  }

  /** Every key, revoked ones included, as of the latest good version of the file. */
  records(): readonly KeyRecord[] {
    this.refresh();
    return this.all;
  }

  private use(loaded: { records: KeyRecord[]; stamp: FileStamp } | null): void {
    // No file (never created, or deleted while running) means no keys: failing closed is the
    // safe reading of a deleted store.
    this.all = Object.freeze(loaded?.records ?? []);
    this.byHash = new Map(this.all.filter((r) => r.revoked_at === null).map((r) => [r.hash, r]));
    this.stamp = loaded?.stamp ?? null;
    this.lastReported = null;
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
      this.report(new KeyStoreError(`cannot stat ${this.path}: ${(error as Error).message}`));
      return;
    }
    if (sameStamp(current, this.stamp)) return;
    try {
      this.use(this.read(this.path));
    } catch (error) {
      if (!(error instanceof KeyStoreError)) throw error;
      // A read that failed says nothing of the file: keep the stamp, so the next check reads it
      // again (a revocation must not wait for the file to change once more).
      if (error instanceof KeyFileUnreadable) return this.report(error);
      // A broken file (a bad hand edit) keeps the last good keys instead of locking every
      // client out, and is reported once: the stamp is remembered, so it is not re-read on
      // every request until it changes again. Revocations in the broken version wait for a fix.
      this.stamp = current;
      this.report(error);
    }
  }

  private report(error: KeyStoreError): void {
    if (error.message === this.lastReported) return;
    this.lastReported = error.message;
    this.onError(error);
  }
}
