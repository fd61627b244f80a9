/**
 * API keys as the server sees them: the in-memory index it authenticates against, kept as
 * `keys.json` says. The file's format is file-format.ts, how the index reads it file-follow.ts,
 * the keys command's changes file-append.ts and changes.ts.
 */
import { statSync } from 'node:fs';
import { ActiveKeys } from './active-keys.ts';
import { FollowedKeysFile } from './file-follow.ts';
import { KeyFileUnreadable, sameStamp, stampOf, unreadable, type FileStamp } from './file.ts';
import { hashKey, KEY_PATTERN, keysPath, KeyStoreError } from './record.ts';
import type { KeyLookup, KeyRecord } from '../state/key-record.ts';
import { ensurePrivateDir } from '../shared/state-files.ts';
import { RecentMap } from '../lib/recent-map.ts';

export interface FileKeysOptions {
  /** How often to look for changes to the file (see refresh); default every lookup. */
  recheck?: 'every-lookup' | 'every-turn';
  /** Called before each read of the file, whole or its new lines (a test counts them, or makes one fail). */
  beforeRead?: (path: string, what: 'whole' | 'lines') => void;
}

/**
 * The keys the server authenticates against (revoked ones are not found). Every check first
 * stats the file (one syscall); when it grew, only the new lines are read (a change of the keys
 * command is a line appended), so a key the keys command revoked or regenerated fails on the
 * very next request, with no restart, no watcher to miss events, and no wait for a whole read.
 * A file replaced by a compaction of the one read is read on from where the records carried over
 * end; anything else (a first start, a hand edit, a restore) is read whole. When the file changed
 * and cannot be read, or no longer holds valid keys, the keys in memory are known to be stale:
 * lookup refuses to answer from them (the server decides how long to wait: fresh-keys.ts).
 */
/** What foundThisTurn holds for a key that found none (one Map read a lookup, not two). */
const NOT_FOUND = Symbol('not found');
/** Keys a turn remembers at most (two generations of this many): more are looked up again. */
const FOUND_A_TURN = 4096;

export class FileKeys implements KeyLookup {
  private index = new ActiveKeys();
  private readonly file: FollowedKeysFile;
  /** A version of the file found broken (a bad hand edit), by its stamp: not read again until it changes. */
  private broken: { stamp: FileStamp; error: KeyStoreError } | null = null;
  /** Why the keys in memory may not be the file's now; null when they are. */
  private problem: KeyStoreError | null = null;
  private checkedThisTurn = false;
  /**
   * The keys presented this turn and what they found ('every-turn' only): a client on many
   * connections presents one key many times a turn, and hashing it was 2.5% of the server's
   * time on the Pro list page at c=16, a quarter of what the app adds to node:http
   * (bench/analysis.md, "What stops the floor targets"). Cleared when the turn ends and when the
   * keys change, so a plain key stays no longer than the requests that carried it.
   */
  private readonly foundThisTurn = new RecentMap<string, KeyRecord | typeof NOT_FOUND>(FOUND_A_TURN);

  private constructor(
    private readonly path: string,
    private readonly recheck: 'every-lookup' | 'every-turn',
    beforeRead: (path: string, what: 'whole' | 'lines') => void,
  ) {
    this.file = new FollowedKeysFile(path, beforeRead);
  }

  /** Load the store; throws KeyStoreError when the file is unreadable or invalid. No file: no keys yet. */
  static open(stateDir: string, options: FileKeysOptions = {}): FileKeys {
    ensurePrivateDir(stateDir);
    const store = new FileKeys(keysPath(stateDir), options.recheck ?? 'every-lookup', options.beforeRead ?? (() => {}));
    const problem = store.check();
    if (problem) {
      store.close();
      throw problem;
    }
    return store;
  }

  /** Keys not revoked, as last read. */
  get activeCount(): number {
    return this.index.byHash.size;
  }

  /**
   * The active key with this value, if any; revoked keys are not found. Throws the KeyStoreError
   * when the keys in memory may be stale.
   */
  lookup(plainKey: string): KeyRecord | undefined {
    const problem = this.check();
    if (problem) throw problem;
    return this.find(plainKey);
  }

  /** Look for a change to the file; null when the keys in memory are the file's, else why they may not be. */
  check(): KeyStoreError | null {
    this.refresh();
    return this.problem;
  }

  /** The active key with this value among the keys in memory, as the last check left them. */
  find(plainKey: string): KeyRecord | undefined {
    // Only while a turn's check stands: its end (scheduled with it) clears what was found.
    if (!this.checkedThisTurn) return this.findNow(plainKey);
    let found = this.foundThisTurn.get(plainKey);
    if (found === undefined) this.foundThisTurn.set(plainKey, (found = this.findNow(plainKey) ?? NOT_FOUND));
    return found === NOT_FOUND ? undefined : found;
  }

  private findNow(plainKey: string): KeyRecord | undefined {
    if (!KEY_PATTERN.test(plainKey)) return undefined;
    return this.index.byHash.get(hashKey(plainKey));
  }

  /**
   * Every key by id, revoked ones too, as the file is now (its new lines read first); throws the
   * KeyStoreError when the keys in memory may be stale.
   */
  directory(): ReadonlyMap<string, KeyRecord> {
    const problem = this.check();
    if (problem) throw problem;
    return this.index.byId;
  }

  /** Let go of the file. */
  close(): void {
    this.file.close();
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
      setImmediate(() => {
        this.checkedThisTurn = false;
        this.foundThisTurn.clear();
      });
    }
    let current: FileStamp | null;
    try {
      current = stampOf(statSync(this.path, { throwIfNoEntry: false }));
    } catch (error) {
      // Whether the file changed cannot be told: the keys in memory cannot be vouched for.
      this.problem = unreadable('look at', this.path, error);
      return;
    }
    if (current === null) {
      // No file (never created, or deleted while running) means no keys: failing closed is the
      // safe reading of a deleted store.
      this.file.close();
      this.use(new ActiveKeys());
      return;
    }
    if (this.broken && sameStamp(current, this.broken.stamp)) {
      this.problem = this.broken.error; // still the broken version: not parsed again per request
      return;
    }
    try {
      // After a failure, the whole file decides.
      if (this.problem === null && this.file.readOn(current, this.index)) return;
      this.use(this.file.readAll());
    } catch (error) {
      const failure =
        error instanceof KeyStoreError
          ? error
          : (error as NodeJS.ErrnoException).code
            ? unreadable('read', this.path, error)
            : null;
      if (failure === null) throw error;
      this.problem = failure;
      // A read that failed says nothing of the file: the next check reads it again. A broken
      // version (a bad hand edit) is remembered, and read again once it changes.
      if (!(failure instanceof KeyFileUnreadable)) this.broken = { stamp: current, error: failure };
    }
  }

  private use(index: ActiveKeys): void {
    this.index = index;
    this.foundThisTurn.clear();
    this.broken = null;
    this.problem = null;
  }
}
