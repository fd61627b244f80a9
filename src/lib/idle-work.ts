/**
 * Warm-up work that can wait (compiling query validators): one step
 * per timer tick, and only once no request has arrived for a moment, so neither start-up nor
 * traffic queues behind it. What a request needs before it is warmed, the request makes
 * itself: validators also compile on first use.
 */
import { performance } from 'node:perf_hooks';
/** How long the server must have had no request before a step runs. */
export const QUIET_MS = 25;
const TICK_MS = 5;

export type Step = () => void;

export class IdleWork {
  /** Requests arrived, and when quiet() last saw their number change. */
  private arrived = 0;
  private arrivedSeen = 0;
  private seenBusyAt = -Infinity;
  private readonly steps: Step[] = [];
  private timer: NodeJS.Timeout | null = null;

  /**
   * A request arrived: warming waits until the server has been quiet for a moment. Counted, not
   * timed: node's `performance.now()` checks its receiver each call, which every request paid.
   */
  busy(): void {
    this.arrived++;
  }

  /**
   * Whether no request has arrived for QUIET_MS: background work may go faster. A request is
   * taken to have come when a call first sees it, never earlier, so the quiet is at least that.
   */
  quiet(): boolean {
    const now = performance.now();
    if (this.arrived !== this.arrivedSeen) {
      this.arrivedSeen = this.arrived;
      this.seenBusyAt = now;
    }
    return now - this.seenBusyAt >= QUIET_MS;
  }

  /** Queue steps, run in order, one at a time. */
  add(steps: Iterable<Step>): void {
    this.steps.push(...steps);
    this.schedule();
  }

  stop(): void {
    this.steps.length = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.timer || this.steps.length === 0) return;
    this.timer = setTimeout(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  private tick(): void {
    this.timer = null;
    if (this.quiet()) this.steps.shift()!();
    this.schedule();
  }
}
