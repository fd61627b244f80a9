/**
 * Warm-up work that can wait (compiling query validators): one step
 * per timer tick, and only once no request has arrived for a moment, so neither start-up nor
 * traffic queues behind it. What a request needs before it is warmed, the request makes
 * itself: validators also compile on first use.
 */
/** How long the server must have had no request before a step runs. */
export const QUIET_MS = 25;
const TICK_MS = 5;

export type Step = () => void;

export class IdleWork {
  private lastRequest = -Infinity;
  private readonly steps: Step[] = [];
  private timer: NodeJS.Timeout | null = null;

  /** A request arrived: warming waits until the server has been quiet for a moment. */
  busy(): void {
    this.lastRequest = performance.now();
  }

  /** Whether no request has arrived for QUIET_MS: background work may go faster. */
  quiet(): boolean {
    return performance.now() - this.lastRequest >= QUIET_MS;
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
