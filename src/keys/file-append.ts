/**
 * The keys command's changes to `keys.json`: a change is appended, one line per changed record,
 * and the server reads those lines alone (file-keys.ts). The command finds a key by its id's line
 * instead of reading every record: at 100,000 keys a change read, parsed and rewrote 25 MB
 * (over a second, and the server then read it all again; scripts/bench/keys-scale.ts). Once the
 * changes outnumber the records the file is compacted: rewritten with each key's last line, its
 * header saying which file it replaces, so a server that has read that one reads on from there.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { firstFree, listTable, type KeyChange, type KeyTable } from './table.ts';
import { readBytes, unreadable } from './file.ts';
import { readKeysFile } from './file-read.ts';
import { withStoreLock } from './store-lock.ts';
import {
  headerAt,
  headerLine,
  KEYS_FORMAT,
  lineStart,
  parseRecordLine,
  recordLine,
  type KeysHeader,
} from './file-format.ts';
import { keysPath } from './record.ts';
import type { KeyRecord } from '../state/key-record.ts';
import { writeFileAtomic, type Keep } from '../shared/state-files.ts';

const NEWLINE = 10;
/** A file is compacted once the lines appended since it was written outnumber its records and this. */
export const COMPACT_AFTER_LINES = 1000;

/**
 * Write the store anew: a header, then the lines (each a record, newline included), then the
 * changes. `replaces` names the file the lines are all the keys of, when a server may hold it:
 * the header says where they end, and a server that read that file reads on from there.
 */
export function writeKeysFile(
  path: string,
  lines: readonly (string | Buffer)[] | readonly KeyRecord[],
  replaces: KeysHeader['replaces'],
  keep: Keep,
  changes: readonly KeyRecord[] = [],
): void {
  const body = lines.map((line) => (typeof line === 'string' || Buffer.isBuffer(line) ? line : recordLine(line)));
  const bodyBytes = body.reduce((sum, line) => sum + Buffer.byteLength(line), 0);
  writeFileAtomic(path, [settledHeader(replaces, body.length, bodyBytes), ...body, ...changes.map(recordLine)], keep);
}

/** The header line of a new file (a new name) of `records` lines, `bodyBytes` long after the header. */
export function settledHeader(replaces: KeysHeader['replaces'], records: number, bodyBytes: number): string {
  const file = randomBytes(8).toString('hex');
  // The header says where the body ends, which its own length moves: settle it (twice at most).
  let header = '';
  for (let headerBytes = 0; ; headerBytes = Buffer.byteLength(header)) {
    header = headerLine({ format: KEYS_FORMAT, file, replaces, records, end: headerBytes + bodyBytes });
    if (Buffer.byteLength(header) === headerBytes) return header;
  }
}

/**
 * A table over a format 2 file's bytes: a key is its last line, found from the end by the way
 * each line starts (its id); keys put are kept aside, in order, to be appended.
 */
function fileTable(path: string, bytes: Buffer): KeyTable & { pending: Map<string, KeyRecord> } {
  const pending = new Map<string, KeyRecord>();
  const byId = (id: string): KeyRecord | undefined => {
    const found = pending.get(id);
    if (found) return found;
    const start = Buffer.from(lineStart(id));
    for (let at = bytes.lastIndexOf(start); at > 0; at = bytes.lastIndexOf(start, at - 1)) {
      const end = bytes.indexOf(NEWLINE, at);
      if (bytes[at - 1] !== NEWLINE || end === -1) continue; // not a line's start, or a line never finished
      return parseRecordLine(path, bytes.toString('utf8', at, end), lineNumber(bytes, at));
    }
    return undefined;
  };
  return { pending, byId, put: (record) => pending.set(record.id, record), freshId: (draw) => firstFree(byId, draw) };
}

/** The number (from 1) of the line starting at `at`. */
function lineNumber(bytes: Buffer, at: number): number {
  return countLines(bytes, 0, at) + 1;
}

/** Load, change and save the store under the lock (waiting for it up to `lockWaitMs`, else the lock's default). */
export function updateKeys<T>(stateDir: string, change: KeyChange<T>, lockWaitMs?: number): T {
  return withStoreLock(
    stateDir,
    (keep) => {
      const path = keysPath(stateDir);
      let fd: number;
      try {
        fd = openSync(path, 'r+');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unreadable('read', path, error);
        return rewritten(path, null, change, keep);
      }
      try {
        const stats = fstatSync(fd);
        const bytes = readBytes(fd, path, 0, stats.size);
        const header = headerAt(path, bytes);
        if (header === null) return rewritten(path, { file: null, ino: stats.ino, size: stats.size }, change, keep);
        return appended(fd, path, bytes, header, stats.ino, change, keep);
      } finally {
        closeSync(fd);
      }
    },
    lockWaitMs,
  );
}

/**
 * A new store, or one of format 1: read whole (when there is one), and written as format 2 with the
 * change after its keys.
 */
export function rewritten<T>(path: string, replaces: KeysHeader['replaces'], change: KeyChange<T>, keep: Keep): T {
  const records = readKeysFile(path)?.records ?? [];
  const table = listTable(records);
  const result = change(table);
  if (table.changed.length > 0) writeKeysFile(path, records, replaces, keep, table.changed);
  return result;
}

function appended<T>(
  fd: number,
  path: string,
  bytes: Buffer,
  header: KeysHeader,
  ino: number,
  change: KeyChange<T>,
  keep: Keep,
): T {
  const table = fileTable(path, bytes);
  const result = change(table);
  if (table.pending.size === 0) return result;
  // A line a crashed command left unfinished was never a change: it goes, and the change follows the last whole line.
  const end = bytes.lastIndexOf(NEWLINE) + 1;
  const lines = [...table.pending.values()].map(recordLine).join('');
  try {
    if (end < bytes.length) ftruncateSync(fd, end);
    const data = Buffer.from(lines);
    for (let written = 0; written < data.length;)
      written += writeSync(fd, data, written, data.length - written, end + written);
    fdatasyncSync(fd);
  } catch (error) {
    throw unreadable('write to', path, error);
  }
  const size = end + Buffer.byteLength(lines);
  // The lines after the header's records, the new ones included.
  const appendedLines = countLines(bytes, 0, end) - 1 - header.records + table.pending.size;
  if (appendedLines > Math.max(COMPACT_AFTER_LINES, header.records)) {
    try {
      compact(
        path,
        Buffer.concat([bytes.subarray(0, end), Buffer.from(lines)]),
        { file: header.file, ino, size },
        keep,
      );
    } catch {
      // The change is made and durable; a compaction that failed (a full disk, a line a hand
      // edit broke, which the server names) left the file as it was, and the next change tries again.
    }
  }
  return result;
}

/** Newlines in the bytes [from, to): the lines that end there. */
function countLines(bytes: Buffer, from: number, to: number): number {
  let n = 0;
  for (let nl = bytes.indexOf(NEWLINE, from); nl !== -1 && nl < to; nl = bytes.indexOf(NEWLINE, nl + 1)) n++;
  return n;
}

/**
 * Rewrite the file with each key's last line, in the order the keys were first written. Lines are
 * carried over as they are, told apart by how they start (the id), not parsed: a compaction
 * of 100,000 keys stays a fraction of a second.
 */
function compact(path: string, bytes: Buffer, replaces: NonNullable<KeysHeader['replaces']>, keep: Keep): void {
  const last = new Map<string, Buffer>();
  let line = 1;
  for (
    let start = bytes.indexOf(NEWLINE) + 1, end = bytes.indexOf(NEWLINE, start);
    end !== -1;
    start = end + 1, end = bytes.indexOf(NEWLINE, start)
  ) {
    line++;
    const text = bytes.subarray(start, end + 1);
    last.set(idOfLine(path, text, line), text);
  }
  writeKeysFile(path, [...last.values()], replaces, keep);
}

const ID_START = Buffer.from('{"id":"');
const ID_LENGTH = 'key_0123456789ab'.length;

/**
 * The id of a record line (its newline included or not), read from its start when it starts as this
 * code writes lines.
 */
export function idOfLine(path: string, text: Buffer, line: number): string {
  if (text.subarray(0, ID_START.length).equals(ID_START) && text[ID_START.length + ID_LENGTH] === 0x22)
    return text.toString('latin1', ID_START.length, ID_START.length + ID_LENGTH);
  return parseRecordLine(path, text.toString('utf8').trimEnd(), line).id; // a line written otherwise (by hand)
}
