/**
 * Failovers while the soak runs on Sentinel: a manual `SENTINEL FAILOVER` 45 s into each odd
 * minute pair and, on a set of the soak's own (`--store sentinel`), the primary killed with
 * SIGKILL two minutes later (started again 10 s after, to come back as a replica), half-way
 * between the server kills and the key changes. While a fault lasts (from its start until every
 * server's /readyz answers 200 again) the servers' 503s are expected: the load counts them per
 * scope (a 503 may have been counted), and the key changes wait. Each fault is reported with how
 * long the servers took to be ready again.
 */
import type { Endpoint, SentinelTarget } from '../../src/redis/address.ts';
import type { RedisTls } from '../../src/redis/connection.ts';
import { ask } from '../../src/redis/sentinel-ask.ts';
import { waitFor, type SentinelSet } from '../sentinel-set.ts';
import { get } from './client.ts';
import type { SoakServers } from './servers.ts';

/** The first fault, and the time between faults (they alternate: a manual failover, then a kill). */
const FIRST_FAULT_MS = 45_000;
const FAULT_EVERY_MS = 120_000;
/** No fault starts later than this before the end: it must be over, its counts settled, by the verdict. */
const QUIET_END_MS = 30_000;
/** How long every server must stay ready for a fault to be over (longer than a probe and its WAIT). */
const STEADY_MS = 3000;
/** How long a fault may last before it is a failure. */
const FAULT_GUARD_MS = 120_000;
/** A killed primary comes back this long after, as a replica of the new one. */
const RESTART_AFTER_MS = 10_000;

export interface SentinelsToFault {
  target: SentinelTarget;
  tls: RedisTls | null;
  /** The soak's own set (its primary may be killed), or null for one it was given. */
  own: SentinelSet | null;
}

export class StoreFaults {
  /** What happened, a line a fault. */
  readonly outcomes: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private count = 0;

  constructor(
    private readonly sentinels: SentinelsToFault,
    private readonly servers: SoakServers,
    private readonly serverCount: number,
    private readonly failures: string[],
  ) {}

  start(deadline: number): void {
    const began = Date.now();
    const next = (at: number) => {
      if (at > deadline - QUIET_END_MS) return;
      this.timer = setTimeout(() => {
        const n = this.count++;
        this.running = this.running.then(() => this.fault(n, Math.round((Date.now() - began) / 1000)));
        next(at + FAULT_EVERY_MS);
      }, at - Date.now());
    };
    next(began + FIRST_FAULT_MS);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.running;
  }

  private async fault(n: number, atSeconds: number): Promise<void> {
    const kill = n % 2 === 1 && this.sentinels.own !== null;
    this.servers.storeFaulted = true;
    const t0 = performance.now();
    try {
      const what = kill ? await this.killPrimary() : await this.manualFailover();
      const readyAt = await this.untilReady();
      this.outcomes.push(
        `${what} at ${atSeconds} s: every server ready again after ${((readyAt - t0) / 1000).toFixed(1)} s`,
      );
    } catch (error) {
      this.failures.push(`store fault ${n} at ${atSeconds} s: ${(error as Error).message}`);
    } finally {
      // Requests answered just before the servers said ready are the fault's too.
      setTimeout(() => (this.servers.storeFaulted = false), 500);
    }
  }

  private async askSentinels(args: (string | number)[]): Promise<unknown[]> {
    const { target, tls } = this.sentinels;
    return Promise.all(
      target.sentinels.map((node: Endpoint) =>
        ask(node, tls, target.auth, [args], 2000).then(
          ([reply]) => reply,
          () => null,
        ),
      ),
    );
  }

  private async primary(): Promise<string | null> {
    const named = await this.askSentinels(['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.sentinels.target.masterName]);
    const labels = named.filter(Array.isArray).map((reply) => (reply as string[]).join(':'));
    const majority = Math.floor(this.sentinels.target.sentinels.length / 2) + 1;
    return labels.find((label) => labels.filter((l) => l === label).length >= majority) ?? null;
  }

  private async manualFailover(): Promise<string> {
    const { target, tls } = this.sentinels;
    const old = await this.primary();
    for (let tries = 0; ; tries++) {
      // Refused while a sentinel has yet to see a replica as fit (NOGOODSLAVE): asked again.
      const [reply] = await ask(
        target.sentinels[0]!,
        tls,
        target.auth,
        [['SENTINEL', 'FAILOVER', target.masterName]],
        2000,
      );
      if (reply === 'OK') break;
      if (tries > 100) throw new Error(`SENTINEL FAILOVER refused: ${JSON.stringify(reply)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await this.until(async () => ((await this.primary()) ?? old) !== old, 'a majority names the promoted replica');
    return `manual failover from ${old}`;
  }

  private async killPrimary(): Promise<string> {
    const own = this.sentinels.own!;
    const old = await own.primary();
    await old.stop('SIGKILL');
    await this.until(
      async () => ((await own.primary().catch(() => null))?.port ?? old.port) !== old.port,
      'a majority names a promoted replica',
    );
    setTimeout(
      () =>
        void old
          .start()
          .catch((error: Error) => this.failures.push(`the killed primary did not start again: ${error.message}`)),
      RESTART_AFTER_MS,
    );
    return `primary 127.0.0.1:${old.port} killed (SIGKILL)`;
  }

  /**
   * When every server became ready again for good: ready, and still ready STEADY_MS later. A
   * server may say ready at once on the promoted replica and find at its next probe that the
   * replicas --store-replicas asks for are not all there yet (the old primary converted and
   * synced only seconds later): the fault lasts until then.
   */
  private async untilReady(): Promise<number> {
    let since: number | null = null;
    await this.until(async () => {
      const replies = await Promise.all(
        Array.from({ length: this.serverCount }, (_, n) => get(this.servers.port(n), '/readyz', '').catch(() => null)),
      );
      if (!replies.every((reply) => reply?.status === 200)) since = null;
      else since ??= performance.now();
      return since !== null && performance.now() - since >= STEADY_MS;
    }, 'every server ready again');
    return since!;
  }

  /** A hang guard: a fault that is not over in two minutes is a failure. */
  private until(done: () => Promise<boolean>, what: string): Promise<void> {
    return waitFor(done, what, FAULT_GUARD_MS, 100);
  }
}
