/**
 * API keys as the server sees them: the in-memory index it authenticates against, kept as
 * `keys.json` says. The file's format is file-format.ts, the keys command's changes
 * file-append.ts and changes.ts.
 */
import { closeSync, fstatSync, statSync } from 'node:fs';
import { headerAt, parseRecordLine, type KeysHeader } from './file-format.ts';
import {
  KeyFileUnreadable,
  openKeysFile,
  readBytes,
  readLines,
  readWhole,
  sameStamp,
  stampOf,
  unreadable,
  type FileStamp,
} from './file.ts';
import { hashKey, KEY_PATTERN, keysPath, KeyStoreError } from './record.ts';
import type { KeyLookup, KeyRecord } from '../state/key-record.ts';
import { ensurePrivateDir } from '../shared/state-files.ts';
import { ActiveKeys } from './active-keys.ts';
import { replacedLines } from './file-replaced.ts';
import { settled } from './file-settled.ts';

export interface FileKeysOptions {
  /** How often to look for changes to the file (see refresh); default every lookup. */
  recheck?: 'every-lookup' | 'every-turn';
  /** Called before each read of the file, whole or its new lines (a test counts them, or makes one fail). */
  beforeRead?: (path: string, what: 'whole' | 'lines') => void;
}

/** The file the index was read from, held open: when it is replaced, what it gained meanwhile can still be read. */
interface Followed {
  fd: number;
  /** Its stamp when last looked at. */
  stamp: FileStamp;
  /** Its header's name; null for format 1, read whole and never read on. */
  file: string | null;
  /** Just past the last line read (a line not yet finished is read once it is). */
  offset: number;
  /** Lines read, the header's included: a bad line's number. */
  lines: number;
  /** The bytes just before `offset`: an append leaves them, an edit in place seldom does. */
  tail: Buffer;
}

const TAIL_BYTES = 64;

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
export class FileKeys implements KeyLookup {
  private index = new ActiveKeys();
  private followed: Followed | null = null;
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
  private readonly foundThisTurn = new Map<string, KeyRecord | undefined>();

  private constructor(
    private readonly path: string,
    private readonly recheck: 'every-lookup' | 'every-turn',
    private readonly beforeRead: (path: string, what: 'whole' | 'lines') => void,
  ) {}

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
    if (this.foundThisTurn.has(plainKey)) return this.foundThisTurn.get(plainKey);
    const found = this.findNow(plainKey);
    this.foundThisTurn.set(plainKey, found);
    return found;
  }

  private findNow(plainKey: string): KeyRecord | undefined {
    if (!KEY_PATTERN.test(plainKey)) return undefined;
    return this.index.byHash.get(hashKey(plainKey));
  }

  /** Let go of the file. */
  close(): void {
    this.follow(null);
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
      this.follow(null);
      this.use(new ActiveKeys());
      return;
    }
    if (this.broken && sameStamp(current, this.broken.stamp)) {
      this.problem = this.broken.error; // still the broken version: not parsed again per request
      return;
    }
    try {
      if (this.readOn(current)) return;
      this.readAll();
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

  /** Bring the index up to the file by reading only what changed; false when only a whole read can. */
  private readOn(current: FileStamp): boolean {
    const f = this.followed;
    if (f === null || this.problem !== null) return false; // after a failure, the whole file decides
    if (current.ino === f.stamp.ino) {
      if (sameStamp(current, f.stamp)) return true;
      if (f.file !== null && current.size === f.offset) current = settled(this.path, current);
      return f.file !== null && current.size > f.offset && this.appended(f, current);
    }
    // Replaced. What the old file gained before that is read first; then, if the new one is a
    // compaction of the old one as read, the index is already the new one's up to its `end`.
    if (f.file !== null && !this.appended(f, stampOf(fstatSync(f.fd)) as FileStamp)) return false;
    const fd = openKeysFile(this.path);
    if (fd === null) return false;
    let header: KeysHeader | null;
    let stamp: FileStamp;
    try {
      stamp = stampOf(fstatSync(fd)) as FileStamp;
      header = this.headerOf(fd, stamp.size);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    const replaced = header?.replaces;
    if (
      !header ||
      !replaced ||
      replaced.ino !== f.stamp.ino ||
      replaced.size !== f.offset ||
      replaced.file !== f.file ||
      header.end > stamp.size
    ) {
      closeSync(fd);
      return false;
    }
    const adopted: Followed = {
      fd,
      stamp,
      file: header.file,
      offset: header.end,
      lines: header.records + 1,
      tail: this.tailOf(fd, header.end),
    };
    this.follow(adopted);
    return stamp.size === header.end || this.appended(adopted, stamp);
  }

  /** Read the lines a format 2 file gained; false when what is there is not an append to what was read. */
  private appended(f: Followed, current: FileStamp): boolean {
    if (current.size === f.offset && current.mtimeMs === f.stamp.mtimeMs) return true;
    if (current.size < f.offset || !this.tailOf(f.fd, f.offset).equals(f.tail)) return false;
    this.beforeRead(this.path, 'lines');
    try {
      let lines = f.lines;
      const records: [KeyRecord, number][] = [];
      const offset = readLines(f.fd, this.path, f.offset, current.size, (text) =>
        records.push([parseRecordLine(this.path, text, ++lines), lines]),
      );
      for (const [record, line] of records) this.index.apply(this.path, record, line);
      Object.assign(f, { stamp: current, offset, lines, tail: this.tailOf(f.fd, offset) });
      return true;
    } catch (error) {
      if (error instanceof KeyFileUnreadable) throw error;
      return false; // a line that does not read: the whole file says whether it is broken
    }
  }

  /** Read the whole file into a new index, which replaces the one in use only once all of it has read. */
  private readAll(): void {
    const fd = openKeysFile(this.path);
    if (fd === null) {
      this.follow(null);
      this.use(new ActiveKeys());
      return;
    }
    try {
      this.beforeRead(this.path, 'whole');
      const stamp = stampOf(fstatSync(fd)) as FileStamp;
      const index = new ActiveKeys();
      // Records a later line replaces are not held meanwhile (file-replaced.ts: 153 -> 130-131 MB at 100,000 keys).
      const replaced = replacedLines(fd, this.path, this.headerOf(fd, stamp.size), stamp.size);
      const read = readWhole(fd, this.path, stamp.size, (record, line, at) => {
        if (!replaced(record.id, at)) index.apply(this.path, record, line);
      });
      this.follow({
        fd,
        stamp,
        file: read.header?.file ?? null,
        offset: read.end,
        lines: read.lines,
        tail: this.tailOf(fd, read.end),
      });
      this.use(index);
    } catch (error) {
      if (this.followed?.fd !== fd) closeSync(fd);
      throw error;
    }
  }

  private headerOf(fd: number, size: number): KeysHeader | null {
    return headerAt(this.path, readBytes(fd, this.path, 0, Math.min(size, 4096)));
  }

  private tailOf(fd: number, offset: number): Buffer {
    const from = Math.max(0, offset - TAIL_BYTES);
    return readBytes(fd, this.path, from, offset - from);
  }

  private follow(next: Followed | null): void {
    if (this.followed && this.followed.fd !== next?.fd) closeSync(this.followed.fd);
    this.followed = next;
  }

  private use(index: ActiveKeys): void {
    this.index = index;
    this.foundThisTurn.clear();
    this.broken = null;
    this.problem = null;
  }
}
