/**
 * Another user to run the server or the keys command as, for the tests of a store whose files
 * belong to one user while a program runs as another (the systemd unit's `User=` and an
 * operator's root shell). Only root can become another user; as root this is `nobody`, through
 * setpriv (which execs: the child is the program itself, and signals reach it).
 *
 * API:
 *
 *   const other = otherUser();   null when this process is not root or setpriv or nobody is missing
 *   other.name, other.uid, other.gid
 *   other.runAs                  the words to put before a command to run it as that user
 *   skipWithout(s, names, why)   register a suite's tests as skipped, saying why (scripts/test.ts prints it)
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Test } from 'uvu';

export interface OtherUser {
  name: string;
  uid: number;
  gid: number;
  runAs: readonly string[];
}

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));

/** `nobody` when this process is root and can become it, else null. */
export function otherUser(): OtherUser | null {
  if (process.getuid?.() !== 0 || !SETPRIV) return null;
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === 'nobody');
  if (!entry) return null;
  const [name, , uid, gid] = entry;
  return { name, uid: Number(uid), gid: Number(gid), runAs: [SETPRIV, `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups'] };
}

/** Register tests that need another user as skipped, saying why. */
export function skipWithout(s: Test, names: readonly string[], why: string): void {
  for (const name of names) s.skip(`${name} (skipped: ${why})`, () => {});
  console.log(`skipped: ${why}`);
}
