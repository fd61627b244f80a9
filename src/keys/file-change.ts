/**
 * A server's changes to `keys.json` (its admin listener's): the keys command's change
 * (file-append.ts), the key's new line appended under the store's lock, made without holding the
 * event loop. The keys command reads the file's bytes whole to find a key's line, which in its
 * own process costs no one else anything; in the server's, at 100,000 keys (27 MB), it held every
 * request some 125 ms a change, and 100 admin revokes, 10 at a time, held a request up to
 * 0.82-1.01 s; this way, 12-40 ms (scripts/bench/admin-scale.ts). Here the keys a change reads
 * are found by their ids' last lines, looked for from the file's end a chunk a turn
 * (file-search.ts), the line is written and made durable off the loop, and the compaction that
 * comes now and then is made in turns (file-compact.ts).
 *
 * A change reads the keys it reads through its table (changes.ts), at once, so it is run against
 * the keys looked up so far; when it asks for one not looked up yet, that one is looked for in the
 * file and the change is run again from the start (a change touches nothing but its table, and a
 * new key's id is drawn again as before: KeyTable.freshId). A revoke runs twice, a create twice
 * (its new id must be nobody's: the whole file is searched for it).
 */
import type { Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { COMPACT_AFTER_LINES, rewritten } from './file-append.ts';
import { compactInTurns } from './file-compact.ts';
import { headerAt, parseRecordLine, recordLine, type KeysHeader } from './file-format.ts';
import { lastLinesOf, linesIn, readAt, wholeLinesEnd } from './file-search.ts';
import { unreadable } from './file.ts';
import { KeyStoreError, keysPath } from './record.ts';
import type { KeyRecord } from '../state/key-record.ts';
import { withStoreLockInTurns } from './store-lock.ts';
import { runLookingUp, type KeyChange } from './table.ts';
import type { Keep } from '../shared/state-files.ts';

const NEWLINE = 10;
/** The header line is well within this (some 150 bytes). */
const HEADER_BYTES = 4096;
/** No record line is shorter: its id and hash take 100 bytes, the names of its other fields more. */
const MIN_RECORD_LINE_BYTES = 128;

/** Apply `change` to the state folder's keys under its lock, in turns; what the change returns. */
export function changeKeysInTurns<T>(stateDir: string, change: KeyChange<T>): Promise<T> {
  return withStoreLockInTurns(stateDir, async (keep) => {
    const path = keysPath(stateDir);
    let file: FileHandle;
    try {
      file = await open(path, 'r+');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unreadable('read', path, error);
      return rewritten(path, null, change, keep); // a new store: nothing to read
    }
    try {
      return await appendedInTurns(file, path, change, keep);
    } finally {
      await file.close();
    }
  });
}

/**
 * Where an open key file stands: its header (null for format 1), where its records start, where its
 * whole lines end.
 */
async function layoutOf(
  file: FileHandle,
  path: string,
): Promise<{ stats: Stats; header: KeysHeader | null; from: number; end: number }> {
  let stats: Stats;
  try {
    stats = await file.stat();
  } catch (error) {
    throw unreadable('read', path, error);
  }
  const head = await readAt(file, path, 0, Math.min(stats.size, HEADER_BYTES));
  const header = headerAt(path, head);
  if (header === null) return { stats, header, from: 0, end: stats.size };
  const from = head.indexOf(NEWLINE) + 1;
  return { stats, header, from, end: await wholeLinesEnd(file, path, from, stats.size) };
}

async function appendedInTurns<T>(file: FileHandle, path: string, change: KeyChange<T>, keep: Keep): Promise<T> {
  const { stats, header, from, end } = await layoutOf(file, path);
  // Format 1, written by earlier versions, is read whole and rewritten as format 2, once.
  if (header === null) return rewritten(path, { file: null, ino: stats.ino, size: stats.size }, change, keep);
  // A line a crashed command left unfinished was never a change: it goes, and the change follows the last whole line.
  const { result, pending } = await runLookingUpInFile(file, path, from, end, change);
  if (pending.size === 0) return result;
  const lines = Buffer.from([...pending.values()].map(recordLine).join(''));
  try {
    if (end < stats.size) await file.truncate(end);
    for (let written = 0; written < lines.length;)
      written += (await file.write(lines, written, lines.length - written, end + written)).bytesWritten;
    await file.datasync();
  } catch (error) {
    throw unreadable('write to', path, error);
  }
  const size = end + lines.length;
  if (await compactionDue(file, path, header, end, pending.size)) {
    // The change is made and durable; a compaction that failed (a full disk, a line a hand
    // edit broke, which the server names) left the file as it was, and the next change tries again.
    await compactInTurns(file, path, header, from, size, { file: header.file, ino: stats.ino, size }, keep).catch(
      () => {},
    );
  }
  return result;
}

/**
 * One key as its last line says, found as a change finds it, without the lock (it writes nothing,
 * and reads no further than the whole lines there when it looked): null when no key has the id,
 * undefined when there is no format 2 file to look in (none yet, or format 1: read it whole).
 */
export async function keyInTurns(path: string, id: string): Promise<KeyRecord | null | undefined> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable('read', path, error);
  }
  try {
    const { header, from, end } = await layoutOf(file, path);
    if (header === null) return undefined;
    const line = (await lastLinesOf(file, path, [id], from, end)).get(id);
    return line ? await parsedLine(file, path, line) : null;
  } finally {
    await file.close();
  }
}

/**
 * Run the change until every key it reads has been looked up in [from, end); what it returned, and
 * the records it put.
 */
function runLookingUpInFile<T>(file: FileHandle, path: string, from: number, end: number, change: KeyChange<T>) {
  return runLookingUp(change, async (ids) => {
    const lines = await lastLinesOf(file, path, ids, from, end);
    const found = new Map<string, KeyRecord | null>();
    for (const id of ids) {
      const line = lines.get(id);
      found.set(id, line ? await parsedLine(file, path, line) : null);
    }
    return found;
  });
}

/** A record line, checked; one that is not valid is named by its number, counted only then. */
async function parsedLine(
  file: FileHandle,
  path: string,
  { at, text }: { at: number; text: string },
): Promise<KeyRecord> {
  try {
    return parseRecordLine(path, text, 0);
  } catch (error) {
    if (!(error instanceof KeyStoreError)) throw error;
    return parseRecordLine(path, text, (await linesIn(file, path, 1, at)) + 1);
  }
}

/**
 * Whether the lines appended since the last compaction (`added` of them just now) outnumber the
 * records and COMPACT_AFTER_LINES, as the keys command decides. They are counted only when they
 * could: no line is shorter than MIN_RECORD_LINE_BYTES, so fewer bytes than that many lines take
 * cannot hold them.
 */
async function compactionDue(
  file: FileHandle,
  path: string,
  header: KeysHeader,
  end: number,
  added: number,
): Promise<boolean> {
  const threshold = Math.max(COMPACT_AFTER_LINES, header.records);
  const appendedBytes = Math.max(0, end - header.end);
  if (appendedBytes / MIN_RECORD_LINE_BYTES + added <= threshold) return false;
  return (await linesIn(file, path, Math.max(1, Math.min(header.end, end)), end)) + added > threshold;
}
