/**
 * The leases of one event-loop turn, written to the journal together in one write call, and the
 * answers they cover, settled together once it is done (file-quota.ts).
 */
import type { Durable } from '../state/quota-counter.ts';

/** The leases of one event-loop turn, written together, and the answers they cover, settled together. */
export class Batch implements Durable {
  text = '';
  /** The counters of its lease lines, one a line. */
  readonly leases: string[] = [];
  /** The counters of the answers waiting for it, one an answer (taken back when the write fails). */
  readonly answers: string[] = [];
  private waiting: ((error: Error | null) => void)[] = [];
  /** Undefined until written; then null, or why the write failed. */
  private outcome: Error | null | undefined = undefined;

  addLease(counter: string, line: string): void {
    this.text += line;
    this.leases.push(counter);
  }

  onSettled(done: (error: Error | null) => void): void {
    if (this.outcome === undefined) this.waiting.push(done);
    else done(this.outcome);
  }

  /** Call every waiter; one that throws is reported and does not keep the others waiting. */
  settle(outcome: Error | null, report: (error: unknown) => void): void {
    this.outcome = outcome;
    const waiting = this.waiting;
    this.waiting = [];
    for (const done of waiting) {
      try {
        done(outcome);
      } catch (error) {
        report(error);
      }
    }
  }
}
