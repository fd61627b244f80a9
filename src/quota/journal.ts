/**
 * The quota counters on disk: a counts file (`quota.json`) and numbered append-only journals
 * (`quota.journal.N`), one line per counted request.
 *
 * Compaction never double-counts: to compact, the journal switches to journal N+1, then writes
 * a counts file that says "replay from N+1" (temp file, fsync, rename, fsync
 * folder), and only then deletes journal N. A crash at any point leaves either the old
 * counts file plus journals N and N+1, or the new counts file plus journal N+1 (N ignored): the same
 * counts either way.
 *
 * While serving, compaction runs in the background, off the request path: the switch to
 * journal N+1 and a copy of the open windows are synchronous (one open, one pass over the
 * windows), the fsyncs and the counts file's write asynchronous, its text made and written a slice
 * a turn (counts-file.ts).
 * Its rename happens only if no other compaction (at shutdown) has moved past N+1 meanwhile.
 */
import {
  close as closeFd,
  closeSync,
  fdatasync,
  fsync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readdirSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { digits } from '../lib/digits.ts';
import type { Window, WindowsCopy } from './window.ts';
import type { QuotaKind } from '../state/quota-counter.ts';
import { journalNumber, replayQuotaState } from './replay.ts';
import { COUNTS_FILE, countsText } from './counts-file.ts';
import { fsyncDir, fsyncDirAsync, writeFileAtomic, writeFileAtomicAsync } from '../shared/state-files.ts';

const JOURNAL_PREFIX = 'quota.journal.';
const FSYNC_EVERY_MS = 1000;

const fsyncFd = promisify(fsync);
const closeFdAsync = promisify(closeFd);

/**
 * One journal line: what was counted, for whom, when, and how many requests (a lease: one unless
 * said), and with `served` the window's answers served so far (a served mark when `requests` is 0).
 */
export function journalLine(kind: QuotaKind, scope: string, at: number, requests = 1, served?: number): string {
  // JSON.stringify([kind, scope, at(, requests(, served))]) byte for byte, without the array: kind is
  // a plain word, and a finite number prints the same digits (the time is new every millisecond: digits).
  const tail =
    served !== undefined ? `,${digits(requests)},${digits(served)}` : requests === 1 ? '' : `,${digits(requests)}`;
  return `["${kind}",${JSON.stringify(scope)},${digits(at)}${tail}]\n`;
}

export interface JournalOptions {
  stateDir: string;
  /** Reports what replay found (a torn last line) and failed fsyncs. */
  log: (line: string) => void;
  /** How bytes reach the journal file: node's writeSync (a test gives one that fails). */
  write?: (fd: number, bytes: Buffer, offset: number, length: number) => number;
}

export class QuotaJournal {
  private number = 0;
  private fd = -1;
  /** Lines in the current journal. */
  lines = 0;
  private dirty = false;
  private readonly syncTimer: NodeJS.Timeout;
  private compacting: Promise<void> | null = null;
  /** Bytes in the current journal: where a failed write is cut back to. */
  private size = 0;
  /** A failed write could not be cut back: the next append starts a new journal. */
  private torn = false;
  private failure: string | null = null;
  private closed = false;
  private readonly write: NonNullable<JournalOptions['write']>;

  constructor(private readonly options: JournalOptions) {
    this.write = options.write ?? writeSync;
    this.syncTimer = setInterval(() => this.syncSoon(), FSYNC_EVERY_MS);
    this.syncTimer.unref();
  }

  private path(name: string): string {
    return join(this.options.stateDir, name);
  }

  /**
   * Read the counts file and replay the journals after it into `apply` (served marks left out: a
   * server counts leases). Throws QuotaStateError on bad state.
   */
  load(
    restore: (counter: string, window: Window) => void,
    apply: (kind: QuotaKind, scope: string, at: number, requests: number) => void,
  ): void {
    this.number = replayQuotaState(this.options.stateDir, this.options.log, restore, apply);
  }

  /**
   * Append whole lines in one write; throws when they could not be written, leaving the journal
   * as it was: a partial write is cut off again, or, when even that fails, the next append goes
   * to a new journal (replay drops the torn tail). Never are lines of a failed batch counted.
   */
  append(text: string, lines: number): void {
    if (this.torn) this.startAfterTear();
    const bytes = Buffer.from(text);
    let written = 0;
    try {
      while (written < bytes.length) written += this.write(this.fd, bytes, written, bytes.length - written);
    } catch (error) {
      this.failure = `quota journal writes fail: ${(error as Error).message}`;
      // Whatever part of the batch reached the file (even from a call that then threw) goes.
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        this.torn = true;
      }
      throw error;
    }
    this.size += bytes.length;
    this.lines += lines;
    this.dirty = true;
    this.failure = null;
  }

  /** Why the journal cannot be written right now (for /readyz), or null. */
  problem(): string | null {
    return this.failure;
  }

  /** A journal whose tail could not be cut back is left as it is; counting goes on in the next. */
  private startAfterTear(): void {
    const next = this.number + 1;
    const fd = openSync(this.path(`${JOURNAL_PREFIX}${next}`), 'a', 0o600);
    try {
      closeSync(this.fd);
    } catch {
      // the old descriptor may be what failed; the new journal is what matters
    }
    this.fd = fd;
    this.number = next;
    this.size = 0;
    this.torn = false;
  }

  private syncSoon(): void {
    if (!this.dirty || this.fd < 0) return;
    this.dirty = false;
    fdatasync(this.fd, (error) => {
      if (error) this.options.log(`quota journal fsync failed: ${error.message}`);
    });
  }

  /** Start the next journal; the counts file to write says to replay from it. */
  private rotate(windows: WindowsCopy): { next: number; previousFd: number; counts: Iterable<string> } {
    const next = this.number + 1;
    const fd = openSync(this.path(`${JOURNAL_PREFIX}${next}`), 'a', 0o600);
    const previousFd = this.fd;
    this.fd = fd;
    this.number = next;
    this.lines = 0;
    this.size = 0;
    this.torn = false;
    return { next, previousFd, counts: countsText(next, windows) };
  }

  private removeJournalsBefore(next: number): void {
    for (const name of readdirSync(this.options.stateDir)) {
      const number = journalNumber(name);
      if (number !== null && number < next) rmSync(this.path(name), { force: true });
    }
  }

  /** Fold everything into a counts file of `windows` and start a new journal, synchronously (start-up, shutdown). */
  compact(windows: WindowsCopy): void {
    const { next, previousFd, counts } = this.rotate(windows);
    fsyncDir(this.options.stateDir);
    if (previousFd >= 0) {
      fsyncSync(previousFd);
      closeSync(previousFd);
    }
    writeFileAtomic(this.path(COUNTS_FILE), counts);
    this.removeJournalsBefore(next);
  }

  /** The same while serving: nothing but the switch of journal happens on the request path. */
  compactInBackground(windows: WindowsCopy): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.compacting ??= this.compactAsync(windows)
      .catch((error: Error) =>
        this.options.log(`quota compaction failed (counting continues in the journal): ${error.message}`),
      )
      .finally(() => (this.compacting = null));
    return this.compacting;
  }

  private async compactAsync(windows: WindowsCopy): Promise<void> {
    const { next, previousFd, counts } = this.rotate(windows);
    await fsyncDirAsync(this.options.stateDir);
    if (previousFd >= 0) {
      await fsyncFd(previousFd);
      await closeFdAsync(previousFd);
    }
    // A compaction at shutdown may have moved past `next` meanwhile; its counts file is newer.
    const stillNext = () => !this.closed && this.number === next;
    const written = await writeFileAtomicAsync(this.path(COUNTS_FILE), counts, stillNext);
    if (written) this.removeJournalsBefore(next);
  }

  /** Compact one last time and close the journal; for graceful shutdown. */
  close(windows: WindowsCopy): void {
    clearInterval(this.syncTimer);
    try {
      this.compact(windows);
    } catch (error) {
      this.options.log(`quota compaction failed (counting continues in the journal): ${(error as Error).message}`);
    }
    this.closed = true;
    if (this.fd >= 0) {
      fsyncSync(this.fd);
      closeSync(this.fd);
      this.fd = -1;
    }
  }
}
