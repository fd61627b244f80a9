/**
 * A lock file that names its holder's pid, for what changes shared files (a build, the keys
 * command, a server's state folder). A lock whose holder has died is taken over, so a crash never
 * leaves the next run stuck behind a stale file. Where /proc is readable (Linux) the lock also
 * names when its holder started: a pid the system has since given to another process (a
 * container restarted after kill -9, where the server is pid 1 again) is not taken for the holder.
 */
import { closeSync, fchownSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
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

/** When a process started, in clock ticks since boot (/proc/PID/stat's 22nd field); null where it cannot be read. */
export function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's ")" (which may itself hold spaces and parentheses): field 3 onward.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether the lock's text ("PID" or "PID STARTTIME") names a process still running: the same pid,
 * started at the same time when that is known.
 */
export function holderRunning(text: string): boolean {
  const [pid, started] = text.split(' ');
  if (!isAlive(Number(pid))) return false;
  if (!started) return true;
  const now = startTimeOf(Number(pid));
  return now === null || now === started;
}

/**
 * How old an empty lock must be before it is taken over. A taker writes its pid a few
 * microseconds after creating the file, so an empty lock older than this was left by one that
 * died in between (or by a write a crash of the machine lost): without the takeover, a server
 * under `Restart=always` would refuse to start for ever. Younger, it may be a live taker's.
 */
export const EMPTY_LOCK_GRACE_MS = 1000;

/** Whether the lock at `path`, found empty, is old enough to be a dead taker's; null when it is gone. */
function emptyAndStale(path: string, now: number): boolean | null {
  try {
    return Math.abs(now - statSync(path).mtimeMs) > EMPTY_LOCK_GRACE_MS;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Take the lock at `path`: a release function, or `{ holder }` naming the live process that
 * holds it. A lock left by a dead process, or empty for longer than EMPTY_LOCK_GRACE_MS (its
 * taker died before writing its pid), is removed and taken. With `owner` the lock is given to
 * that user (a command run as root on a folder another user owns leaves nothing behind that
 * user could not read). `now` is the wall clock an empty lock's age is read against.
 */
export function takePidLock(
  path: string,
  mode = 0o600,
  owner: FileOwner | null = null,
  now: () => number = Date.now,
): (() => void) | { holder: string } {
  let fd: number;
  try {
    fd = openSync(path, 'wx', mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    let holder = '';
    try {
      holder = readFileSync(path, 'utf8').trim();
    } catch (readError) {
      // released meanwhile
      if ((readError as NodeJS.ErrnoException).code === 'ENOENT') return takePidLock(path, mode, owner, now);
      throw readError;
    }
    const stale = holder ? !holderRunning(holder) : emptyAndStale(path, now());
    if (stale === null) return takePidLock(path, mode, owner, now); // released meanwhile
    if (stale) {
      rmSync(path, { force: true });
      return takePidLock(path, mode, owner, now);
    }
    return { holder: holder.split(' ')[0] || 'unknown' };
  }
  try {
    if (owner) fchownSync(fd, owner.uid, owner.gid);
    const started = startTimeOf(process.pid);
    writeSync(fd, started ? `${process.pid} ${started}` : String(process.pid));
  } catch (error) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw error;
  }
  closeSync(fd);
  return () => rmSync(path, { force: true });
}
