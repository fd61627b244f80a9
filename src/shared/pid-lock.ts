/**
 * A lock file that names its holder's pid, for tools that change shared files (a build, the
 * keys command). A lock whose holder has died is taken over, so a crash never leaves the next
 * run stuck behind a stale file.
 */
import { closeSync, fchownSync, openSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import type { FileOwner } from './file-owner.ts';

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Take the lock at `path`: a release function, or `{ holder }` naming the live process that
 * holds it. A lock left by a dead process (or with no pid in it yet written by one that died
 * at once) is removed and taken. With `owner` the lock is given to that user (a command run as
 * root on a folder another user owns leaves nothing behind that user could not read).
 */
export function takePidLock(path: string, mode = 0o600, owner: FileOwner | null = null): (() => void) | { holder: string } {
  let fd: number;
  try {
    fd = openSync(path, 'wx', mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    let holder = '';
    try {
      holder = readFileSync(path, 'utf8').trim();
    } catch (readError) {
      if ((readError as NodeJS.ErrnoException).code === 'ENOENT') return takePidLock(path, mode, owner); // released meanwhile
      throw readError;
    }
    if (holder && !isAlive(Number(holder))) {
      unlinkSync(path);
      return takePidLock(path, mode, owner);
    }
    return { holder: holder || 'unknown' };
  }
  try {
    if (owner) fchownSync(fd, owner.uid, owner.gid);
    writeSync(fd, String(process.pid));
  } catch (error) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw error;
  }
  closeSync(fd);
  return () => rmSync(path, { force: true });
}
