/**
 * The fixed-window rule, in memory: per counter a window that opens with its first counted
 * request and ends 24 hours later (not rolling), plus the slots held by requests under way.
 * No I/O; the journal makes it durable (journal.ts), the book ties the two (book.ts).
 */

export const WINDOW_MS = 24 * 60 * 60 * 1000;

/** Counters are kept per kind: the data routes and CritPt gradings have separate quotas. */
export type QuotaKind = 'data' | 'critpt';

export interface Window {
  start: number;
  count: number;
}

/** The open windows at the moment of a compaction: a copy the counting that goes on cannot change. */
export interface WindowsCopy {
  counters: string[];
  starts: number[];
  counts: number[];
}

export interface QuotaStatus {
  limit: number;
  remaining: number;
  /** End of the current window (ms); for a scope with no open window, when one opened now would end. */
  resetAt: number;
  /** True when no request may be counted until `resetAt`. */
  exhausted: boolean;
}

/** Is `window` open at `at`? A window ends WINDOW_MS after its first count. */
function isOpen(window: Window | undefined, at: number): window is Window {
  return window !== undefined && at < window.start + WINDOW_MS;
}

export function counterId(kind: QuotaKind, scope: string): string {
  return `${kind} ${scope}`;
}

export class WindowCounts {
  private readonly windows = new Map<string, Window>();
  /** Slots held by requests still under way (memory only: a crash ends those requests). */
  private readonly reserved = new Map<string, number>();

  /** Count one request at time `at`: a new window when none is open at `at`. */
  apply(counter: string, at: number): void {
    const window = this.windows.get(counter);
    if (isOpen(window, at)) window.count++;
    else this.windows.set(counter, { start: at, count: 1 });
  }

  /**
   * Count one request at `at` if the limit allows (held slots included): the status after it,
   * or null when the quota is used up (nothing counted). One lookup of each map.
   */
  take(counter: string, limit: number, at: number): QuotaStatus | null {
    const reserved = this.reserved.size === 0 ? 0 : (this.reserved.get(counter) ?? 0);
    let window = this.windows.get(counter);
    if (!isOpen(window, at)) window = undefined;
    if (limit - (window?.count ?? 0) - reserved <= 0) return null;
    if (!window) this.windows.set(counter, (window = { start: at, count: 0 }));
    window.count++;
    const remaining = limit - window.count - reserved;
    return { limit, remaining, resetAt: window.start + WINDOW_MS, exhausted: remaining === 0 };
  }

  /** Take back a count that could not be made durable. */
  undo(counter: string): void {
    const window = this.windows.get(counter);
    if (window) window.count--;
  }

  /** Where a counter stands against a limit at `now` (held slots included), counting nothing. */
  status(counter: string, limit: number, now: number): QuotaStatus {
    const reserved = this.reserved.get(counter) ?? 0;
    const window = this.windows.get(counter);
    const open = isOpen(window, now);
    const remaining = Math.max(0, limit - (open ? window.count : 0) - reserved);
    return { limit, remaining, resetAt: (open ? window.start : now) + WINDOW_MS, exhausted: remaining === 0 };
  }

  hold(counter: string): void {
    this.reserved.set(counter, (this.reserved.get(counter) ?? 0) + 1);
  }

  unhold(counter: string): void {
    const left = (this.reserved.get(counter) ?? 1) - 1;
    if (left > 0) this.reserved.set(counter, left);
    else this.reserved.delete(counter);
  }

  /** Forget windows that ended by `now`, so the state does not grow. */
  expire(now: number): void {
    for (const [counter, window] of this.windows) if (!isOpen(window, now)) this.windows.delete(counter);
  }

  set(counter: string, window: Window): void {
    this.windows.set(counter, { ...window });
  }

  /**
   * Forget windows that ended by `now` and copy the open ones: what a compaction writes while
   * counting goes on. One pass, no object a window: 200,000 windows in a few milliseconds.
   */
  openAt(now: number): WindowsCopy {
    const copy: WindowsCopy = { counters: [], starts: [], counts: [] };
    for (const [counter, window] of this.windows) {
      if (!isOpen(window, now)) this.windows.delete(counter);
      else {
        copy.counters.push(counter);
        copy.starts.push(window.start);
        copy.counts.push(window.count);
      }
    }
    return copy;
  }

  /** The open windows, by counter (keys usage and migrate). */
  toRecord(): Record<string, Window> {
    return Object.fromEntries(this.windows);
  }
}
