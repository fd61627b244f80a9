/**
 * A first-in, first-out limit on work in flight (CritPt gradings): `acquire` resolves when a
 * place is free, in arrival order; a waiter whose signal aborts leaves the queue.
 */
export class Limiter {
  private running = 0;
  private readonly waiting: { start: () => void; signal: AbortSignal; onAbort: () => void }[] = [];

  constructor(private readonly capacity: number) {}

  get queued(): number {
    return this.waiting.length;
  }

  /** Wait for a place; rejects with the signal's reason if it aborts first. Call release() after. */
  acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.running < this.capacity) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        signal,
        start: () => {
          signal.removeEventListener('abort', waiter.onAbort);
          this.running++;
          resolve();
        },
        onAbort: () => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(signal.reason);
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  release(): void {
    this.running--;
    this.waiting.shift()?.start();
  }
}
