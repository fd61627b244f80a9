/**
 * What the app needs of a quota store, whichever it is (the state folder's, or Redis shared by
 * several servers). Here, below both keys/ and quota/, with the key record it counts by, so that
 * neither imports the other.
 */
import type { Eventually } from '../lib/eventually.ts';
import type { KeyRecord } from './key-record.ts';

/** Counters are kept per kind: the data routes and CritPt gradings have separate quotas. */
export const QUOTA_KINDS = ['data', 'critpt'] as const;
export type QuotaKind = (typeof QUOTA_KINDS)[number];

export interface QuotaStatus {
  limit: number;
  remaining: number;
  /** End of the current window (ms); for a scope with no open window, when one opened now would end. */
  resetAt: number;
  /** True when no request may be counted until `resetAt`. */
  exhausted: boolean;
}

/** A held quota slot: commit counts it (the promise settles once it is durable), release frees it. */
export interface Reservation {
  commit(): Promise<void>;
  release(): void;
}

/**
 * When a count is durable: `onSettled` calls back once, with null when the count is in the
 * journal (or in Redis) and with the error when it could not be recorded. A callback and not a
 * promise: on the request path a promise and its reactions a request cost more than the count
 * (BENCHMARKS.md, "Counting cost").
 */
export interface Durable {
  onSettled(done: (error: Error | null) => void): void;
}

/** A count that was durable by the time it was made (a shared store counts before it answers). */
export const DURABLE_NOW: Durable = { onSettled: (done) => done(null) };

/** The same as a promise, for callers that can afford one. */
export function settled(durable: Durable): Promise<void> {
  return new Promise((resolve, reject) => durable.onSettled((error) => (error ? reject(error) : resolve())));
}

/** A counted request: the status after it, and when it is durable (null: refused, nothing counted). */
export interface Taken {
  status: QuotaStatus;
  durable: Durable | null;
}

/** A held slot (null: none free) and the status with it held. */
export interface Reserved {
  status: QuotaStatus;
  reservation: Reservation | null;
}

/**
 * Every answer may come later (a store shared by several servers answers over the network); the
 * file-backed book answers at once, and the request path stays synchronous while it does.
 *
 * `key` is the record the request was decided with. A store shared by several servers checks,
 * in the same step, that it is still the key's record in the store, and throws KeyChanged when
 * it is not (nothing counted): the request is then decided again. The state folder's store has
 * no need: its records are the file's own (src/keys/fresh-keys.ts).
 */
export interface QuotaCounter {
  /** Where a scope stands, counting nothing (for the headers of every answer). */
  status(kind: QuotaKind, scope: string, limit: number, key?: KeyRecord): Eventually<QuotaStatus>;
  /** Count one request if the quota allows; send the answer once `durable` has settled. */
  take(kind: QuotaKind, scope: string, limit: number, key?: KeyRecord): Eventually<Taken>;
  /** Hold a slot whose outcome decides whether it counts; commit counts it, release refunds it. */
  reserve(kind: QuotaKind, scope: string, limit: number, key?: KeyRecord): Eventually<Reserved>;
}
