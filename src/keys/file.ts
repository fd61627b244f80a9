/**
 * The key store on disk, `keys.json` in the private state folder (its format: file-format.ts):
 * opening it, its stamp, and its bytes, where a failed read is the file unreadable, worth another
 * try. Its lines and records are read by file-lines.ts, the whole store by file-read.ts; the lock
 * that keeps two changes from losing each other's is store-lock.ts.
 */
import { fstatSync, openSync, type Stats } from 'node:fs';
import { KeyStoreError } from './record.ts';
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

/** `length` bytes from `position` (fewer when the file is shorter now); a failed read is the file unreadable. */
export function readBytes(fd: number, path: string, position: number, length: number): Buffer {
  try {
    return readRangeSync(fd, position, length);
  } catch (error) {
    throw unreadable('read', path, error);
  }
}

export function stampOfOpen(fd: number, path: string): FileStamp {
  try {
    return stampOf(fstatSync(fd)) as FileStamp;
  } catch (error) {
    throw unreadable('read', path, error);
  }
}
