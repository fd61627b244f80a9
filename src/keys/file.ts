/**
 * The key store on disk, `keys.json` in the private state folder (its format: file-format.ts):
 * reading it, a line at a time, for the server's index (file-keys.ts) and the keys command
 * (file-append.ts, file-change.ts); the lock that keeps two changes from losing each other's is store-lock.ts.
 */
import { closeSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import {
  isLinesFormat,
  parseHeader,
  parseRecordLine,
  parseWholeFile,
  invalidStore,
  type KeysHeader,
} from './file-format.ts';
import { KeyStoreError, keysPath, matchesFilter, type KeyFilter } from './record.ts';
import type { KeyRecord } from '../state/key-record.ts';
import { isAccessError, ownershipNote } from '../shared/file-owner.ts';
import { readRangeSync } from '../shared/read-range.ts';

export interface FileStamp {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

export function stampOf(stats: Stats | undefined): FileStamp | null {
  return stats ? { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs } : null;
}

export function sameStamp(a: FileStamp | null, b: FileStamp | null): boolean {
  if (a === null || b === null) return a === b;
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

/**
 * The file could not be read (or looked at) this time (its owner or mode, descriptors exhausted, an
 * I/O error): worth another try.
 */
export class KeyFileUnreadable extends KeyStoreError {}

/** The failure to read (or look at) the key file, with the owner named when access was refused. */
export function unreadable(verb: 'read' | 'look at' | 'write to', path: string, error: unknown): KeyFileUnreadable {
  return new KeyFileUnreadable(
    `cannot ${verb} ${path}: ${(error as Error).message}${isAccessError(error) ? `; ${ownerAdvice(path)}` : ''}`,
  );
}

/** What a refused read most often means here: the keys command was run as another user than the server. */
function ownerAdvice(path: string): string {
  const note = ownershipNote(path);
  return (
    `${note ? `${note}. ` : ''}Was the keys command run as another user? Give the state folder and its files ` +
    `back to the user the server runs as (chown -R), and run the keys command as that user`
  );
}

/** Open the key file for reading; null when there is none. */
export function openKeysFile(path: string): number | null {
  try {
    return openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw unreadable('read', path, error);
  }
}

/**
 * Longer lines than this are refused: a record is some hundreds of bytes (a key holding every
 * provider's grant, some kilobytes).
 */
export const MAX_LINE_BYTES = 1 << 20;
/**
 * Read a chunk at a time, not the whole file: at 100,000 keys (25 MB) the whole file held at once
 * cost its size in memory again.
 */
const CHUNK_BYTES = 1 << 20;

/**
 * Each complete line of the bytes [from, to) of a file, without its newline, in order; returns
 * the offset just past the last complete one. Bytes after it (a line still being written, or cut
 * off by a crash) are left for later: a change is the whole line or nothing.
 */
export function readLines(fd: number, path: string, from: number, to: number, onLine: (text: string) => void): number {
  return drain(linesOf(fd, path, from, to), ([text]) => onLine(text));
}

/** The lines of `readLines`, one at a time with where each starts, and the same offset when done. */
export function* linesOf(
  fd: number,
  path: string,
  from: number,
  to: number,
): Generator<readonly [string, number], number> {
  const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(1, to - from)));
  let carried: Buffer | null = null;
  let position = from;
  let lineStart = from;
  while (position < to) {
    let got: number;
    try {
      got = readSync(fd, chunk, 0, Math.min(chunk.length, to - position), position);
    } catch (error) {
      throw unreadable('read', path, error);
    }
    if (got === 0) break; // shorter than it was: what was read stands, the next look sees the rest
    let start = 0;
    for (let nl = chunk.indexOf(10, 0); nl !== -1 && nl < got; nl = chunk.indexOf(10, start)) {
      const line: Buffer = carried ? Buffer.concat([carried, chunk.subarray(start, nl)]) : chunk.subarray(start, nl);
      carried = null;
      yield [line.toString('utf8'), lineStart];
      start = nl + 1;
      lineStart = position + start;
    }
    if (start < got) {
      const rest = chunk.subarray(start, got);
      carried = carried ? Buffer.concat([carried, rest]) : Buffer.from(rest);
      if (carried.length > MAX_LINE_BYTES)
        throw invalidStore(path, `a line longer than ${MAX_LINE_BYTES} bytes at byte ${lineStart}`);
    }
    position += got;
  }
  return lineStart;
}

/**
 * What a whole read found: the header (null for format 1), where the last complete line ends, and
 * how many lines were read (the header's included).
 */
export interface WholeRead {
  header: KeysHeader | null;
  end: number;
  lines: number;
}

/**
 * Read a key file from its start, giving each record in order to `onRecord` with its line and
 * where that starts (format 2: every line, changes included, so a later line of an id replaces an
 * earlier one; format 1: every record once, at 0). Throws KeyStoreError naming the file and line
 * of what is wrong.
 */
export function readWhole(
  fd: number,
  path: string,
  size: number,
  onRecord: (record: KeyRecord, line: number, at: number) => void,
): WholeRead {
  return drain(recordsOf(fd, path, size), ([record, line, at]) => onRecord(record, line, at));
}

/**
 * The records of `readWhole`, each with its line and where it starts, one at a time, and the same
 * summary when done.
 */
export function* recordsOf(
  fd: number,
  path: string,
  size: number,
): Generator<readonly [KeyRecord, number, number], WholeRead> {
  const first = readBytes(fd, path, 0, Math.min(size, 64));
  if (!isLinesFormat(first.toString('latin1'))) {
    // Format 1 was written whole and is read whole; once: the first change rewrites it.
    const records = parseWholeFile(path, readBytes(fd, path, 0, size).toString('utf8'));
    for (let i = 0; i < records.length; i++) yield [records[i], i + 1, 0];
    return { header: null, end: size, lines: records.length };
  }
  let header: KeysHeader | undefined;
  let lines = 0;
  const texts = linesOf(fd, path, 0, size);
  for (;;) {
    const text = texts.next();
    if (text.done) {
      if (header === undefined) throw invalidStore(path, 'the header line is not complete');
      return { header, end: text.value, lines };
    }
    lines++;
    const [line, at] = text.value;
    if (header === undefined) header = parseHeader(path, line);
    else yield [parseRecordLine(path, line, lines), lines, at];
  }
}

/** Every value of a generator to `each`; what it returns. */
function drain<T, R>(values: Generator<T, R>, each: (value: T) => void): R {
  for (;;) {
    const next = values.next();
    if (next.done) return next.value;
    each(next.value);
  }
}

/**
 * The same, letting the event loop take a turn whenever the values have run for `sliceMs`:
 * what a server reads this way delays its other requests by a slice at most, not by the read.
 */
export async function drainInTurns<T, R>(
  values: Generator<T, R>,
  each: (value: T) => void,
  sliceMs: number,
): Promise<R> {
  let since = performance.now();
  for (let n = 1; ; n++) {
    const next = values.next();
    if (next.done) return next.value;
    each(next.value);
    // The clock is read every 256 values: a record takes some microseconds, a clock read some tens of nanoseconds.
    if ((n & 255) === 0 && performance.now() - since >= sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}

/** `length` bytes from `position` (fewer when the file is shorter now); a failed read is the file unreadable. */
export function readBytes(fd: number, path: string, position: number, length: number): Buffer {
  try {
    return readRangeSync(fd, position, length);
  } catch (error) {
    throw unreadable('read', path, error);
  }
}

/**
 * The keys of a key file, each as its last line says, in the order they were first written, and
 * where the file stands.
 */
export interface StoredKeys extends WholeRead {
  records: KeyRecord[];
  stamp: FileStamp;
}

/**
 * The keys of a whole read that a filter lets through (all of them without one), each id as its
 * last line says, in the order they were first written. A key's fields the filter reads never
 * change, so a line that does not pass is dropped as read; should a hand edit have changed one,
 * the key's last line decides all the same.
 */
class StoreOrder {
  private readonly records: (KeyRecord | null)[] = [];
  private readonly at = new Map<string, number>();

  constructor(private readonly filter: KeyFilter = {}) {}

  add = ([record]: readonly [KeyRecord, number, number]): void => {
    const i = this.at.get(record.id);
    if (!matchesFilter(record, this.filter)) {
      if (i === undefined) return;
      this.records[i] = null;
      this.at.delete(record.id);
    } else if (i === undefined) this.at.set(record.id, this.records.push(record) - 1);
    else this.records[i] = record;
  };

  /** The keys, once no two of them share a hash. */
  checked(path: string): KeyRecord[] {
    const records = this.records.filter((record) => record !== null);
    const hashes = new Map<string, string>();
    for (const record of records) {
      const holder = hashes.get(record.hash);
      if (holder !== undefined) throw invalidStore(path, `keys ${holder} and ${record.id} have the same hash`);
      hashes.set(record.hash, record.id);
    }
    return records;
  }
}

export function stampOfOpen(fd: number, path: string): FileStamp {
  try {
    return stampOf(fstatSync(fd)) as FileStamp;
  } catch (error) {
    throw unreadable('read', path, error);
  }
}

/** Read the key file; null when there is none yet. The stamp is of the very bytes read. */
export function readKeysFile(path: string): StoredKeys | null {
  const fd = openKeysFile(path);
  if (fd === null) return null;
  try {
    const stamp = stampOfOpen(fd, path);
    const order = new StoreOrder();
    const read = drain(recordsOf(fd, path, stamp.size), order.add);
    return { ...read, records: order.checked(path), stamp };
  } finally {
    closeSync(fd);
  }
}

/** A slice of the event loop a read in turns takes at most (in steps of 256 records). */
export const READ_SLICE_MS = 10;

/**
 * `readKeysFile` for a server, which must keep answering while it reads: the file is read in
 * slices of `sliceMs` with a turn of the event loop between them. A read of 100,000 keys (a file
 * written by scripts/bench/keys-scale.ts) took 780 ms, which in one piece held every public
 * request that long. The read stops at the size the file had when opened: a change appended or a
 * file renamed over it meanwhile is in the next read. Only the keys `filter` lets through are
 * kept (their hashes alone checked against each other): every key of 100,000 held at once took
 * the server to 187-195 MB resident for a list of one org's, 136 MB now (scripts/bench/admin-scale.ts).
 */
export async function readKeysFileInTurns(
  path: string,
  filter: KeyFilter = {},
  sliceMs = READ_SLICE_MS,
): Promise<StoredKeys | null> {
  const fd = openKeysFile(path);
  if (fd === null) return null;
  try {
    const stamp = stampOfOpen(fd, path);
    const order = new StoreOrder(filter);
    const read = await drainInTurns(recordsOf(fd, path, stamp.size), order.add, sliceMs);
    return { ...read, records: order.checked(path), stamp };
  } finally {
    closeSync(fd);
  }
}

/** The keys in the store, revoked ones included; null when no store exists yet. */
export function loadKeys(stateDir: string): KeyRecord[] | null {
  return readKeysFile(keysPath(stateDir))?.records ?? null;
}
