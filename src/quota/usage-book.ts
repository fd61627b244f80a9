/**
 * The state folder's usage history as a server keeps it: per UTC day and scope, the answers
 * served (a 200 counted, a CritPt grading committed), never the leases. Files: usage-files.ts;
 * reading them with the counts in memory: usage-history-read.ts.
 *
 * On the request path a count is two Map increments (the day's total since the last fold, and
 * what the journal has not yet said). Once a second the unsaid part goes to `usage/journal.N` in
 * one write, with the served marks' rhythm: a `kill -9` loses at most that second's answers (a
 * torn last line included), a graceful stop nothing. A fold writes each day the journal touched
 * into its day file: at start and at a stop (synchronously, not serving), and once a UTC day
 * while serving, in the background, its reading, sorting and writing a slice a turn. Days older
 * than the retention are deleted at a fold.
 */
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../lib/clock.ts';
import { sortInTurns } from '../lib/sort-in-turns.ts';
import { fsyncDir, fsyncDirAsync, writeFileAtomic, writeFileAtomicAsync } from '../shared/state-files.ts';
import { DAY_MS, dayStart, oldestKept, usageKey, utcDay, type HistoryPiece, type UsageRow } from './usage-day.ts';
import {
  dayFileName,
  dayFileText,
  dayFiles,
  ensureUsageDir,
  journalName,
  readDayFile,
  readJournals,
  usageJournalLine,
  usageJournals,
  type DayCounts,
  type DaysCounts,
} from './usage-files.ts';
import { readUsageDays } from './usage-read.ts';
import { historyRows, readDayInTurns, scopeRows } from './usage-history-read.ts';

/** How often what was served goes to the journal (the served marks' rhythm, served-marks.ts). */
const WRITE_EVERY_MS = 1000;

export interface UsageBookOptions {
  stateDir: string;
  clock: Clock;
  log: (line: string) => void;
  retentionDays: number;
}

function add(days: DaysCounts, day: string, key: string, n: number): void {
  let counts = days.get(day);
  if (!counts) days.set(day, (counts = new Map()));
  counts.set(key, (counts.get(key) ?? 0) + n);
}

export class UsageBook {
  private readonly dir: string;
  private fd = -1;
  private journal = 0;
  /** Each day's answers since the last fold (journaled or not). */
  private counts: DaysCounts = new Map();
  /** What the journal has not said yet. */
  private fresh: DaysCounts = new Map();
  /** The day being counted, and its maps in `counts` and `fresh` (a count looks up no day). */
  private dayBegin = 0;
  private dayEnd = -1;
  private dayCounts: DayCounts = new Map();
  private dayFresh: DayCounts = new Map();
  /** The day the last fold was made on: the timer folds again when it changes. */
  private foldedOn: string;
  /** A background fold's days, and those of them already written (a stop folds only the rest). */
  private folding: { days: DaysCounts; written: Set<string> } | null = null;
  /** Folds and reads one at a time: a read sees each day's file and its counts in memory as one. */
  private turn: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly timer: NodeJS.Timeout;

  private constructor(private readonly options: UsageBookOptions) {
    this.dir = ensureUsageDir(options.stateDir);
    this.foldedOn = utcDay(options.clock.now());
    this.timer = setInterval(() => this.tick(), WRITE_EVERY_MS);
    this.timer.unref();
  }

  /** Fold what the journals hold into the day files and open a new journal. Throws QuotaStateError on bad state. */
  static open(options: UsageBookOptions): UsageBook {
    const book = new UsageBook(options);
    const last = usageJournals(book.dir).at(-1) ?? 0;
    const touched = new Set(readJournals(book.dir, () => 0).keys());
    book.journal = last;
    book.foldNow(readUsageDays(book.dir, touched), true);
    return book;
  }

  /** One answer served at `at` (a counted 200, a committed grading). */
  count(kind: string, scope: string, at: number): void {
    if (at >= this.dayEnd || at < this.dayBegin) this.switchDay(at);
    const key = usageKey(kind, scope);
    this.dayCounts.set(key, (this.dayCounts.get(key) ?? 0) + 1);
    this.dayFresh.set(key, (this.dayFresh.get(key) ?? 0) + 1);
  }

  /** Take back an answer of this turn that was not served after all (its lease could not be written). */
  uncount(kind: string, scope: string): void {
    const key = usageKey(kind, scope);
    const counted = this.dayCounts.get(key) ?? 0;
    if (counted === 0) return;
    this.dayCounts.set(key, counted - 1);
    this.dayFresh.set(key, (this.dayFresh.get(key) ?? 0) - 1);
  }

  private switchDay(at: number): void {
    const day = utcDay(at);
    this.dayBegin = dayStart(day);
    this.dayEnd = this.dayBegin + DAY_MS;
    this.dayCounts = this.counts.get(day) ?? new Map();
    this.counts.set(day, this.dayCounts);
    this.dayFresh = this.fresh.get(day) ?? new Map();
    this.fresh.set(day, this.dayFresh);
  }

  /** Forget the day cache: the next count finds its maps again (after `counts` or `fresh` changed). */
  private resetDay(): void {
    this.dayBegin = 0;
    this.dayEnd = -1;
  }

  private tick(): void {
    this.write();
    const today = utcDay(this.options.clock.now());
    if (today !== this.foldedOn && !this.folding) void this.foldInBackground();
  }

  /** What the journal has not said, in one write; on failure it is said again at the next. */
  write(): void {
    if (this.fd < 0) return;
    let text = '';
    for (const [day, counts] of this.fresh)
      for (const [key, n] of counts) if (n !== 0) text += usageJournalLine(day, key, n);
    if (text === '') return;
    const bytes = Buffer.from(text);
    try {
      let written = 0;
      while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written);
    } catch (error) {
      this.options.log(`usage history journal write failed (tried again in a second): ${(error as Error).message}`);
      return;
    }
    this.fresh = new Map();
    this.resetDay();
  }

  /** Start the next journal; the one before is synced and closed. */
  private rotate(): number {
    const next = this.journal + 1;
    const fd = openSync(join(this.dir, journalName(next)), 'a', 0o600);
    if (this.fd >= 0) {
      fsyncSync(this.fd);
      closeSync(this.fd);
    }
    this.fd = fd;
    this.journal = next;
    return next;
  }

  /** Journals before `next` and days past the retention go. */
  private sweep(next: number): void {
    for (const n of usageJournals(this.dir)) if (n < next) rmSync(join(this.dir, journalName(n)), { force: true });
    const oldest = oldestKept(utcDay(this.options.clock.now()), this.options.retentionDays);
    for (const day of dayFiles(this.dir)) if (day < oldest) rmSync(join(this.dir, dayFileName(day)), { force: true });
  }

  /**
   * Fold synchronously (start, stop): `days` are totals (start: file and journals) or the counts
   * since the last fold, added to each day's file.
   */
  private foldNow(days: DaysCounts, totals: boolean): void {
    const next = this.rotate();
    fsyncDir(this.dir);
    const oldest = oldestKept(utcDay(this.options.clock.now()), this.options.retentionDays);
    for (const [day, counts] of days) {
      if (day < oldest) continue;
      // The counts since the last fold are what the journals after its file say: the file alone is added to.
      const file = totals ? null : readDayFile(this.dir, day);
      const sum: DayCounts = totals ? counts : new Map(file?.keys.map((key, i) => [key, file.served[i]!]) ?? []);
      if (!totals) for (const [key, n] of counts) sum.set(key, (sum.get(key) ?? 0) + n);
      writeFileAtomic(join(this.dir, dayFileName(day)), dayFileText(day, next, [...sum.keys()].sort(), sum));
    }
    this.sweep(next);
    this.foldedOn = utcDay(this.options.clock.now());
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.then(work);
    this.turn = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  /** The same while serving, off the request path: a day's file read, sorted and written a slice a turn. */
  foldInBackground(): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed) return;
      this.write();
      const next = this.rotate();
      const days = this.counts;
      this.counts = new Map();
      this.fresh = new Map();
      this.resetDay();
      const folding = (this.folding = { days, written: new Set<string>() });
      this.foldedOn = utcDay(this.options.clock.now());
      const oldest = oldestKept(this.foldedOn, this.options.retentionDays);
      try {
        await fsyncDirAsync(this.dir);
        for (const [day, counts] of days) {
          if (day < oldest || this.closed) continue;
          const file = await readDayInTurns(this.dir, day);
          const sum: DayCounts = new Map();
          file?.keys.forEach((key, i) => sum.set(key, file.served[i]!));
          for (const [key, n] of counts) sum.set(key, (sum.get(key) ?? 0) + n);
          const keys = await sortInTurns([...sum.keys()]);
          await writeFileAtomicAsync(join(this.dir, dayFileName(day)), dayFileText(day, next, keys, sum), () => {
            if (this.closed) return false;
            folding.written.add(day);
            return true;
          });
        }
        if (!this.closed) this.sweep(next);
      } catch (error) {
        // What was not written stays counted (and journaled): the next fold writes it.
        for (const [day, counts] of days)
          if (!folding.written.has(day)) for (const [key, n] of counts) add(this.counts, day, key, n);
        this.resetDay();
        this.options.log(`usage history fold failed (its journals are kept): ${(error as Error).message}`);
      } finally {
        this.folding = null;
      }
    });
  }

  /** A day's counts in memory: since the last fold, and those of a fold under way not yet written. */
  private memoryOf(day: string): DayCounts {
    const sum: DayCounts = new Map(this.counts.get(day) ?? []);
    if (this.folding && !this.folding.written.has(day))
      for (const [key, n] of this.folding.days.get(day) ?? []) sum.set(key, (sum.get(key) ?? 0) + n);
    return sum;
  }

  /**
   * The rows from `from` to `to` (days, inclusive), by day then scope, in pieces, only those
   * served: each day's file with its counts in memory (usage-history-read.ts), one read at a
   * time and none while a fold runs.
   */
  async *history(from: string, to: string): AsyncGenerator<HistoryPiece> {
    const previous = this.turn;
    let release = () => {};
    this.turn = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      yield* historyRows(this.dir, from, to, (day) => this.memoryOf(day));
    } finally {
      release();
    }
  }

  /** One scope's rows from `from` to `to`, by day then kind (usage-history-read.ts). */
  scopeHistory(from: string, to: string, scope: string): Promise<UsageRow[]> {
    return scopeRows(this.dir, from, to, scope, (day) => this.memoryOf(day));
  }

  /** Write what is unsaid, fold, and close the journal (a graceful stop loses nothing). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.write();
    const days = this.counts;
    if (this.folding)
      for (const [day, counts] of this.folding.days)
        if (!this.folding.written.has(day)) for (const [key, n] of counts) add(days, day, key, n);
    try {
      this.foldNow(days, false);
    } catch (error) {
      this.options.log(`usage history fold at stop failed (its journals are kept): ${(error as Error).message}`);
    }
    if (this.fd >= 0) {
      closeSync(this.fd);
      this.fd = -1;
    }
  }
}
