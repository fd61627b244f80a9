/**
 * Who owns a file, named as an operator knows users: for the commands that may be run as another
 * user than the server (root, say) and the messages of a server that finds a file it cannot read.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

export interface FileOwner {
  uid: number;
  gid: number;
}

/** A file's owner and permission bits. */
export interface Ownership extends FileOwner {
  mode: number;
}

/** The user and group this process runs as; null where the system has no uids (Windows). */
export function processOwner(): FileOwner | null {
  return typeof process.getuid === 'function' && typeof process.getgid === 'function'
    ? { uid: process.getuid(), gid: process.getgid() }
    : null;
}

/** The login name of a uid from /etc/passwd, or null when it names none (or cannot be read). */
export function userName(uid: number): string | null {
  let passwd: string;
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return null;
  }
  for (const line of passwd.split('\n')) {
    const [name, , id] = line.split(':');
    if (name && id !== undefined && id !== '' && Number(id) === uid) return name;
  }
  return null;
}

/** `benchmark-api (uid 999)`, or `uid 999` when /etc/passwd does not name it. */
export function describeUser(uid: number): string {
  const name = userName(uid);
  return name === null ? `uid ${uid}` : `${name} (uid ${uid})`;
}

/** What `runuser -u` and `sudo -u` take for a uid: its name, or `#UID` (which sudo takes) when it has none. */
export function userArgument(uid: number): string {
  return userName(uid) ?? `'#${uid}'`;
}

/** A file's owner and permission bits; null when it does not exist. Other failures are thrown. */
export function ownershipOf(path: string): Ownership | null {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats ? { uid: stats.uid, gid: stats.gid, mode: stats.mode & 0o7777 } : null;
}

/** The access errors an owner or mode explains (and the ones worth naming the owner for). */
export function isAccessError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === 'EACCES' || code === 'EPERM';
}

/**
 * Why this process may be refused `path`: who owns it (or, when even that cannot be seen, the
 * nearest folder above it that can), with what mode, beside who this process runs as. Empty
 * where there are no uids or nothing above it can be looked at.
 */
export function ownershipNote(path: string): string {
  const me = processOwner();
  if (!me) return '';
  for (let at = path; ; at = dirname(at)) {
    try {
      const owned = ownershipOf(at);
      if (owned)
        return (
          `${at} is owned by ${describeUser(owned.uid)} with mode ${owned.mode.toString(8).padStart(4, '0')}, ` +
          `and this process runs as ${describeUser(me.uid)}`
        );
    } catch {
      // Not even its owner can be seen from here: look at the folder holding it.
    }
    if (dirname(at) === at) return '';
  }
}
