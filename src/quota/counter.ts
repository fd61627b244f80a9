/**
 * What the app needs of a quota store, whichever it is (the state folder's book, or Redis
 * shared by several servers), and the errors a store throws when it cannot count. The app maps
 * those errors to a 503 in one place (src/exchange.ts); no store speaks HTTP.
 */
import { Unavailable } from '../lib/unavailable.ts';
import type { Eventually } from '../lib/eventually.ts';
import type { KeyRecord } from '../keys/record.ts';
import type { QuotaKind, QuotaStatus } from './window.ts';

export type { QuotaKind, QuotaStatus } from './window.ts';

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

/**
 * The key's record changed since the request was decided with it (another server's keys command
 * revoked, regenerated or changed it): nothing was counted. `record` is the key's record now, or
 * undefined when the key is no longer active.
 */
export class KeyChanged extends Error {
  constructor(readonly record: KeyRecord | undefined) {
    super(record ? 'the key\'s record changed' : 'the key is no longer active');
    this.name = 'KeyChanged';
  }
}

/**
 * State the server cannot read or write right now, so it cannot answer correctly: nothing is
 * served uncounted and no key is judged from state it could not read. `retryAfterSeconds` is
 * how soon trying again makes sense.
 */
export abstract class StateUnavailable extends Unavailable {}

/** The state folder's quota journal could not be written (a full disk, a folder made read-only). */
export class JournalUnavailable extends StateUnavailable {
  readonly retryAfterSeconds = 10;
  constructor(options?: ErrorOptions) {
    super('Quota bookkeeping is unavailable (state folder not writable); retry later', options);
    this.name = 'JournalUnavailable';
  }
}

/** The shared state store (Redis) cannot be reached, or refused a command. It reconnects within a second. */
export class StoreUnavailable extends StateUnavailable {
  readonly retryAfterSeconds = 2;
  constructor(options?: ErrorOptions) {
    super('Quota bookkeeping is unavailable (the shared state store cannot be reached); retry later', options);
    this.name = 'StoreUnavailable';
  }
}

/**
 * The shared store answers but holds no key store: it was emptied (FLUSHALL, a restart without
 * persistence) or never written. Its clients' keys are not invalid, the server lost them: a 503
 * until the operator restores the store, never a 401 that tells them their key is bad.
 */
export class StoreReset extends StateUnavailable {
  readonly retryAfterSeconds = 10;
  constructor() {
    super('The key store is empty or was reset; retry later');
    this.name = 'StoreReset';
  }
}
