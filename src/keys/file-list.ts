/**
 * A list of the state folder's keys for the admin listener, given in pieces between turns and
 * never held whole: the same keys, in the same order, as readKeysFileInTurns keeps (each id as its
 * last line says, where it was first written), but a piece at a time, for an answer sent as it is
 * made. Every key of 100,000 held for a list, and its answer made in one string, took the bundled
 * server to 248-251 MB resident and held its other requests 351-472 ms; in pieces, 148-151 MB and
 * 35-88 ms (scripts/bench/admin-scale.ts --only list_all, 3 runs each, a busy 2-core machine).
 *
 * Two reads of the file, as far as it was when opened (a change appended meanwhile is in the
 * next list). The first checks every line, as a whole read does, and keeps for each key, by its
 * id's number, only where its last line starts and its hash's first 52 bits: so anything wrong
 * with the file is known before the answer starts, and two keys holding the same hash are told
 * from it (should two differ only past those bits, the list is read whole instead, which tells).
 * The second gives each key at its first line, reading its last line there when another follows.
 */
import { performance } from 'node:perf_hooks';
import { closeSync } from 'node:fs';
import { invalidStore, parseRecordLine } from './file-format.ts';
import { openKeysFile, readBytes, stampOfOpen } from './file.ts';
import { linesOf, MAX_LINE_BYTES, recordsOf } from './file-lines.ts';
import { readKeysFileInTurns, READ_SLICE_MS } from './file-read.ts';
import { idNumber, idNumberOfLine } from './file-replaced.ts';
import { matchesFilter, type KeyFilter } from './record.ts';
import type { KeyRecord } from '../state/key-record.ts';
import { drainInTurns } from '../lib/drain.ts';

/**
 * The keys a filter lets through, a piece for every 256 lines of the file at most, a turn of the
 * event loop between slices.
 */
export type KeyPieces = AsyncGenerator<KeyRecord[], void, undefined>;

/** Where each key's last line starts, and its hash's first bits, by the key's place in first-written order. */
interface LastLines {
  place: Map<number, number>;
  lastAt: number[];
}

/** A hash's first 13 hex digits: 52 bits, exact in a double. */
const hashBits = (hash: string): number => parseInt(hash.slice(0, 13), 16);

/** Marks a key already given in `lastAt`. */
const GIVEN = -1;

/**
 * The keys `filter` lets through (all of them without one), in pieces; null when there is no
 * key file yet. Throws, before the first piece, what a whole read would (KeyStoreError naming the
 * file and line). The file stays open until the last piece is taken or the pieces are returned:
 * whoever is given them takes them (the listener sends them all, or stops when its client goes).
 */
export async function keyPiecesInTurns(
  path: string,
  filter: KeyFilter = {},
  sliceMs = READ_SLICE_MS,
): Promise<KeyPieces | null> {
  const fd = openKeysFile(path);
  if (fd === null) return null;
  let handedOver = false;
  try {
    const size = stampOfOpen(fd, path).size;
    const last: LastLines = { place: new Map(), lastAt: [] };
    const hashes: number[] = [];
    const read = await drainInTurns(
      recordsOf(fd, path, size),
      ([record, , at]) => {
        const n = idNumber(record.id);
        let i = last.place.get(n);
        if (i === undefined) {
          i = last.lastAt.push(at) - 1;
          last.place.set(n, i);
        } else last.lastAt[i] = at;
        hashes[i] = hashBits(record.hash);
      },
      sliceMs,
    );
    // Format 1 is one JSON object, read whole once (its first change rewrites it); and two keys
    // whose hashes begin alike are left to the whole read, which compares them in full.
    if (read.header === null || new Set(hashes).size !== hashes.length) return wholeList(path, filter);
    hashes.length = 0;
    handedOver = true;
    return pieces(fd, path, read.end, last, filter, sliceMs);
  } finally {
    if (!handedOver) closeSync(fd);
  }
}

/** The old way, in one piece: every key the filter lets through held at once. */
async function wholeList(path: string, filter: KeyFilter): Promise<KeyPieces | null> {
  const stored = await readKeysFileInTurns(path, filter);
  if (stored === null) return null;
  return (async function* () {
    yield stored.records;
  })();
}

/** The second read: each key at its first line, as its last line says. */
async function* pieces(
  fd: number,
  path: string,
  end: number,
  last: LastLines,
  filter: KeyFilter,
  sliceMs: number,
): KeyPieces {
  try {
    let piece: KeyRecord[] = [];
    let since = performance.now();
    let lines = 0;
    for (const [text, at] of iterate(linesOf(fd, path, 0, end))) {
      lines++;
      const n = at === 0 ? null : idNumberOfLine(text);
      const i = n === null ? undefined : last.place.get(n);
      if (i !== undefined && last.lastAt[i] !== GIVEN) {
        const lastAt = last.lastAt[i];
        last.lastAt[i] = GIVEN;
        const record = parseRecordLine(path, lastAt === at ? text : lineAt(fd, path, lastAt, end), lines);
        if (matchesFilter(record, filter)) piece.push(record);
      }
      // A piece every 256 lines, and the clock read then, as drainInTurns does: what is made of a
      // piece (its JSON, written) is made in the same slice, so a slice is the whole turn's work.
      // A piece a slice held the server's other requests the slice and 4-12 ms more while its
      // JSON was made (in-process at 100,000 keys); the second read's longest turns are 14-16 ms now.
      if ((lines & 255) === 0) {
        if (piece.length > 0) yield piece;
        piece = [];
        if (performance.now() - since >= sliceMs) {
          await new Promise((resolve) => setImmediate(resolve));
          since = performance.now();
        }
      }
    }
    if (piece.length > 0) yield piece;
  } finally {
    closeSync(fd);
  }
}

/** The values of a generator, its return value aside. */
function* iterate<T>(values: Generator<T, unknown>): Generator<T, void> {
  for (let next = values.next(); !next.done; next = values.next()) yield next.value;
}

/** The whole line that starts at `at` (the first read found it complete before `end`). */
function lineAt(fd: number, path: string, at: number, end: number): string {
  for (let length = 4096; ; length *= 2) {
    const bytes = readBytes(fd, path, at, Math.min(length, end - at));
    const nl = bytes.indexOf(10);
    if (nl !== -1) return bytes.subarray(0, nl).toString('utf8');
    if (length > MAX_LINE_BYTES || at + bytes.length >= end)
      throw invalidStore(path, `the line at byte ${at} is no longer where it was`);
  }
}
