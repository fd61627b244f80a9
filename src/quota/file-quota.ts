/**
 * Daily quotas: fixed 24-hour windows per scope (window.ts), counted in memory and made
 * durable by an append-only journal in the state folder (journal.ts).
 *
 * Durability by leases: a journal line may count a scope up to `leaseSize(limit)` requests
 * (1% of its quota) ahead of its answers. An answer inside a written lease needs no write; the
 * first answer past it waits until a new lease is written. So after `kill -9` a scope is charged
 * at most its lease's unused part and never less than it was served; a graceful stop writes the
 * exact counts. A journal write every turn, every answer held for it, cost 16-20% of throughput
 * (BENCHMARKS.md, "Counting cost"); inside a lease no answer waits for a write.
 *
 * The leases of one event-loop turn are written together (one write call: a write per request
 * measured no cheaper at 16 connections and dearer at 64); the data is in the kernel before any
 * answer they cover leaves. fsync runs at most once a second (it only matters for power loss).
 * Every 50,000 lines the journal is compacted in the background, off the request path.
 *
 * The journal also notes the answers served, for a reader beside the running server (keys
 * usage): each lease line carries the window's answers so far, and once a second a served mark
 * goes for each window served since without a lease line (served-marks.ts).
 *
 * Beside the windows, the usage history (usage-book.ts): each answer served, per UTC day and scope.
 */
import type { Clock } from '../lib/clock.ts';
import {
  DURABLE_NOW,
  settled,
  type Durable,
  type QuotaCounter,
  type Reservation,
  type Reserved,
  type Taken,
  type QuotaKind,
  type QuotaStatus,
} from '../state/quota-counter.ts';
import { journalLine, QuotaJournal, type JournalOptions } from './journal.ts';
import { Batch } from './lease-batch.ts';
import { ServedMarks } from './served-marks.ts';
import { UsageBook } from './usage-book.ts';
import { DEFAULT_USAGE_RETENTION_DAYS } from './usage-day.ts';
import { counterId, counterParts } from './counter-ids.ts';
import { Coverage, WindowCounts, type WindowsCopy } from './window.ts';

/** Compact when the journal has grown past this many lines. */
const COMPACT_AFTER_LINES = 50_000;
/** Window slots looked at for expiry in one turn, during a background compaction. */
const EXPIRE_SLOTS_A_TURN = 10_000;

export interface FileQuotaOptions extends JournalOptions {
  clock: Clock;
  /** Days the usage history keeps (default DEFAULT_USAGE_RETENTION_DAYS). */
  usageRetentionDays?: number;
}

/** The counts a state folder holds: its counts file, then its journals. */
function replay(journal: QuotaJournal, counts: WindowCounts): void {
  journal.load(
    (counter, window) => counts.set(counter, window),
    (kind, scope, at, n) => counts.apply(counterId(kind, scope), at, n),
  );
}

export class FileQuota implements QuotaCounter {
  private readonly counts = new WindowCounts();
  private readonly journal: QuotaJournal;
  /** The turn's counts not yet written; null when there are none. */
  private pending: Batch | null = null;
  private readonly marks: ServedMarks;
  /** The answers served per UTC day and scope (the admin API's and keys usage --history's). */
  readonly usage: UsageBook;

  private constructor(private readonly options: FileQuotaOptions) {
    this.journal = new QuotaJournal(options);
    this.marks = new ServedMarks(this.counts, this.journal, options, () => this.flush());
    const retentionDays = options.usageRetentionDays ?? DEFAULT_USAGE_RETENTION_DAYS;
    this.usage = UsageBook.open({ stateDir: options.stateDir, clock: options.clock, log: options.log, retentionDays });
  }

  /**
   * Load the counts file, replay the journals, compact, and open a fresh journal. Throws
   * QuotaStateError on bad state.
   */
  static open(options: FileQuotaOptions): FileQuota {
    const book = new FileQuota(options);
    replay(book.journal, book.counts);
    book.compact();
    return book;
  }

  /** Where a scope stands against a limit (reserved slots included), without counting anything. */
  status(kind: QuotaKind, scope: string, limit: number): QuotaStatus {
    return this.counts.status(counterId(kind, scope), limit, this.options.clock.now());
  }

  /**
   * Count one request now, if the quota allows: returns the status after counting and when the
   * count is in the journal (send the response after that). When the quota is exhausted nothing
   * is counted and `durable` is null.
   */
  take(kind: QuotaKind, scope: string, limit: number): Taken {
    const counter = counterId(kind, scope);
    const at = this.options.clock.now();
    const status = this.counts.take(counter, limit, at);
    if (!status) return { status: this.counts.status(counter, limit, at), durable: null };
    this.marks.add(counter);
    this.usage.count(kind, scope, at);
    return { status, durable: this.cover(kind, scope, counter, limit, at) };
  }

  /**
   * Hold one slot for a request whose outcome decides whether it counts (a CritPt grading):
   * parallel requests cannot overrun the quota, because each holds its slot from the start.
   * Null when no slot is free. Commit counts it (durably); release gives the slot back.
   */
  reserve(kind: QuotaKind, scope: string, limit: number): Reserved {
    const before = this.status(kind, scope, limit);
    if (before.exhausted) return { status: before, reservation: null };
    const counter = counterId(kind, scope);
    this.counts.hold(counter);
    let ended = false;
    const settle = () => {
      if (ended) return false;
      ended = true;
      this.counts.unhold(counter);
      return true;
    };
    const reservation: Reservation = {
      commit: () => {
        if (!settle()) return Promise.resolve();
        const at = this.options.clock.now();
        this.counts.countServed(counter, at);
        this.marks.add(counter);
        this.usage.count(kind, scope, at);
        return settled(this.cover(kind, scope, counter, limit, at));
      },
      release: () => void settle(),
    };
    return { status: this.status(kind, scope, limit), reservation };
  }

  /**
   * When the answer just counted is durable: now, inside a written lease; or after this turn's write,
   * inside a lease queued this turn or a new one queued now (its line written with the turn's others).
   */
  private cover(kind: QuotaKind, scope: string, counter: string, limit: number, at: number): Durable {
    const coverage = this.counts.coverage(counter);
    if (coverage === Coverage.Written) return DURABLE_NOW;
    const batch = this.turnBatch();
    if (coverage === Coverage.Uncovered)
      batch.addLease(
        counter,
        journalLine(kind, scope, at, this.counts.extendLease(counter, limit), this.counts.noteServed(counter)),
      );
    batch.answers.push(counter);
    return batch;
  }

  /** The batch of this turn's leases: written at the turn's end. */
  private turnBatch(): Batch {
    if (!this.pending) {
      this.pending = new Batch();
      setImmediate(this.endTurn);
    }
    return this.pending;
  }

  private readonly reportWaiter = (error: unknown): void =>
    this.options.log(`a counted request's answer failed: ${(error as Error)?.stack ?? String(error)}`);

  private readonly endTurn = (): void => {
    this.flush();
    if (this.journal.lines >= COMPACT_AFTER_LINES) this.compactInBackground();
  };

  /**
   * Write every pending lease in one call; on failure, take the leases and their answers' counts
   * back and say so to their waiters.
   */
  flush(): void {
    const batch = this.pending;
    if (!batch) return;
    this.pending = null;
    let outcome: Error | null = null;
    try {
      this.journal.append(batch.text, batch.leases.length);
      for (const counter of batch.leases) this.counts.leaseWritten(counter);
    } catch (error) {
      // The requests were not recorded, so they must not be answered with data: undo them.
      outcome = error as Error;
      for (const counter of batch.leases) this.counts.leaseFailed(counter);
      for (const counter of batch.answers) {
        this.counts.undo(counter);
        this.usage.uncount(...counterParts(counter));
      }
      for (const counter of batch.leases) this.marks.add(counter);
      this.options.log(`quota journal write failed: ${outcome.message}`);
    }
    batch.settle(outcome, this.reportWaiter);
  }

  /**
   * A copy of the open windows as they stand after writing what is pending: the answers served
   * (exact, for a stop), or the lease ceilings (for a compaction while the journal goes on).
   */
  private current(served: boolean): WindowsCopy {
    this.flush();
    return this.counts.openAt(this.options.clock.now(), served);
  }

  /** Fold the journal into a new counts file and start a new journal, synchronously; drop ended windows. */
  compact(): void {
    this.journal.compact(this.current(false));
    this.counts.expire(this.options.clock.now());
  }

  /** The same in the background, while serving: ended windows are dropped a slice a turn. */
  compactInBackground(): Promise<void> {
    const copy = this.current(false);
    this.expireFrom(0, copy.now);
    return this.journal.compactInBackground(copy);
  }

  private expireFrom(slot: number, now: number): void {
    this.counts.expireSlots(slot, slot + EXPIRE_SLOTS_A_TURN, now);
    if (slot + EXPIRE_SLOTS_A_TURN < this.counts.slotCount)
      setImmediate(() => this.expireFrom(slot + EXPIRE_SLOTS_A_TURN, now)).unref();
  }

  /** Why counted requests cannot be recorded right now (for /readyz), or null. */
  problem(): string | null {
    return this.journal.problem();
  }

  /** Write and fsync everything; compact with the exact counts served; stop the timer. For graceful shutdown. */
  close(): void {
    this.usage.close();
    this.marks.stop();
    this.journal.close(this.current(true));
  }
}
