/**
 * The key file's stamp once a write under way shows its size, for the server's index
 * (file-follow.ts), which reads only the lines a change appended unless the file changed
 * otherwise. A write moves the file's time before its size: a look between sees the new time on
 * the old size (131,773 of 865,164 stats of a file appended to in a loop, ext4), which is what an
 * edit in place of the same size looks like, and was read whole: at 100,000 keys, one of ten runs
 * of 100 admin revokes held every request 724 ms and took the server to 171 MB
 * (scripts/bench/admin-scale.ts --only revokes).
 */
import { performance } from 'node:perf_hooks';
import { statSync } from 'node:fs';
import { stampOf, type FileStamp } from './file.ts';

/**
 * Longest a look waits for the size. It follows the time within microseconds, unless the writer
 * is taken off the CPU between the two: 5 ms was once too short for that on a busy machine (load
 * about 4 on 2 cores: one whole read in 14,823 looks of test/state/keys-file.test.ts). The wait is
 * spent only when the file changed; a file edited in place pays it once, before its whole read.
 */
const SETTLE_MS = 50;

/**
 * `seen` (the file's time moved, its size not) looked at again until its size moves, for at most
 * SETTLE_MS: then a file whose size has not moved was edited in place, and is read whole as before.
 * A file replaced or gone meanwhile is `seen`: the next look reads it as it is.
 */
export function settled(path: string, seen: FileStamp): FileStamp {
  const until = performance.now() + SETTLE_MS;
  for (;;) {
    const now = stampOf(statSync(path, { throwIfNoEntry: false }));
    if (now === null || now.ino !== seen.ino) return seen;
    if (now.size !== seen.size || performance.now() > until) return now;
  }
}
