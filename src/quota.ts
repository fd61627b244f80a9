/**
 * Daily quotas: fixed 24-hour windows per scope, counted in memory and made durable by an
 * append-only journal in the state folder.
 *
 * Durability: every counted request is appended to the journal before its response is sent.
 * Appends made in one event-loop turn are written together (one write call); the data is in
 * the kernel before any of those responses leave, so a crash or `kill -9` of the process
 * loses none of them. fsync runs at most once a second (it only matters for power loss).
 *
 * Compaction never double-counts: journals are numbered. To compact, the book writes pending
 * lines, starts journal N+1, then writes a snapshot of the counters that says "replay from
 * N+1" (temp file, fsync, rename, fsync folder), and only then deletes journal N. A crash at
 * any point leaves either the old snapshot plus journals N and N+1, or the new snapshot plus
 * journal N+1 (N ignored): the same counts either way.
 *
 * While serving, compaction runs in the background, off the request path: the switch to
 * journal N+1 is synchronous (one open), the fsyncs and the snapshot write are asynchronous, so
 * no request waits for them. Its rename happens only if no other compaction (at shutdown) has
 * moved past N+1 meanwhile.
 */
import { close as closeFd, closeSync, fdatasync, fsync, fsyncSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import type { Clock } from './clock.ts';
import type { Eventually } from './eventually.ts';
import { fsyncDir, fsyncDirAsync, writeFileAtomic, writeFileAtomicAsync } from './shared/state-files.ts';

export const WINDOW_MS = 24 * 60 * 60 * 1000;
const SNAPSHOT_FILE = 'quota.json';
const JOURNAL_PREFIX = 'quota.journal.';
const FSYNC_EVERY_MS = 1000;
/** Compact when the journal has grown past this many lines. */
const COMPACT_AFTER_LINES = 50_000;
const SNAPSHOT_FORMAT = 1;

/** Counters are kept per kind: the data routes and CritPt gradings have separate quotas. */
export type QuotaKind = 'data' | 'critpt';

interface Window {
  start: number;
  count: number;
}

export interface QuotaStatus {
  limit: number;
  remaining: number;
  /** End of the current window (ms); for a scope with no open window, when one opened now would end. */
  resetAt: number;
  /** True when no request may be counted until `resetAt`. */
  exhausted: boolean;
}

export class QuotaStateError extends Error {}

/** A counted request: the status after it, and when it is durable (null: refused, nothing counted). */
export interface Taken {
  status: QuotaStatus;
  durable: Promise<void> | null;
}

/** A held slot (null: none free) and the status with it held. */
export interface Reserved {
  status: QuotaStatus;
  reservation: Reservation | null;
}

/**
 * What the server needs of a quota store. Counting may answer later (a store shared by several
 * servers answers over the network); `status`, asked for the headers of every answer, answers
 * at once from what the store knows.
 */
export interface QuotaCounter {
  status(kind: QuotaKind, scope: string, limit: number): QuotaStatus;
  /** Count one request if the quota allows; send the answer once `durable` has settled. */
  take(kind: QuotaKind, scope: string, limit: number): Eventually<Taken>;
  /** Hold a slot whose outcome decides whether it counts; commit counts it, release refunds it. */
  reserve(kind: QuotaKind, scope: string, limit: number): Eventually<Reserved>;
}

/** A held quota slot: commit counts it (the promise settles once it is journaled), release frees it. */
export interface Reservation {
  commit(): Promise<void>;
  release(): void;
}

interface SnapshotFile {
  format: number;
  /** The first journal not yet folded into `windows`. */
  next_journal: number;
  windows: Record<string, Window>;
}

/** The number of a journal file (`quota.journal.12`), or null for any other name (`quota.journal.1e3`). */
export function journalNumber(name: string): number | null {
  const match = /^quota\.journal\.([1-9]\d{0,15})$/.exec(name);
  return match ? Number(match[1]) : null;
}

function counterKey(kind: QuotaKind, scope: string): string {
  return `${kind} ${scope}`;
}

export interface QuotaBookOptions {
  stateDir: string;
  clock: Clock;
  /** Reports what replay found (a torn last line) and failed writes. */
  log: (line: string) => void;
}

export class QuotaBook implements QuotaCounter {
  private readonly windows = new Map<string, Window>();
  /** Slots held by requests still under way (memory only: a crash ends those requests). */
  private readonly reserved = new Map<string, number>();
  private journalNumber = 0;
  private journalFd = -1;
  private journalLines = 0;
  private pending: { line: string; key: string; resolve: () => void; reject: (error: Error) => void }[] = [];
  private flushScheduled = false;
  private dirty = false;
  private syncTimer: NodeJS.Timeout | null = null;
  /** A background compaction under way (at most one). */
  private compacting: Promise<void> | null = null;
  private closed = false;

  private constructor(private readonly options: QuotaBookOptions) {}

  /** Load the snapshot, replay the journals, compact, and open a fresh journal. Throws QuotaStateError on bad state. */
  static open(options: QuotaBookOptions): QuotaBook {
    const book = new QuotaBook(options);
    book.load();
    book.compact();
    book.syncTimer = setInterval(() => book.syncSoon(), FSYNC_EVERY_MS);
    book.syncTimer.unref();
    return book;
  }

  private path(name: string): string {
    return join(this.options.stateDir, name);
  }

  private load(): void {
    const snapshotPath = this.path(SNAPSHOT_FILE);
    let snapshot: SnapshotFile = { format: SNAPSHOT_FORMAT, next_journal: 1, windows: {} };
    let text: string | null = null;
    try {
      text = readFileSync(snapshotPath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new QuotaStateError(`cannot read ${snapshotPath}: ${(error as Error).message}`);
    }
    if (text !== null) snapshot = parseSnapshot(snapshotPath, text);
    for (const [key, window] of Object.entries(snapshot.windows)) this.windows.set(key, { ...window });

    const journals = readdirSync(this.options.stateDir)
      .flatMap((name) => {
        const number = journalNumber(name);
        return number === null ? [] : [{ name, number }];
      })
      .sort((a, b) => a.number - b.number);
    for (const journal of journals) {
      if (journal.number < snapshot.next_journal) continue; // already folded into the snapshot
      this.replay(this.path(journal.name), journal === journals.at(-1));
    }
    this.journalNumber = Math.max(snapshot.next_journal - 1, journals.at(-1)?.number ?? 0);
  }

  private replay(path: string, isLast: boolean): void {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new QuotaStateError(`cannot read ${path}: ${(error as Error).message}`);
    }
    const lines = text.split('\n');
    const endsClean = text.length === 0 || text.endsWith('\n');
    lines.forEach((line, i) => {
      if (line === '') return;
      const last = i === lines.length - 1 && !endsClean;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        entry = undefined;
      }
      if (!isJournalEntry(entry)) {
        // A crash mid-write can tear only the final line of the newest journal; that request
        // was never answered (its response waits for the write), so dropping it loses nothing.
        if (last && isLast) {
          this.options.log(`quota journal ${path}: ignored a torn last line (${line.length} bytes) left by a crash`);
          return;
        }
        throw new QuotaStateError(`quota journal ${path} line ${i + 1} is corrupt: ${JSON.stringify(line.slice(0, 80))}`);
      }
      this.apply(entry[0], entry[1], entry[2]);
    });
  }

  /** Count one request at time `at` for a counter: the fixed-window rule. */
  private apply(kind: QuotaKind, scope: string, at: number): void {
    const key = counterKey(kind, scope);
    const window = this.windows.get(key);
    if (!window || at >= window.start + WINDOW_MS) this.windows.set(key, { start: at, count: 1 });
    else window.count++;
  }

  /** Where a scope stands against a limit (reserved slots included), without counting anything. */
  status(kind: QuotaKind, scope: string, limit: number): QuotaStatus {
    const now = this.options.clock.now();
    const key = counterKey(kind, scope);
    const reserved = this.reserved.get(key) ?? 0;
    const window = this.windows.get(key);
    if (!window || now >= window.start + WINDOW_MS) {
      const remaining = Math.max(0, limit - reserved);
      return { limit, remaining, resetAt: now + WINDOW_MS, exhausted: remaining === 0 };
    }
    const remaining = Math.max(0, limit - window.count - reserved);
    return { limit, remaining, resetAt: window.start + WINDOW_MS, exhausted: remaining === 0 };
  }

  /**
   * Count one request now, if the quota allows: returns the status after counting and a
   * promise that settles once the count is in the journal (send the response after it). When
   * the quota is exhausted nothing is counted and `durable` is null.
   */
  take(kind: QuotaKind, scope: string, limit: number): Taken {
    const before = this.status(kind, scope, limit);
    if (before.exhausted) return { status: before, durable: null };
    const durable = this.record(kind, scope);
    // One more counted: the window is the one just opened, or the one `before` saw.
    const resetAt = this.windows.get(counterKey(kind, scope))!.start + WINDOW_MS;
    return { status: { limit, remaining: before.remaining - 1, resetAt, exhausted: before.remaining - 1 === 0 }, durable };
  }

  /**
   * Hold one slot for a request whose outcome decides whether it counts (a CritPt grading):
   * parallel requests cannot overrun the quota, because each holds its slot from the start.
   * Null when no slot is free. Commit counts it (durably); release gives the slot back.
   */
  reserve(kind: QuotaKind, scope: string, limit: number): Reserved {
    const before = this.status(kind, scope, limit);
    if (before.exhausted) return { status: before, reservation: null };
    const key = counterKey(kind, scope);
    this.reserved.set(key, (this.reserved.get(key) ?? 0) + 1);
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      const left = (this.reserved.get(key) ?? 1) - 1;
      if (left > 0) this.reserved.set(key, left);
      else this.reserved.delete(key);
      return true;
    };
    const reservation: Reservation = {
      commit: () => (settle() ? this.record(kind, scope) : Promise.resolve()),
      release: () => void settle(),
    };
    return { status: this.status(kind, scope, limit), reservation };
  }

  /** Count one request at the current time and queue its journal line. */
  private record(kind: QuotaKind, scope: string): Promise<void> {
    const at = this.options.clock.now();
    this.apply(kind, scope, at);
    const durable = new Promise<void>((resolve, reject) => {
      this.pending.push({ line: `${JSON.stringify([kind, scope, at])}\n`, key: counterKey(kind, scope), resolve, reject });
    });
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        this.flush();
        if (this.journalLines >= COMPACT_AFTER_LINES) this.compactInBackground();
      });
    }
    return durable;
  }

  /** Write every pending line in one call; on failure, take the counts back and reject. */
  flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    try {
      const bytes = Buffer.from(batch.map((p) => p.line).join(''));
      let written = 0;
      while (written < bytes.length) written += writeSync(this.journalFd, bytes, written, bytes.length - written);
      this.journalLines += batch.length;
      this.dirty = true;
      for (const p of batch) p.resolve();
    } catch (error) {
      // The requests were not recorded, so they must not be answered with data: undo them.
      for (const p of batch) {
        const window = this.windows.get(p.key);
        if (window) window.count--;
        p.reject(error as Error);
      }
      this.options.log(`quota journal write failed: ${(error as Error).message}`);
    }
  }

  private syncSoon(): void {
    if (!this.dirty || this.journalFd < 0) return;
    this.dirty = false;
    fdatasync(this.journalFd, (error) => {
      if (error) this.options.log(`quota journal fsync failed: ${error.message}`);
    });
  }

  private tryCompact(): void {
    try {
      this.compact();
    } catch (error) {
      this.options.log(`quota compaction failed (counting continues in the journal): ${(error as Error).message}`);
    }
  }

  /**
   * Write what is pending, start the next journal and take the counters as they stand (expired
   * windows dropped): what the snapshot that replaces the older journals holds.
   */
  private rotate(): { next: number; previousFd: number; snapshot: string } {
    this.flush();
    const now = this.options.clock.now();
    for (const [key, window] of this.windows) if (now >= window.start + WINDOW_MS) this.windows.delete(key);
    const next = this.journalNumber + 1;
    const fd = openSync(this.path(`${JOURNAL_PREFIX}${next}`), 'a', 0o600);
    const previousFd = this.journalFd;
    this.journalFd = fd;
    this.journalNumber = next;
    this.journalLines = 0;
    const snapshot: SnapshotFile = { format: SNAPSHOT_FORMAT, next_journal: next, windows: Object.fromEntries(this.windows) };
    return { next, previousFd, snapshot: `${JSON.stringify(snapshot)}\n` };
  }

  private removeJournalsBefore(next: number): void {
    for (const name of readdirSync(this.options.stateDir)) {
      const number = journalNumber(name);
      if (number !== null && number < next) rmSync(this.path(name), { force: true });
    }
  }

  /** Fold the journal into a new snapshot file and start a new journal, synchronously (start-up, shutdown). */
  compact(): void {
    const { next, previousFd, snapshot } = this.rotate();
    fsyncDir(this.options.stateDir);
    if (previousFd >= 0) {
      fsyncSync(previousFd);
      closeSync(previousFd);
    }
    writeFileAtomic(this.path(SNAPSHOT_FILE), snapshot);
    this.removeJournalsBefore(next);
  }

  /** The same while serving: nothing but the switch of journal happens on the request path. */
  compactInBackground(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.compacting ??= this.compactAsync()
      .catch((error: Error) => this.options.log(`quota compaction failed (counting continues in the journal): ${error.message}`))
      .finally(() => (this.compacting = null));
    return this.compacting;
  }

  private async compactAsync(): Promise<void> {
    const { next, previousFd, snapshot } = this.rotate();
    await fsyncDirAsync(this.options.stateDir);
    if (previousFd >= 0) {
      await fsyncFd(previousFd);
      await closeFdAsync(previousFd);
    }
    // A compaction at shutdown may have moved past `next` meanwhile; its snapshot is newer.
    const written = await writeFileAtomicAsync(this.path(SNAPSHOT_FILE), snapshot, () => !this.closed && this.journalNumber === next);
    if (written) this.removeJournalsBefore(next);
  }

  /** Write and fsync everything; compact; stop the timer. For graceful shutdown. */
  close(): void {
    if (this.syncTimer) clearInterval(this.syncTimer);
    this.tryCompact();
    this.closed = true;
    if (this.journalFd >= 0) {
      fsyncSync(this.journalFd);
      closeSync(this.journalFd);
      this.journalFd = -1;
    }
  }
}

const fsyncFd = promisify(fsync);
const closeFdAsync = promisify(closeFd);

function isJournalEntry(value: unknown): value is [QuotaKind, string, number] {
  return (
    Array.isArray(value) &&
    value.length === 3 &&
    (value[0] === 'data' || value[0] === 'critpt') &&
    typeof value[1] === 'string' &&
    Number.isSafeInteger(value[2])
  );
}

function parseSnapshot(path: string, text: string): SnapshotFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new QuotaStateError(`quota state ${path} is corrupt (not JSON: ${(error as Error).message}); refusing to start rather than reset counters. Restore it from a backup, or delete it to reset every quota.`);
  }
  const snapshot = value as SnapshotFile;
  const windowsOk =
    snapshot !== null &&
    typeof snapshot === 'object' &&
    typeof snapshot.windows === 'object' &&
    snapshot.windows !== null &&
    Object.values(snapshot.windows).every((w) => w !== null && typeof w === 'object' && Number.isSafeInteger(w.start) && Number.isSafeInteger(w.count) && w.count >= 0);
  if (!windowsOk || snapshot.format !== SNAPSHOT_FORMAT || !Number.isSafeInteger(snapshot.next_journal) || snapshot.next_journal < 1) {
    throw new QuotaStateError(`quota state ${path} is not a format-${SNAPSHOT_FORMAT} quota snapshot; refusing to start rather than reset counters. Restore it from a backup, or delete it to reset every quota.`);
  }
  return snapshot;
}
