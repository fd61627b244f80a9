/**
 * Looking through `keys.json` for a server's change (file-change.ts) without reading it whole:
 * a key's last line is looked for from the file's end, a chunk at a time, each chunk read off
 * the event loop and searched in a turn of its own. A chunk of 1 MB is searched for one id in
 * about 0.3 ms; the whole file at 100,000 keys (27 MB) read and searched in one piece held the
 * loop 30-45 ms, and the keys command's way of changing a key, 125 ms.
 */
import type { FileHandle } from 'node:fs/promises';
import { lineStart } from './file-format.ts';
import { unreadable } from './file.ts';

const NEWLINE = 10;
const CHUNK_BYTES = 1 << 20;
/** Where the last line ends is found in the file's last bytes: a line is some hundreds of bytes. */
const TAIL_BYTES = 1 << 16;
/** Longer lines than this are refused (as file-lines.ts does): a record is some hundreds of bytes. */
const MAX_LINE_BYTES = 1 << 20;

/** `length` bytes of the file from `position` (fewer where it ends), read off the event loop. */
export function readAt(file: FileHandle, path: string, position: number, length: number): Promise<Buffer> {
  return readInto(file, path, Buffer.allocUnsafe(length), position, length);
}

/** The same into the start of `buffer`: the bytes read, as a part of it. */
export async function readInto(
  file: FileHandle,
  path: string,
  buffer: Buffer,
  position: number,
  length: number,
): Promise<Buffer> {
  let read = 0;
  try {
    for (let n = -1; read < length && n !== 0; read += n)
      n = (await file.read(buffer, read, length - read, position + read)).bytesRead;
  } catch (error) {
    throw unreadable('read', path, error);
  }
  return buffer.subarray(0, read);
}

/**
 * The buffer the last search read its chunks into, kept for the next: a server's changes run one
 * at a time (store-lock.ts), and a buffer of their own made 100 admin revokes at 100,000 keys
 * peak at 164 MB resident, as the collector let the dead buffers pile up outside the heap.
 */
let spare: Buffer | null = null;

/**
 * The bytes [from, to) a chunk at a time, from the end: each chunk starts one byte early (so a
 * line's start can be told by the newline before it) and runs `overlap` bytes past its own end
 * (so a pattern of `overlap + 1` bytes that a chunk boundary cuts is found whole). `lo` is where
 * the chunk's own bytes begin in the file: `bytes[0]` is the byte at `lo - 1`, so `from` is at
 * least 1 (the header line's first byte is never a line's end or start). A chunk's bytes are
 * good until the next one is asked for: every chunk is read into the same buffer.
 */
async function* chunksFromEnd(
  file: FileHandle,
  path: string,
  from: number,
  to: number,
  overlap: number,
  chunkBytes = CHUNK_BYTES,
): AsyncGenerator<{ lo: number; bytes: Buffer }> {
  if (from < 1) throw new RangeError('chunks start after the first byte');
  const size = chunkBytes + 1 + overlap;
  const pooled = chunkBytes === CHUNK_BYTES;
  const buffer = pooled && spare !== null && spare.length >= size ? spare : Buffer.allocUnsafe(size);
  if (pooled) spare = null;
  try {
    for (let hi = to; hi > from;) {
      const lo = Math.max(from, hi - chunkBytes);
      yield { lo, bytes: await readInto(file, path, buffer, lo - 1, Math.min(to, hi + overlap) - (lo - 1)) };
      hi = lo;
    }
  } finally {
    if (pooled) spare = buffer;
  }
}

/** Where the file's last whole line ends, searching [from, size) from its end: `from` when no line there is whole. */
export async function wholeLinesEnd(file: FileHandle, path: string, from: number, size: number): Promise<number> {
  for await (const { lo, bytes } of chunksFromEnd(file, path, from, size, 0, TAIL_BYTES)) {
    // A newline at index 0 is the next chunk's last byte.
    const nl = bytes.lastIndexOf(NEWLINE);
    if (nl >= 1) return lo + nl;
  }
  return from;
}

/**
 * The last line of each id in the whole lines [from, end), as text without its newline, and where
 * it starts; ids with none are not in the map. A line is an id's when it starts as record lines
 * start (`{"id":"key_…",`, file-format.ts) right after a newline: a newline never occurs inside a
 * JSON line, so nothing else looks so. The search stops once every id is found. (`chunkBytes`:
 * a test cuts the file in many places.)
 */
export async function lastLinesOf(
  file: FileHandle,
  path: string,
  ids: Iterable<string>,
  from: number,
  end: number,
  chunkBytes = CHUNK_BYTES,
): Promise<Map<string, { at: number; text: string }>> {
  const wanted = new Map([...ids].map((id) => [id, Buffer.from(lineStart(id))]));
  const found = new Map<string, { at: number; text: string }>();
  if (wanted.size === 0) return found;
  const overlap = Math.max(...[...wanted.values()].map((start) => start.length)) - 1;
  for await (const { lo, bytes } of chunksFromEnd(file, path, from, end, overlap, chunkBytes)) {
    for (const [id, start] of wanted) {
      // Index 0 is the byte before the chunk: a match there is the next chunk's to judge.
      for (let i = bytes.lastIndexOf(start); i >= 1; i = bytes.lastIndexOf(start, i - 1)) {
        if (bytes[i - 1] !== NEWLINE) continue;
        const at = lo - 1 + i;
        found.set(id, { at, text: await lineAt(file, path, at, bytes, i) });
        wanted.delete(id);
        break;
      }
    }
    if (wanted.size === 0) break;
    await turn();
  }
  return found;
}

/** The line starting at `at` (at `i` in `bytes`), read on when the chunk holds only its start. */
async function lineAt(file: FileHandle, path: string, at: number, bytes: Buffer, i: number): Promise<string> {
  const nl = bytes.indexOf(NEWLINE, i);
  if (nl !== -1) return bytes.toString('utf8', i, nl);
  for (let length = 4096; length <= 2 * MAX_LINE_BYTES; length *= 2) {
    const more = await readAt(file, path, at, length);
    const end = more.indexOf(NEWLINE);
    if (end !== -1) return more.toString('utf8', 0, end);
    if (more.length < length) break; // the file ends first: the line was never finished
  }
  throw unreadable('read', path, new Error(`no whole line at byte ${at}`));
}

/** The newlines in [from, to) (`from` at least 1): the number of lines that end there. Counted a chunk a turn. */
export async function linesIn(file: FileHandle, path: string, from: number, to: number): Promise<number> {
  let lines = 0;
  for await (const { bytes } of chunksFromEnd(file, path, from, to, 0)) {
    for (let nl = bytes.indexOf(NEWLINE, 1); nl !== -1; nl = bytes.indexOf(NEWLINE, nl + 1)) lines++;
    await turn();
  }
  return lines;
}

/** Let the event loop take a turn: the server's other requests are answered between chunks. */
export function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
