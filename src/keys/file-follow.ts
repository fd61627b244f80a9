/**
 * `keys.json` as the server's index follows it: the file held open, and what it gained read
 * since (only the new lines of an append, a compaction's file read on from where the records it
 * carried over end), or the whole file when nothing less can say what it holds.
 */
import { closeSync, fstatSync } from 'node:fs';
import { ActiveKeys } from './active-keys.ts';
import { headerAt, parseRecordLine, type KeysHeader } from './file-format.ts';
import { KeyFileUnreadable, openKeysFile, readBytes, sameStamp, stampOf, type FileStamp } from './file.ts';
import { readLines, readWhole } from './file-lines.ts';
import { replacedLines } from './file-replaced.ts';
import { settled } from './file-settled.ts';
import type { KeyRecord } from '../state/key-record.ts';

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

/** The keys file the index was read from, and reading what it gained. */
export class FollowedKeysFile {
  private followed: Followed | null = null;

  constructor(
    private readonly path: string,
    private readonly beforeRead: (path: string, what: 'whole' | 'lines') => void,
  ) {}

  /** Let go of the file. */
  close(): void {
    this.follow(null);
  }

  /** Bring `index` up to the file by reading only what changed; false when only a whole read can. */
  readOn(current: FileStamp, index: ActiveKeys): boolean {
    const f = this.followed;
    if (f === null) return false;
    if (current.ino === f.stamp.ino) {
      if (sameStamp(current, f.stamp)) return true;
      if (f.file !== null && current.size === f.offset) current = settled(this.path, current);
      return f.file !== null && current.size > f.offset && this.appended(f, current, index);
    }
    // Replaced. What the old file gained before that is read first; then, if the new one is a
    // compaction of the old one as read, the index is already the new one's up to its `end`.
    if (f.file !== null && !this.appended(f, stampOf(fstatSync(f.fd)) as FileStamp, index)) return false;
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
    return stamp.size === header.end || this.appended(adopted, stamp, index);
  }

  /** Read the lines a format 2 file gained; false when what is there is not an append to what was read. */
  private appended(f: Followed, current: FileStamp, index: ActiveKeys): boolean {
    if (current.size === f.offset && current.mtimeMs === f.stamp.mtimeMs) return true;
    if (current.size < f.offset || !this.tailOf(f.fd, f.offset).equals(f.tail)) return false;
    this.beforeRead(this.path, 'lines');
    try {
      let lines = f.lines;
      const records: [KeyRecord, number][] = [];
      const offset = readLines(f.fd, this.path, f.offset, current.size, (text) =>
        records.push([parseRecordLine(this.path, text, ++lines), lines]),
      );
      for (const [record, line] of records) index.apply(this.path, record, line);
      Object.assign(f, { stamp: current, offset, lines, tail: this.tailOf(f.fd, offset) });
      return true;
    } catch (error) {
      if (error instanceof KeyFileUnreadable) throw error;
      return false; // a line that does not read: the whole file says whether it is broken
    }
  }

  /** Read the whole file into a new index, to replace the one in use only once all of it has read. */
  readAll(): ActiveKeys {
    const fd = openKeysFile(this.path);
    if (fd === null) {
      this.follow(null);
      return new ActiveKeys();
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
      return index;
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
}
