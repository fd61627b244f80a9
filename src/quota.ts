/**
 * Daily quotas: fixed 24-hour windows per scope (quota-window.ts), counted in memory and made
 * durable by an append-only journal in the state folder (quota-journal.ts).
 *
 * Durability: every counted request is appended to the journal before its response is sent.
 * Appends made in one event-loop turn are written together (one write call); the data is in
 * the kernel before any of those responses leave, so a crash or `kill -9` of the process
 * loses none of them. fsync runs at most once a second (it only matters for power loss).
 * Every 50,000 lines the journal is compacted in the background, off the request path.
 */
import type { Clock } from './clock.ts';
import type { Eventually } from './eventually.ts';
import { journalLine, QuotaJournal, type JournalOptions } from './quota-journal.ts';
import { readCounts } from './quota-replay.ts';
import { counterKey, WindowCounts, type QuotaKind, type QuotaStatus, type Window } from './quota-window.ts';

export { journalNumber, QuotaStateError } from './quota-journal.ts';
export { WINDOW_MS, type QuotaKind, type QuotaStatus } from './quota-window.ts';

/** Compact when the journal has grown past this many lines. */
const COMPACT_AFTER_LINES = 50_000;

/** A held quota slot: commit counts it (the promise settles once it is journaled), release frees it. */
export interface Reservation {
  commit(): Promise<void>;
  release(): void;
}

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
 * What the server needs of a quota store. Every answer may come later (a store shared by several
 * servers answers over the network); the file-backed book answers at once, and the server's
 * request path stays synchronous while it does.
 */
export interface QuotaCounter {
  /** Where a scope stands, counting nothing (for the headers of every answer). */
  status(kind: QuotaKind, scope: string, limit: number): Eventually<QuotaStatus>;
  /** Count one request if the quota allows; send the answer once `durable` has settled. */
  take(kind: QuotaKind, scope: string, limit: number): Eventually<Taken>;
  /** Hold a slot whose outcome decides whether it counts; commit counts it, release refunds it. */
  reserve(kind: QuotaKind, scope: string, limit: number): Eventually<Reserved>;
}

export interface QuotaBookOptions extends JournalOptions {
  clock: Clock;
}

/** The counts of one event-loop turn, written together: one promise settles for all of them. */
interface Batch {
  lines: string[];
  keys: string[];
  durable: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}

function newBatch(): Batch {
  const batch = { lines: [], keys: [] } as unknown as Batch;
  batch.durable = new Promise<void>((resolve, reject) => {
    batch.resolve = resolve;
    batch.reject = reject;
  });
  // A batch whose requests all went away before it failed must not be an unhandled rejection.
  batch.durable.catch(() => {});
  return batch;
}

/** The counts a state folder holds: its snapshot file, then its journals. */
function replay(journal: QuotaJournal, counts: WindowCounts): void {
  journal.load(
    (key, window) => counts.set(key, window),
    (kind, scope, at) => counts.apply(counterKey(kind, scope), at),
  );
}

export class QuotaBook implements QuotaCounter {
  private readonly counts = new WindowCounts();
  private readonly journal: QuotaJournal;
  /** The turn's counts not yet written; null when there are none. */
  private pending: Batch | null = null;

  private constructor(private readonly options: QuotaBookOptions) {
    this.journal = new QuotaJournal(options);
  }

  /** Load the snapshot, replay the journals, compact, and open a fresh journal. Throws QuotaStateError on bad state. */
  static open(options: QuotaBookOptions): QuotaBook {
    const book = new QuotaBook(options);
    replay(book.journal, book.counts);
    book.compact();
    return book;
  }

  /** Where a scope stands against a limit (reserved slots included), without counting anything. */
  status(kind: QuotaKind, scope: string, limit: number): QuotaStatus {
    return this.counts.status(counterKey(kind, scope), limit, this.options.clock.now());
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
    const resetAt = this.counts.resetAt(counterKey(kind, scope));
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
    this.counts.hold(key);
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      this.counts.unhold(key);
      return true;
    };
    const reservation: Reservation = {
      commit: () => (settle() ? this.record(kind, scope) : Promise.resolve()),
      release: () => void settle(),
    };
    return { status: this.status(kind, scope, limit), reservation };
  }

  /** Count one request at the current time and queue its journal line with the turn's others. */
  private record(kind: QuotaKind, scope: string): Promise<void> {
    const at = this.options.clock.now();
    const key = counterKey(kind, scope);
    this.counts.apply(key, at);
    let batch = this.pending;
    if (!batch) {
      batch = this.pending = newBatch();
      setImmediate(() => {
        this.flush();
        if (this.journal.lines >= COMPACT_AFTER_LINES) this.compactInBackground();
      });
    }
    batch.lines.push(journalLine(kind, scope, at));
    batch.keys.push(key);
    return batch.durable;
  }

  /** Write every pending line in one call; on failure, take the counts back and reject. */
  flush(): void {
    const batch = this.pending;
    if (!batch) return;
    this.pending = null;
    try {
      this.journal.append(batch.lines.join(''), batch.lines.length);
      batch.resolve();
    } catch (error) {
      // The requests were not recorded, so they must not be answered with data: undo them.
      for (const key of batch.keys) this.counts.undo(key);
      batch.reject(error as Error);
      this.options.log(`quota journal write failed: ${(error as Error).message}`);
    }
  }

  /** The counters as they stand after writing what is pending, expired windows dropped. */
  private current(): ReturnType<WindowCounts['toRecord']> {
    this.flush();
    this.counts.expire(this.options.clock.now());
    return this.counts.toRecord();
  }

  /** Fold the journal into a new snapshot file and start a new journal, synchronously. */
  compact(): void {
    this.journal.compact(this.current());
  }

  /** The same in the background, while serving. */
  compactInBackground(): Promise<void> {
    return this.journal.compactInBackground(this.current());
  }

  /** Why counted requests cannot be recorded right now (for /readyz), or null. */
  problem(): string | null {
    return this.journal.problem();
  }

  /** Write and fsync everything; compact; stop the timer. For graceful shutdown. */
  close(): void {
    this.journal.close(this.current());
  }
}

/** The windows open at `now` in a state folder, by counter, read without writing to it (keys migrate). */
export function readWindows(stateDir: string, now: number, log: (line: string) => void): Record<string, Window> {
  const counts = readCounts(stateDir, log);
  counts.expire(now);
  return counts.toRecord();
}
