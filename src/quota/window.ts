/**
 * The fixed-window rule, in memory: per counter a window that opens with its first counted
 * request and ends 24 hours later (not rolling), plus the slots held by requests under way.
 * No I/O; the journal makes it durable (journal.ts), FileQuota ties the two (file-quota.ts).
 *
 * Leases: beside each window's count of answers served it keeps the count the journal holds
 * (its lease ceiling), at most a lease ahead. An answer inside the written ceiling needs no
 * write; the first one past it needs a lease journaled (see file-quota.ts).
 *
 * Served marks: the journal also notes the answers served (on each lease line, and once a second
 * for a window served since), so that a reader beside a running server (keys usage) tells the
 * answers from the leases. A server's own replay counts the leases: it cannot know what a crash cut.
 */

import { counterId, counterParts } from './counter-ids.ts';
import type { QuotaStatus } from '../state/quota-counter.ts';

export const WINDOW_MS = 24 * 60 * 60 * 1000;

export interface Window {
  start: number;
  count: number;
}

/** The open windows at the moment of a compaction: a copy the counting that goes on cannot change. */
export interface WindowsCopy {
  /** How many windows are open at `now`. */
  length: number;
  /** By slot: a slot with no counter, or whose window ended by `now`, is no open window. */
  counters: (string | undefined)[];
  starts: Float64Array;
  /** What a server starting from the copy counts: the lease ceilings, or the answers at a stop. */
  counts: Float64Array;
  /** The answers served (keys usage reads them); equal to `counts` at a stop. */
  served: Float64Array;
  now: number;
}

/** Requests one journal line may count ahead of the answers: 1% of the quota, at least one. */
export function leaseSize(limit: number): number {
  return Math.max(1, Math.floor(limit / 100));
}

/** Where a count stands against its window's lease (after `take` or `countServed`). */
export const enum Coverage {
  /** Inside a lease already written: the answer may go now. */
  Written,
  /** Inside a lease queued this turn: the answer goes once the turn's write returns. */
  Queued,
  /** Past every lease: one must be journaled (`extendLease`) before the answer goes. */
  Uncovered,
}

/**
 * Windows are kept packed: a map from counter to a slot, each slot's counter, start and count in
 * arrays (slots of ended windows reused). A compaction's copy is then three array slices: with an
 * object a window, copying 200,000 of them held the loop 9-15 ms, the most of a background
 * compaction's hold (scripts/bench/quota-scale.ts).
 */
export class WindowCounts {
  private readonly slots = new Map<string, number>();
  /** Each slot's counter; undefined for a free slot. */
  private counters: (string | undefined)[] = [];
  private starts = new Float64Array(1024);
  private counts = new Float64Array(1024);
  /** Requests the journal counts for the window (written or queued): the lease ceiling, >= count. */
  private ceilings = new Float64Array(1024);
  /** The part of the ceiling whose journal lines were written. */
  private written = new Float64Array(1024);
  /** The count of answers the journal last noted (a lease line or a served mark); -1 when unsure. */
  private noted = new Float64Array(1024);
  /** Slots below this have been used; those in `free` may be used again. */
  private used = 0;
  private readonly free: number[] = [];
  /** Slots held by requests still under way (memory only: a crash ends those requests). */
  private readonly reserved = new Map<string, number>();

  /** The slot of a window open at `at` for this counter, or -1. */
  private openSlot(counter: string, at: number): number {
    const slot = this.slots.get(counter);
    return slot !== undefined && at < this.starts[slot]! + WINDOW_MS ? slot : -1;
  }

  /** Start a window for this counter (the slot it had, or a new one); `journaled` of its `count` are in the journal. */
  private open(counter: string, start: number, count: number, journaled: number): number {
    let slot = this.slots.get(counter);
    if (slot === undefined) {
      // Kept as counterId's own string, the one requests look it up with: a Map compares two
      // strings by their characters unless they are the same string (a window read from the
      // counts file cost each request of its day that compare; bench/analysis.md, "A shorter path").
      counter = counterId(...counterParts(counter));
      slot = this.free.pop() ?? this.used++;
      if (slot >= this.starts.length) this.grow();
      this.slots.set(counter, slot);
      this.counters[slot] = counter;
    }
    this.starts[slot] = start;
    this.counts[slot] = count;
    this.ceilings[slot] = this.written[slot] = journaled;
    this.noted[slot] = count;
    return slot;
  }

  private grow(): void {
    const twice = (array: Float64Array) => {
      const grown = new Float64Array(array.length * 2);
      grown.set(array);
      return grown;
    };
    this.starts = twice(this.starts);
    this.counts = twice(this.counts);
    this.ceilings = twice(this.ceilings);
    this.written = twice(this.written);
    this.noted = twice(this.noted);
  }

  /**
   * Count `n` journaled requests at time `at` (replaying a journal line): a new window when none is
   * open at `at`. With `served` (a reader beside a running server) the window's answers are that
   * many, not its ceiling; a served mark (`n` 0) of a window no longer open changes nothing.
   */
  apply(counter: string, at: number, n = 1, served?: number): void {
    let slot = this.openSlot(counter, at);
    if (slot < 0) {
      if (n === 0) return;
      slot = this.open(counter, at, 0, 0);
    }
    this.counts[slot] = served ?? this.counts[slot]! + n;
    this.ceilings[slot]! += n;
    this.written[slot]! += n;
  }

  /** Count one answer served at `at` whose slot was held (a committed reservation): a new window when none is open. */
  countServed(counter: string, at: number): void {
    const slot = this.openSlot(counter, at);
    if (slot >= 0) this.counts[slot]!++;
    else this.open(counter, at, 1, 0);
  }

  /** Whether the counter's last count is inside a written lease, a queued one, or none. */
  coverage(counter: string): Coverage {
    const slot = this.slots.get(counter)!;
    const count = this.counts[slot]!;
    if (count <= this.written[slot]!) return Coverage.Written;
    return count <= this.ceilings[slot]! ? Coverage.Queued : Coverage.Uncovered;
  }

  /** The counter's answers served, now noted by the journal line about to be written (a lease's). */
  noteServed(counter: string): number {
    const slot = this.slots.get(counter)!;
    return (this.noted[slot] = this.counts[slot]!);
  }

  /**
   * The counter's answers served, if its window is open at `now` and the journal has not noted them
   * (they are then taken as noted); -1 otherwise. For the served marks written once a second.
   */
  unnoted(counter: string, now: number): number {
    const slot = this.openSlot(counter, now);
    if (slot < 0 || this.noted[slot] === this.counts[slot]) return -1;
    return (this.noted[slot] = this.counts[slot]!);
  }

  /** The journal did not note what it was given: the next served mark says it again. */
  unnote(counter: string): void {
    const slot = this.slots.get(counter);
    if (slot !== undefined) this.noted[slot] = -1;
  }

  /** Raise the counter's lease ceiling by one lease (never past the limit); returns the requests it adds. */
  extendLease(counter: string, limit: number): number {
    const slot = this.slots.get(counter)!;
    const ceiling = this.ceilings[slot]!;
    const n = Math.max(1, Math.min(leaseSize(limit), limit - ceiling), this.counts[slot]! - ceiling);
    this.ceilings[slot] = ceiling + n;
    return n;
  }

  /** The counter's queued leases were written. */
  leaseWritten(counter: string): void {
    const slot = this.slots.get(counter);
    if (slot !== undefined) this.written[slot] = this.ceilings[slot]!;
  }

  /** The counter's queued leases could not be written: the ceiling falls back to what is written. */
  leaseFailed(counter: string): void {
    const slot = this.slots.get(counter);
    if (slot === undefined) return;
    this.ceilings[slot] = this.written[slot]!;
    this.noted[slot] = -1;
  }

  /**
   * Count one request at `at` if the limit allows (held slots included): the status after it,
   * or null when the quota is used up (nothing counted).
   */
  take(counter: string, limit: number, at: number): QuotaStatus | null {
    const reserved = this.reserved.size === 0 ? 0 : (this.reserved.get(counter) ?? 0);
    let slot = this.openSlot(counter, at);
    if (limit - (slot >= 0 ? this.counts[slot]! : 0) - reserved <= 0) return null;
    if (slot < 0) slot = this.open(counter, at, 0, 0);
    const count = ++this.counts[slot]!;
    const remaining = limit - count - reserved;
    return { limit, remaining, resetAt: this.starts[slot]! + WINDOW_MS, exhausted: remaining === 0 };
  }

  /** Take back a count that could not be made durable. */
  undo(counter: string): void {
    const slot = this.slots.get(counter);
    if (slot !== undefined) this.counts[slot]!--;
  }

  /** Where a counter stands against a limit at `now` (held slots included), counting nothing. */
  status(counter: string, limit: number, now: number): QuotaStatus {
    const reserved = this.reserved.get(counter) ?? 0;
    const slot = this.openSlot(counter, now);
    const remaining = Math.max(0, limit - (slot >= 0 ? this.counts[slot]! : 0) - reserved);
    return {
      limit,
      remaining,
      resetAt: (slot >= 0 ? this.starts[slot]! : now) + WINDOW_MS,
      exhausted: remaining === 0,
    };
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
    this.expireSlots(0, this.used, now);
  }

  /** The same for the slots from `from` to `to` (a slice of the work: the rest stays for later turns). */
  expireSlots(from: number, to: number, now: number): void {
    const { counters, starts } = this;
    for (let slot = from; slot < Math.min(to, this.used); slot++) {
      const counter = counters[slot];
      if (counter === undefined || now < starts[slot]! + WINDOW_MS) continue;
      this.slots.delete(counter);
      counters[slot] = undefined;
      this.free.push(slot);
    }
  }

  /** How many slots there are to look at (expireSlots). */
  get slotCount(): number {
    return this.used;
  }

  /**
   * A window as the counts file holds it: all of it journaled; `served` of it answered (a
   * reader's; a server counts it all).
   */
  set(counter: string, window: Window, served = window.count): void {
    this.open(counter, window.start, served, window.count);
  }

  /**
   * The windows open at `now`, copied as they stand: what a compaction writes while counting
   * goes on. Slices of the arrays and one pass over the copy; windows ended by `now` are left out.
   * `served` copies the answers served (exact; a graceful stop, after which nothing is counted);
   * otherwise the lease ceilings, which the journal lines after the copy build on.
   */
  openAt(now: number, served = false): WindowsCopy {
    const counters = this.counters.slice(0, this.used);
    const starts = this.starts.slice(0, this.used);
    let length = 0;
    for (let i = 0; i < counters.length; i++) if (counters[i] !== undefined && now < starts[i]! + WINDOW_MS) length++;
    const answers = this.counts.slice(0, this.used);
    return {
      length,
      counters,
      starts,
      counts: served ? answers : this.ceilings.slice(0, this.used),
      served: answers,
      now,
    };
  }

  /** The open windows, by counter (keys usage and migrate). */
  toRecord(): Record<string, Window> {
    const record: Record<string, Window> = {};
    this.slots.forEach((slot, counter) => (record[counter] = { start: this.starts[slot]!, count: this.counts[slot]! }));
    return record;
  }
}
