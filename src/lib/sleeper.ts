/**
 * Waits that can all be cut short at once: a stopping component wakes every one of them (a retry's
 * backoff, a first pull's pause) instead of leaving the process to sit out their timers.
 */
export class Sleeper {
  private readonly wakes = new Set<() => void>();
  private woken = false;

  /** Wait `ms`; true when cut short by wakeAll (then, and for every later wait, at once). */
  sleep(ms: number): Promise<boolean> {
    if (this.woken) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakes.delete(wake);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.wakes.delete(wake);
        resolve(false);
      }, ms);
      this.wakes.add(wake);
    });
  }

  /** End every wait under way, and every later one at once. */
  wakeAll(): void {
    this.woken = true;
    for (const wake of this.wakes) wake();
  }
}
