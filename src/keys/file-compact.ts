/**
 * The compaction of `keys.json` a server's change makes now and then (file-change.ts), in turns:
 * the same file as the keys command's (file-append.ts: each key's last line, in the order the keys
 * were first written, the header naming the file it replaces), without the whole file in memory
 * or a turn longer than a chunk. At 100,000 keys the keys command's way reads 27 MB in one piece
 * and keeps a line for every key; here only the keys changed since the last compaction are kept
 * (where their last line is), their lines read back one by one as they are written out.
 */
import type { FileHandle } from 'node:fs/promises';
import { readSync } from 'node:fs';
import type { KeysHeader } from './file-format.ts';
import { idOfLine, settledHeader } from './file-append.ts';
import { readAt, turn } from './file-search.ts';
import { writeFileAtomicAsync, type Keep } from '../shared/state-files.ts';

const NEWLINE = 10;
const CHUNK_BYTES = 1 << 20;
const LINE_END = Buffer.from('\n');

/** The whole lines of [from, to) in order (each without its newline, with where it starts), a chunk's worth at a time. */
async function* linesForward(file: FileHandle, path: string, from: number, to: number): AsyncGenerator<{ at: number; line: Buffer }[]> {
  let carried = Buffer.alloc(0);
  for (let position = from; position < to; ) {
    const read = await readAt(file, path, position, Math.min(CHUNK_BYTES, to - position));
    if (read.length === 0) return;
    const bytes = carried.length > 0 ? Buffer.concat([carried, read]) : read;
    const base = position - carried.length;
    const lines: { at: number; line: Buffer }[] = [];
    let start = 0;
    for (let nl = bytes.indexOf(NEWLINE); nl !== -1; nl = bytes.indexOf(NEWLINE, start)) {
      lines.push({ at: base + start, line: bytes.subarray(start, nl) });
      start = nl + 1;
    }
    carried = Buffer.from(bytes.subarray(start));
    position += read.length;
    yield lines;
  }
}

/** Where a changed key's last line is, and whether a line of it comes before the changes (else it is written after them, in the order of its first line). */
interface Changed {
  at: number;
  length: number;
  earlier: boolean;
}

/**
 * Compact [from, end) (`from`: where the header line ends) into a new file: the lines up to the
 * header's `end` as they are, each changed key's replaced by its last line, then the keys the
 * changes added. `replaces` names the file as it stands now. Throws when it cannot (the file
 * is left as it was).
 */
export async function compactInTurns(file: FileHandle, path: string, header: KeysHeader, from: number, end: number, replaces: NonNullable<KeysHeader['replaces']>, keep: Keep): Promise<void> {
  const recordsEnd = Math.min(Math.max(from, header.end), end);
  // The changes since the last compaction: each key's last line among them.
  const changed = new Map<string, Changed>();
  let line = header.records + 1;
  for await (const lines of linesForward(file, path, recordsEnd, end)) {
    for (const { at, line: text } of lines) {
      const id = idOfLine(path, text, ++line);
      const seen = changed.get(id);
      if (seen) Object.assign(seen, { at, length: text.length });
      else changed.set(id, { at, length: text.length, earlier: false });
    }
  }
  // The lines before them: how many, how long the file made of them will be, which keys they hold.
  let records = 0;
  let bodyBytes = 0;
  line = 1;
  for await (const lines of linesForward(file, path, from, recordsEnd)) {
    for (const { line: text } of lines) {
      const last = changed.get(idOfLine(path, text, ++line));
      if (last) last.earlier = true;
      records++;
      bodyBytes += (last ? last.length : text.length) + 1;
    }
  }
  for (const last of changed.values()) {
    if (last.earlier) continue;
    records++;
    bodyBytes += last.length + 1;
  }
  const lastLine = (last: Changed) => {
    const bytes = Buffer.allocUnsafe(last.length + 1);
    readSync(file.fd, bytes, 0, last.length + 1, last.at); // some hundred bytes the page cache holds: read at once
    return bytes;
  };
  async function* body(): AsyncGenerator<Buffer> {
    yield Buffer.from(settledHeader(replaces, records, bodyBytes));
    for await (const lines of linesForward(file, path, from, recordsEnd)) {
      const parts: Buffer[] = [];
      for (const { line: text } of lines) {
        const last = changed.get(idOfLine(path, text, 0));
        if (last) parts.push(lastLine(last));
        else parts.push(text, LINE_END);
      }
      yield Buffer.concat(parts);
    }
    let part: Buffer[] = [];
    for (const last of changed.values()) {
      if (last.earlier) continue;
      part.push(lastLine(last));
      if (part.length === 1000) {
        yield Buffer.concat(part);
        part = [];
        await turn();
      }
    }
    yield Buffer.concat(part);
  }
  await writeFileAtomicAsync(path, body(), () => true, keep);
}
