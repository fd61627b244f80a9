/**
 * Which record lines of a whole read of `keys.json` a later line of the same key replaces, for
 * the server's index (file-follow.ts), which then never holds them. Read whole at start, a file with a
 * change line for each of its 100,000 keys (as many as a file holds before it is compacted) took
 * the bundled server to 153 MB resident, where a compacted one took it to 125-128: every
 * replaced record had lived long enough to be moved to the old generation before its
 * replacement came. Told apart first, 130-131 MB (scripts/bench/admin-scale.ts, group compaction).
 *
 * Only the lines after the header's `end` (the changes since the file was written) are read
 * first, and counted by key; a key is known there by its id's number (`key_` and 12 hex digits),
 * so no string of theirs is held. Whatever the header says, a key's last line is never passed
 * over: a line before `end` is passed over only when a line of its key starts after it, and of
 * the lines from `end` on all but the last one counted.
 */
import { readLines } from './file-lines.ts';
import type { KeysHeader } from './file-format.ts';

/** A record id's number: `key_` and 12 hex digits, 48 bits, exact in a double. */
export const idNumber = (id: string): number => parseInt(id.slice(4), 16);

/**
 * The id's number of a line as this code writes lines (its id first), else as JSON reads it; null
 * for a line that is neither (the read names it).
 */
export function idNumberOfLine(text: string): number | null {
  if (text.startsWith('{"id":"key_') && text[23] === '"') return idNumber(text.slice(7, 23));
  try {
    const id = (JSON.parse(text) as { id?: unknown }).id;
    return typeof id === 'string' && /^key_[0-9a-f]{12}$/.test(id) ? idNumber(id) : null;
  } catch {
    return null;
  }
}

/**
 * A test for the records a whole read of the file gives, in order: true for one a later line of
 * its key replaces. To be asked once for each record line, from the file's start, with where it
 * starts.
 */
export function replacedLines(
  fd: number,
  path: string,
  header: KeysHeader | null,
  size: number,
): (id: string, at: number) => boolean {
  if (header === null || header.end >= size) return () => false;
  const later = new Map<number, number>();
  readLines(fd, path, header.end, size, (text) => {
    const id = idNumberOfLine(text);
    if (id !== null) later.set(id, (later.get(id) ?? 0) + 1);
  });
  return (id, at) => {
    const n = idNumber(id);
    const count = later.get(n);
    if (count === undefined) return false;
    if (at < header.end) return true;
    if (count === 1) return false;
    later.set(n, count - 1);
    return true;
  };
}
