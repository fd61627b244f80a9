/**
 * The primary a set of sentinels names, kept up to date for the Redis client (src/redis/client.ts):
 * every listed sentinel is asked at once, in rounds, and the verdict is the rule of
 * src/redis/sentinel-verdict.ts (a majority at the newest epoch, no failover deciding).
 *
 * A server's watch (`watch` given) also listens: it subscribes to each sentinel's events
 * (src/redis/sentinel-events.ts), so a failover announced stops counting at once, before the
 * replica is promoted, and any change of view starts a round at once; and it asks again every
 * probe interval, every 100 ms while counting is stopped (for 10 s, then at the interval), so
 * counting resumes within a round of the sentinels agreeing. Without `watch` (the keys command)
 * a round is asked only when a connection needs the primary.
 *
 * Every verdict that differs from the last is handed to the followers: the client connects to
 * the primary named, leaves one no longer named, and refuses commands while none is.
 */
import { performance } from 'node:perf_hooks';
import { endpointLabel, type Endpoint, type SentinelTarget } from './address.ts';
import type { RedisTls } from './connection.ts';
import { ask } from './sentinel-ask.ts';
import { SentinelEvents } from './sentinel-events.ts';
import {
  DECIDING_EVENTS,
  dissentWarning,
  judge,
  readAnswer,
  type SentinelAnswer,
  type Verdict,
} from './sentinel-verdict.ts';

/** How often to ask while counting is stopped, and for how long before falling back to the interval. */
const STOPPED_ROUND_MS = 100;
const STOPPED_QUICK_FOR_MS = 10_000;
/**
 * How long a failover announced by a sentinel that no longer answers holds counting stopped. A
 * sentinel running a failover announces each step, so a live one renews it; one that died
 * mid-failover leaves the decision to the others (who either finish the failover or convert a
 * half-promoted replica back), which a majority then names.
 */
const ANNOUNCEMENT_LIFE_MS = 5_000;

/** Where a Redis client connects: found anew at each attempt, and followed when it changes. */
export interface PrimarySource {
  /** The primary to connect to now, from a round started now; rejects saying why none may be used. */
  find(): Promise<Endpoint>;
  /** `listener` hears each verdict that differs from the last: the primary, or why none may be used. */
  follow(listener: (verdict: Endpoint | string) => void): void;
  close(): void;
}

export interface SentinelWatchOptions {
  target: SentinelTarget;
  tls: RedisTls | null;
  /** What each round's questions (and each connection) may take. */
  timeoutMs: number;
  /** A server's watch: events, a round every `intervalMs`, and the dissent warning (null: none). */
  watch?: { intervalMs: number; warn: (warning: string | null) => void };
}

interface SentinelState {
  node: Endpoint;
  label: string;
  said: SentinelAnswer | string;
  /** A failover it announced, and when it last did, until an answer it gave after that. */
  announced: { event: string; at: number } | null;
}

export class SentinelWatch implements PrimarySource {
  private readonly states: SentinelState[];
  private readonly subscriptions: SentinelEvents[] = [];
  private readonly listeners: ((verdict: Endpoint | string) => void)[] = [];
  /** The last verdict handed to the followers, as text (a primary's label or the problem). */
  private told: string | null = null;
  private stoppedSince: number | null = null;
  private round: Promise<Verdict> | null = null;
  private next: Promise<Verdict> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: SentinelWatchOptions) {
    const { target, tls, timeoutMs, watch } = options;
    this.states = target.sentinels.map((node) => ({
      node,
      label: endpointLabel(node),
      said: 'not asked yet',
      announced: null,
    }));
    if (!watch) return;
    for (const state of this.states) {
      const heard = (channel: string) => this.heard(state, channel);
      this.subscriptions.push(
        new SentinelEvents({
          node: state.node,
          tls,
          auth: target.auth,
          masterName: target.masterName,
          timeoutMs,
          heard,
        }),
      );
    }
  }

  async find(): Promise<Endpoint> {
    const verdict = await this.ask();
    if ('problem' in verdict) throw new Error(verdict.problem);
    return verdict.primary;
  }

  follow(listener: (verdict: Endpoint | string) => void): void {
    this.listeners.push(listener);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const subscription of this.subscriptions) subscription.close();
  }

  /** A round that starts now or, when one is under way (it may have asked before a change), right after it. */
  private ask(): Promise<Verdict> {
    if (!this.round) {
      this.round = this.askAll().finally(() => (this.round = null));
      return this.round;
    }
    this.next ??= this.round.then(() => {
      this.next = null;
      return this.ask();
    });
    return this.next;
  }

  private async askAll(): Promise<Verdict> {
    const { target, tls, timeoutMs } = this.options;
    const started = performance.now();
    const questions = [
      ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', target.masterName],
      ['SENTINEL', 'MASTER', target.masterName],
    ];
    await Promise.all(
      this.states.map(async (state) => {
        try {
          const [address, master] = await ask(state.node, tls, target.auth, questions, timeoutMs);
          state.said = readAnswer(target.masterName, address, master);
          // An answer given after an announcement tells how that failover stands.
          if (typeof state.said !== 'string' && state.announced && state.announced.at <= started)
            state.announced = null;
        } catch (error) {
          state.said = (error as Error).message;
          if (state.announced && performance.now() - state.announced.at > ANNOUNCEMENT_LIFE_MS) state.announced = null;
        }
      }),
    );
    const verdict = this.decide();
    this.scheduleRound();
    return verdict;
  }

  /** Judge what the sentinels said, and tell the followers when the verdict changed. */
  private decide(): Verdict {
    const { target, watch } = this.options;
    const reports = this.states.map(({ label, said, announced }) => ({
      sentinel: label,
      said,
      announced: announced?.event ?? null,
    }));
    const verdict = judge(target.masterName, reports);
    const told = 'problem' in verdict ? verdict.problem : endpointLabel(verdict.primary);
    if ('problem' in verdict) this.stoppedSince ??= performance.now();
    else {
      this.stoppedSince = null;
      // Only beside a primary counted on: a stop says it all, and the warning lasts across it.
      watch?.warn(dissentWarning(target.masterName, verdict, reports.length));
    }
    if (told !== this.told && !this.closed) {
      this.told = told;
      for (const listener of this.listeners) listener('problem' in verdict ? verdict.problem : verdict.primary);
    }
    return verdict;
  }

  /** An event about the primary: a failover announced stops counting now; any asks again at once. */
  private heard(state: SentinelState, channel: string): void {
    if (this.closed) return;
    if (DECIDING_EVENTS.includes(channel)) {
      state.announced = { event: channel, at: performance.now() };
      this.decide();
    }
    void this.ask();
  }

  private scheduleRound(): void {
    const { watch } = this.options;
    if (!watch || this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    const quick = this.stoppedSince !== null && performance.now() - this.stoppedSince < STOPPED_QUICK_FOR_MS;
    this.timer = setTimeout(
      () => void this.ask(),
      quick ? Math.min(STOPPED_ROUND_MS, watch.intervalMs) : watch.intervalMs,
    );
    this.timer.unref();
  }
}
