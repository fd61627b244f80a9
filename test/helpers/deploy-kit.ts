/**
 * deploy/ as the tests use it: its files read, copied into a temporary folder with only what an
 * operator makes theirs put in (paths, ports, addresses), and the password step deploy/README.md
 * gives, run as written (test/ops/deploy-kit.test.ts, test/state/redis-persistence.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { ROOT } from './process.ts';

/** The Redis users whose passwords the step sets, in the order deploy/README.md names them. */
export const REDIS_USERS = ['bda', 'bda-sentinel', 'bda-replica', 'bda-watch'] as const;
export type RedisUser = (typeof REDIS_USERS)[number];

/** A file of deploy/ as shipped. */
export function shippedText(path: string): string {
  return readFileSync(join(ROOT, 'deploy', path), 'utf8');
}

/** deploy/README.md's step that sets a Redis user's password: the one line starting `U=bda;`. */
export function passwordStep(): string {
  const line = shippedText('README.md')
    .split('\n')
    .find((l) => l.startsWith('U=bda; P='));
  assert.ok(line, 'deploy/README.md gives the password step');
  return line;
}

/**
 * A file of deploy/ written into `dir` as `name`, each `[from, to]` replaced (every occurrence); a
 * replacement that finds nothing fails, so a renamed setting cannot leave the shipped value in place.
 */
export function placeShipped(path: string, dir: string, name: string, changes: [string | RegExp, string][]): string {
  const file = join(dir, name);
  writeFileSync(file, shippedText(path));
  return changes.length ? rewrite(file, changes) : file;
}

/** A placed file with more made this machine's, in place (each change must find something, as above). */
export function rewrite(file: string, changes: [string | RegExp, string][]): string {
  let text = readFileSync(file, 'utf8');
  for (const [from, to] of changes) {
    const next = typeof from === 'string' ? text.replaceAll(from, to) : text.replace(from, to);
    assert.is.not(next, text, `${file}: ${from} is there to replace`);
    text = next;
  }
  writeFileSync(file, text);
  return file;
}

/**
 * The password step run as written in `dir` (which holds users.acl, redis.conf and sentinel.conf),
 * for each user; the passwords it printed.
 */
export function setPasswords(dir: string, users: readonly RedisUser[] = REDIS_USERS): Record<RedisUser, string> {
  const step = passwordStep();
  const passwords = {} as Record<RedisUser, string>;
  for (const user of users) {
    const printed = execFileSync('sh', ['-c', step.replace(/^U=bda;/, `U=${user};`)], { cwd: dir, encoding: 'utf8' });
    const [named, password] = printed.trim().split(' ');
    assert.is(named, user, printed);
    assert.match(password, /^[0-9a-f]{64}$/);
    passwords[user] = password;
  }
  return passwords;
}
