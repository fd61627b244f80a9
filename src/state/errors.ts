/**
 * The errors a state store throws when it cannot answer correctly, whichever store it is and
 * whether it holds keys or counts. The app answers the unavailable ones with a 503 in one place
 * (src/exchange.ts) and decides a request again on KeyChanged (src/app.ts); no store speaks HTTP.
 */
import { Unavailable } from '../lib/unavailable.ts';
import type { KeyRecord } from './key-record.ts';

/**
 * The key's record changed since the request was decided with it (another server's keys command
 * revoked, regenerated or changed it): nothing was counted. `record` is the key's record now, or
 * undefined when the key is no longer active.
 */
export class KeyChanged extends Error {
  constructor(readonly record: KeyRecord | undefined) {
    super(record ? "the key's record changed" : 'the key is no longer active');
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
