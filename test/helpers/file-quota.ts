/** A quota book on a fresh state folder, with a clock the test moves and writes it can make fail. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileQuota } from '../../src/quota/file-quota.ts';
import { settled } from '../../src/state/quota-counter.ts';
import { journalNumber } from '../../src/quota/replay.ts';

export const HOUR = 3_600_000;
export const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);

export function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'quota-'));
  const clock = { t: T0, now() { return this.t; } };
  const logs: string[] = [];
  const f = {
    dir,
    clock,
    logs,
    failWrites: false,
    /** Bytes a failing write still gets onto the disk before it throws (a short write). */
    partialBytes: 0,
    open: () =>
      FileQuota.open({
        stateDir: dir,
        clock,
        log: (l) => logs.push(l),
        write: (fd, bytes, offset, length) => {
          if (f.failWrites) {
            if (f.partialBytes > 0) writeSync(fd, bytes, offset, Math.min(length, f.partialBytes));
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          }
          return writeSync(fd, bytes, offset, length);
        },
      }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
  return f;
}

/** quota.json's header line. */
export const header = (dir: string) => JSON.parse(readFileSync(join(dir, 'quota.json'), 'utf8').split('\n')[0]!);
/** quota.json's window lines, each [start, count, counter]. */
export const windowLines = (dir: string) => readFileSync(join(dir, 'quota.json'), 'utf8').split('\n').slice(1).filter(Boolean).map((line) => JSON.parse(line));

/** Count n requests and wait until each is in the journal. */
export async function takeMany(book: FileQuota, scope: string, limit: number, n: number): Promise<number> {
  let counted = 0;
  for (let i = 0; i < n; i++) {
    const { durable } = book.take('data', scope, limit);
    if (durable) {
      await settled(durable);
      counted++;
    }
  }
  return counted;
}

/** The journal files in a state folder, oldest first. */
export function journalFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => journalNumber(name) !== null)
    .sort((a, b) => journalNumber(a)! - journalNumber(b)!);
}
