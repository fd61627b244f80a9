/**
 * The state folder's keys as the server answers from them: never from a version of `keys.json`
 * it knows is stale. When the file has changed and cannot be read (its owner or mode changed, an
 * I/O error, an edit that left it broken), or cannot even be looked at, keyed requests wait while
 * it is tried again, for up to the grace (`--keys-grace`): a moment's failure costs a delay, not
 * an error, and a revocation in the unread version is never answered from the keys before it.
 * Past the grace they are answered 503 at once, until the file reads again. `/readyz` says so
 * from the first failure; the log says so once when it begins and once when it ends.
 */
import type { Clock } from '../lib/clock.ts';
import type { Conditions } from '../lib/conditions.ts';
import type { Eventually } from '../lib/eventually.ts';
import { StateUnavailable } from '../state/errors.ts';
import type { KeyStoreError } from './record.ts';
import type { KeyLookup, KeyRecord } from '../state/key-record.ts';

/** What FreshKeys needs of the file's index (FileKeys): whether it is the file's, and a lookup in it. */
export interface CheckedKeys {
  /** Null when the keys in memory are the file's, else why they may not be. */
  check(): KeyStoreError | null;
  find(plainKey: string): KeyRecord | undefined;
  /** Let go of the file. */
  close(): void;
}

export interface FreshKeysParts {
  clock: Clock;
  /** Where the failure is reported (readiness, and the log once each way). */
  conditions: Conditions;
  /** How long keyed requests wait for a file that cannot be read before they are answered 503. */
  graceMs: number;
}

/**
 * The key store cannot be read, past the grace: no key can be judged, so none is (fail closed, like
 * a Redis that is down).
 */
export class KeysUnavailable extends StateUnavailable {
  readonly retryAfterSeconds = 5;
  constructor() {
    super('API keys cannot be checked right now (the server cannot read its key store); retry later');
    this.name = 'KeysUnavailable';
  }
}

/** The condition's name in Conditions. */
export const KEYS_CONDITION = 'keys';
/** How often a file that cannot be read is tried again while the failure lasts (requests try it too, once a turn). */
export const RETRY_MS = 100;

interface Waiting {
  plainKey: string;
  resolve: (record: KeyRecord | undefined) => void;
  reject: (error: Error) => void;
}

export class FreshKeys implements KeyLookup {
  /** Since when (the clock's time) the keys in memory may be stale; null while they are the file's. */
  private failingSince: number | null = null;
  private retry: NodeJS.Timeout | null = null;
  private waiting: Waiting[] = [];

  constructor(
    private readonly keys: CheckedKeys,
    private readonly parts: FreshKeysParts,
  ) {}

  /**
   * The active key with this value: at once while the keys are the file's, later (or a
   * KeysUnavailable) while they may not be.
   */
  lookup(plainKey: string): Eventually<KeyRecord | undefined> {
    if (this.fresh()) return this.keys.find(plainKey);
    if (this.graceOver()) throw new KeysUnavailable();
    return new Promise((resolve, reject) => this.waiting.push({ plainKey, resolve, reject }));
  }

  /**
   * Check the file (once a turn at most) and whether the keys in memory are its own: the
   * failure begins with the first check that says no and ends with the first that says yes.
   * Readiness calls it too, so a change no keyed request has met yet shows in `/readyz` at once.
   */
  fresh(): boolean {
    const problem = this.keys.check();
    if (problem === null) {
      if (this.failingSince !== null) this.recovered();
      return true;
    }
    if (this.failingSince === null) this.failed(problem);
    return false;
  }

  /** Stop trying; requests still waiting are answered as the file stands now, then the file is let go. */
  close(): void {
    if (this.retry) clearInterval(this.retry);
    this.retry = null;
    this.answerWaiting();
    this.keys.close();
  }

  private failed(problem: KeyStoreError): void {
    const { clock, conditions, graceMs } = this.parts;
    this.failingSince = clock.now();
    // The reason stays the first failure's: what went wrong first is what the operator must undo.
    conditions.begin(
      KEYS_CONDITION,
      `keys: ${problem.message}; keyed requests wait up to ${graceMs / 1000} s for it to be read, then are answered ` +
        `503 until it is`,
    );
    this.retry = setInterval(this.tryAgain, RETRY_MS);
    this.retry.unref(); // never what keeps a stopped server's process alive
  }

  private recovered(): void {
    if (this.retry) clearInterval(this.retry);
    this.retry = null;
    this.failingSince = null;
    this.parts.conditions.end(KEYS_CONDITION);
    this.answerWaiting();
  }

  private readonly tryAgain = (): void => {
    // Fresh again: recovered() has answered the waiting requests. Past the grace: they are refused.
    if (!this.fresh() && this.graceOver()) this.answerWaiting();
  };

  private graceOver(): boolean {
    return this.failingSince !== null && this.parts.clock.now() - this.failingSince >= this.parts.graceMs;
  }

  /** Each waiting request gets its key from the file's keys, or KeysUnavailable when they may still be stale. */
  private answerWaiting(): void {
    const waiting = this.waiting;
    this.waiting = [];
    const fresh = this.failingSince === null;
    for (const { plainKey, resolve, reject } of waiting) {
      if (fresh) resolve(this.keys.find(plainKey));
      else reject(new KeysUnavailable());
    }
  }
}
