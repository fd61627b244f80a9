/**
 * When the Redis client (src/redis/attempts.ts) tries again after a connection failed or ended,
 * and when a sentinel subscription (src/redis/sentinel-events.ts) does:
 * after a pause doubled with each failure up to a ceiling, reset by a connection that is ready.
 * And what the log hears of it: one line when an outage begins, one when it ends, not one a
 * retry or a reason (a failover goes through several: the connection reset, the old primary
 * refusing, the sentinels naming no primary yet); /readyz tells the current one.
 */
export interface Backoff {
  first: number;
  max: number;
}

export class Reconnection {
  private waitMs: number;
  private timer: NodeJS.Timeout | null = null;
  private inOutage = false;

  constructor(
    private readonly backoff: Backoff,
    /** The store as the log names it. */
    private readonly label: string,
    private readonly log?: (line: string) => void,
  ) {
    this.waitMs = backoff.first;
  }

  /**
   * An attempt failed, or a connection ended, for `reason`: `retry` after the pause. `state` is
   * what the log says of the store (`not used`: the sentinels name no primary to count on).
   */
  failed(reason: string, retry: () => void, state = 'unreachable'): void {
    if (!this.inOutage) {
      this.inOutage = true;
      this.log?.(`redis: ${this.label} ${state} (${reason}); retrying, answering 503 meanwhile`);
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      retry();
    }, this.waitMs);
    this.timer.unref();
    this.waitMs = Math.min(this.backoff.max, this.waitMs * 2);
  }

  /** Try now, not after the pause under way (the primary to use is known now). */
  now(retry: () => void): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    retry();
  }

  /** A connection is ready (to `where`): the pause starts afresh, and an outage logged ends. */
  succeeded(where: string): void {
    this.waitMs = this.backoff.first;
    if (this.inOutage) this.log?.(`redis: connected to ${where} again`);
    this.inOutage = false;
  }

  /** No more retries (the client closed). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
