/**
 * The compaction of `keys.json` a server's change makes now and then (file-change.ts), in turns:
 * the same file as the keys command's (file-append.ts: each key's last line, in the order the keys
 * were first written, the header naming the file it replaces), without the file in memory or a
 * turn longer than a piece of it. The keys command's way reads the file whole and keeps a line
 * for every key: at 100,000 keys and as many changes (54 MB), made by the server, it held every
 * request 0.61-0.71 s and took it to 273-275 MB resident. Here only where the last line of each
 * key changed since the last compaction is kept, and the file is read in pieces of 64 KB into
 * one buffer, three times: the changes, the lines before them, then the new file written from
 * both; the longest wait 14-24 ms, 145-147 MB (scripts/bench/admin-scale.ts, group compaction).
 */
import type { FileHandle } from 'node:fs/promises';
import { readSync } from 'node:fs';
import type { KeysHeader } from './file-format.ts';
import { idOfLine, settledHeader } from './file-append.ts';
import { readInto, turn } from './file-search.ts';
import { writeFileAtomicAsync, type Keep } from '../shared/state-files.ts';

const NEWLINE = 10;
/**
 * Some 240 lines: a piece takes a turn of a few ms, most of it reading the changed keys' last lines
 * back one by one.
 */
const PIECE_BYTES = 1 << 16;

/**
 * [from, to) in pieces of whole lines: `bytes` ends with a newline and starts at `base` in the
 * file. Every piece is read into the same buffer, so its bytes are good until the next is asked for.
 */
async function* pieces(
  file: FileHandle,
  path: string,
  from: number,
  to: number,
): AsyncGenerator<{ base: number; bytes: Buffer }> {
  let buffer = Buffer.allocUnsafe(2 * PIECE_BYTES);
  let carried = 0;
  for (let position = from; position < to;) {
    // A line longer than a piece: room for it and the next piece.
    if (buffer.length - carried < PIECE_BYTES)
      buffer = Buffer.concat([buffer.subarray(0, carried)], carried + 2 * PIECE_BYTES);
    const read = (await readInto(file, path, buffer.subarray(carried), position, Math.min(PIECE_BYTES, to - position)))
      .length;
    if (read === 0) return;
    const filled = carried + read;
    const base = position - carried;
    position += read;
    const end = buffer.lastIndexOf(NEWLINE, filled - 1) + 1;
    if (end > 0) yield { base, bytes: buffer.subarray(0, end) };
    buffer.copy(buffer, 0, end, filled);
    carried = filled - end;
  }
}

/** Each line of a piece, without its newline: where it starts in the piece and where it ends. */
function eachLine(bytes: Buffer, line: (start: number, end: number) => void): void {
  for (let start = 0, nl = bytes.indexOf(NEWLINE); nl !== -1; start = nl + 1, nl = bytes.indexOf(NEWLINE, start))
    line(start, nl);
}

/**
 * Where a changed key's last line is (newline included), and whether a line of it comes before the
 * changes (else it is written after them, in the order of its first line).
 */
interface Changed {
  at: number;
  bytes: number;
  earlier: boolean;
}

/**
 * Compact [from, end) (`from`: where the header line ends) into a new file: the lines up to the
 * header's `end` as they are, each changed key's replaced by its last line, then the keys the
 * changes added. `replaces` names the file as it stands now. Throws when it cannot (the file
 * is left as it was).
 */
export async function compactInTurns(
  file: FileHandle,
  path: string,
  header: KeysHeader,
  from: number,
  end: number,
  replaces: NonNullable<KeysHeader['replaces']>,
  keep: Keep,
): Promise<void> {
  const recordsEnd = Math.min(Math.max(from, header.end), end);
  // The changes since the last compaction: each key's last line among them.
  const changed = new Map<string, Changed>();
  let line = header.records + 1;
  for await (const { base, bytes } of pieces(file, path, recordsEnd, end)) {
    eachLine(bytes, (start, nl) => {
      const id = idOfLine(path, bytes.subarray(start, nl), ++line);
      const last = changed.get(id);
      if (last) Object.assign(last, { at: base + start, bytes: nl - start + 1 });
      else changed.set(id, { at: base + start, bytes: nl - start + 1, earlier: false });
    });
  }
  // The lines before them: how many, how long the new file made of them is, which keys they hold.
  let records = 0;
  let bodyBytes = 0;
  line = 1;
  for await (const { bytes } of pieces(file, path, from, recordsEnd)) {
    eachLine(bytes, (start, nl) => {
      const last = changed.get(idOfLine(path, bytes.subarray(start, nl), ++line));
      if (last) last.earlier = true;
      records++;
      bodyBytes += last ? last.bytes : nl - start + 1;
    });
  }
  let counted = 0;
  for (const last of changed.values()) {
    if (++counted % 4096 === 0) await turn();
    if (last.earlier) continue;
    records++;
    bodyBytes += last.bytes;
  }
  await writeFileAtomicAsync(
    path,
    newFile(file, path, settledHeader(replaces, records, bodyBytes), from, recordsEnd, changed),
    () => true,
    keep,
  );
}

/** The new file's bytes, a piece at a time, made in one buffer: each is written before the next is made. */
async function* newFile(
  file: FileHandle,
  path: string,
  header: string,
  from: number,
  recordsEnd: number,
  changed: Map<string, Changed>,
): AsyncGenerator<Buffer> {
  yield Buffer.from(header);
  let out = Buffer.allocUnsafe(2 * PIECE_BYTES);
  let used = 0;
  /** Room for `bytes` more, once what is made is written (`flush`): false when there is room already. */
  const full = (bytes: number) => used + bytes > out.length;
  // A changed key's last line: some hundred bytes the page cache holds, read at once.
  const copyLast = (last: Changed) => {
    if (last.bytes > out.length) out = Buffer.allocUnsafe(2 * last.bytes);
    used += readSync(file.fd, out, used, last.bytes, last.at);
  };
  for await (const { bytes } of pieces(file, path, from, recordsEnd)) {
    const lines: [number, number][] = [];
    eachLine(bytes, (start, nl) => void lines.push([start, nl]));
    for (const [start, nl] of lines) {
      const last = changed.get(idOfLine(path, bytes.subarray(start, nl), 0));
      const length = last ? last.bytes : nl - start + 1;
      if (full(length)) {
        yield out.subarray(0, used);
        used = 0;
      }
      if (last) copyLast(last);
      else used += bytes.copy(out.length >= length ? out : (out = Buffer.allocUnsafe(2 * length)), used, start, nl + 1);
    }
  }
  for (const last of changed.values()) {
    if (last.earlier) continue;
    if (full(last.bytes)) {
      yield out.subarray(0, used);
      used = 0;
    }
    copyLast(last);
  }
  yield out.subarray(0, used);
}
