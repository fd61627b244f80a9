/**
 * Served marks: the answers served, noted in the journal for a reader beside the running server
 * (keys usage). Once a second a mark (`[KIND, SCOPE, AT, 0, SERVED]`) goes for each window served
 * since without a lease line, so a reader is at most a second behind the server's own figure, not
 * up to a lease ahead of it.
 */
import type { Clock } from '../lib/clock.ts';
import { journalLine, type QuotaJournal } from './journal.ts';
import { counterParts } from './counter-ids.ts';
import type { WindowCounts } from './window.ts';

/** How often the answers served since are noted in the journal (served marks). */
export const MARK_SERVED_EVERY_MS = 1000;

/** The counters that served answers since the last marks, and the marks' writing, once a second. */
export class ServedMarks {
  /** Counters that served an answer since the last served marks. */
  private readonly served = new Set<string>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly counts: WindowCounts,
    private readonly journal: QuotaJournal,
    private readonly options: { clock: Clock; log: (line: string) => void },
    /** Writes the leases pending, before any mark. */
    private readonly flush: () => void,
  ) {
    this.timer = setInterval(() => this.write(), MARK_SERVED_EVERY_MS);
    this.timer.unref();
  }

  /** A counter served an answer (or is to be marked again). */
  add(counter: string): void {
    this.served.add(counter);
  }

  /**
   * Note in the journal the answers served since the last marks, for each window whose lease
   * lines have not already said them. What is pending goes first, so no mark is followed by a
   * lease line written before it with fewer answers. A failed write is said, and tried again.
   */
  write(): void {
    if (this.served.size === 0) return;
    this.flush();
    const now = this.options.clock.now();
    let text = '';
    const marked: string[] = [];
    for (const counter of this.served) {
      const served = this.counts.unnoted(counter, now);
      if (served < 0) continue;
      text += journalLine(...counterParts(counter), now, 0, served);
      marked.push(counter);
    }
    this.served.clear();
    if (marked.length === 0) return;
    try {
      this.journal.append(text, marked.length);
    } catch (error) {
      for (const counter of marked) {
        this.counts.unnote(counter);
        this.served.add(counter);
      }
      this.options.log(
        `quota journal write of served marks failed (keys usage lags until one is written): ` +
          `${(error as Error).message}`,
      );
    }
  }

  /** No more marks on the timer (a stop writes the exact counts). */
  stop(): void {
    clearInterval(this.timer);
  }
}
