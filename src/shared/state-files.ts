/**
 * Files in the private state folder (keys, quota counters): the folder is 0700, files 0600,
 * and every rewrite is atomic (temp file, fsync, rename, fsync the folder), so a crash leaves
 * either the old file or the new one, never a torn one.
 */
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fchownSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import type { FileOwner } from './file-owner.ts';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Create the state folder if needed and make sure only its owner can enter it. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if ((statSync(dir).mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(dir, PRIVATE_DIR_MODE);
}

/** fsync a folder (or file) by path: makes a rename or a new file in it durable. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Who a rewritten file belongs to, when not to the process writing it, and its mode when not 0600. */
export interface Keep {
  owner?: FileOwner | null;
  mode?: number;
}

/**
 * Replace a file atomically and durably, readable by its owner only (or as `keep` says: the new
 * file is given that owner and mode before the rename, so no reader ever meets it otherwise).
 */
export function writeFileAtomic(
  path: string,
  data: string | Buffer | Iterable<string | Buffer>,
  keep: Keep = {},
): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', PRIVATE_FILE_MODE);
  try {
    if (keep.owner) fchownSync(fd, keep.owner.uid, keep.owner.gid);
    if (keep.mode !== undefined) fchmodSync(fd, keep.mode);
    for (const part of typeof data === 'string' || Buffer.isBuffer(data) ? [data] : data) {
      const bytes = typeof part === 'string' ? Buffer.from(part) : part;
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    }
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}

/** fsync a folder by path without blocking the event loop. */
export async function fsyncDirAsync(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * `writeFileAtomic` without blocking the event loop: data given in parts is made and written a
 * part at a time (a large file never holds the loop for its whole length; parts an async
 * iterable makes may read between turns). The rename happens only if `stillWanted()` says so,
 * checked in the same turn as the rename (a newer writer may have gone first); false when it did
 * not happen. The new file is given `keep`'s owner and mode before the rename, as writeFileAtomic does.
 */
export async function writeFileAtomicAsync(
  path: string,
  data: string | Iterable<string | Buffer> | AsyncIterable<string | Buffer>,
  stillWanted: () => boolean = () => true,
  keep: Keep = {},
): Promise<boolean> {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(tmp, 'wx', PRIVATE_FILE_MODE);
  try {
    if (keep.owner) await handle.chown(keep.owner.uid, keep.owner.gid);
    if (keep.mode !== undefined) await handle.chmod(keep.mode);
    // from where the last part ended
    for await (const part of typeof data === 'string' ? [data] : data) await handle.writeFile(part);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(tmp, { force: true });
    throw error;
  }
  await handle.close();
  if (!stillWanted()) {
    await rm(tmp, { force: true });
    return false;
  }
  renameSync(tmp, path);
  await fsyncDirAsync(dirname(path));
  return true;
}
