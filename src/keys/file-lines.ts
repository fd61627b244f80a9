/**
 * Reading `keys.json` a line at a time, a chunk of the file held at once: its complete lines
 * between two offsets (what an append added), or its records from the start (a whole read), for
 * the server's index (file-follow.ts), the keys command and the admin listener's lists.
 */
import { readSync } from 'node:fs';
import {
  isLinesFormat,
  parseHeader,
  parseRecordLine,
  parseWholeFile,
  invalidStore,
  type KeysHeader,
} from './file-format.ts';
import { readBytes, unreadable } from './file.ts';
import type { KeyRecord } from '../state/key-record.ts';
import { drain } from '../lib/drain.ts';

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
