/**
 * Whether the Redis the servers share keeps and takes what they write, checked at start, on
 * every reconnection and by a probe every second, so /readyz tells the truth even while no
 * request comes:
 *
 * - Its eviction policy. Under memory pressure any other policy than `noeviction` drops keys:
 *   the quota windows first (they expire, so `volatile-*` picks them: a used quota starts
 *   afresh), or the key records themselves (`allkeys-*`: every key is refused as invalid).
 *   With `noeviction` Redis refuses writes instead (OOM), which the server answers with 503s
 *   and reports. Read from `INFO memory`, not CONFIG, which managed Redis often disables.
 * - That writes work and the store's scripts run (src/redis/refusals.ts ends what they prove gone).
 * - The store's own check (the key store's marker, src/keys/redis-keys.ts), in the same round.
 * - Whether it keeps its data across a restart (src/redis/persistence.ts): a warning, not a condition.
 * - With Sentinel, that it still talks to the primary (ROLE): one demoted while no write came
 *   would otherwise keep the connection; a replica is dropped and the sentinels asked again.
 *   The probe's write is confirmed on the replicas as counts are (--store-replicas).
 *
 * A round is a few commands sent in one write, pipelined beside the requests' on the one
 * connection; nothing waits for it.
 */
import { hostname } from 'node:os';
import type { Conditions } from '../lib/conditions.ts';
import { RedisCommandError, type RedisClient } from './client.ts';
import type { Refusals } from './refusals.ts';
import { readInfo } from './info.ts';
import { PERSISTENCE_WARNING, readPersistence } from './persistence.ts';

/** How often the probe runs. */
export const PROBE_INTERVAL_MS = 1000;
/** How long the probe's key outlives the last server that wrote it. */
const PROBE_KEY_TTL_MS = 60_000;
/** The probe's write, as a command the refusals are held for. */
const PROBE_WRITE = 'probe write';

export const POLICY_CONDITION = 'redis eviction policy';

/** What to do about an eviction policy, for the start-up refusal and /readyz. */
const FIX =
  'run `CONFIG SET maxmemory-policy noeviction` on it and set `maxmemory-policy noeviction` in its redis.conf';

/** Null when `INFO memory`'s fields say Redis never evicts; else why that will not do and the fix. */
export function evictionPolicyProblem(info: ReadonlyMap<string, string>, label: string): string | null {
  const policy = info.get('maxmemory_policy');
  if (policy === 'noeviction') return null;
  if (policy === undefined)
    return `Redis at ${label} did not report maxmemory_policy in INFO memory; it must be noeviction: ${FIX}`;
  return (
    `Redis at ${label} has maxmemory-policy ${policy}: when memory runs short it drops keys, ` +
    `the quota windows (used quotas start afresh) or the key records (valid keys refused); ${FIX}`
  );
}

/**
 * Null when Redis's eviction policy is `noeviction`, else the problem. A refused INFO (an ACL)
 * is a problem too: a policy that cannot be read cannot be trusted. RedisUnavailable (the
 * connection went) is thrown: the connection's own problem reports that.
 */
export async function readEvictionPolicy(client: RedisClient): Promise<string | null> {
  const label = client.address.label;
  const info = await readInfo(client, 'memory');
  if (info instanceof RedisCommandError)
    return (
      `cannot read the eviction policy of Redis at ${label} (${info.message}); allow this server's user INFO, ` +
      `and make sure maxmemory-policy is noeviction`
    );
  return evictionPolicyProblem(info, label);
}

export interface RedisHealthOptions {
  client: RedisClient;
  conditions: Conditions;
  /** Where what does not keep the server from answering is reported (Redis keeping nothing on disk). */
  warnings: Conditions;
  refusals: Refusals;
  /** The Redis key the probe writes (expiring) to see that writes work. */
  probeKey: string;
  /** The store's own check, run in each round by a script; it reports its own findings and rejects when it failed. */
  storeCheck: () => Promise<unknown>;
  logError: (line: string) => void;
  /** Default PROBE_INTERVAL_MS; tests shorten it. */
  intervalMs?: number;
}

export class RedisHealth {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly probeValue = `${hostname()} ${process.pid}`;

  constructor(private readonly options: RedisHealthOptions) {}

  /** Run a round now and one every interval after it (a timer that keeps no process alive). */
  async start(): Promise<void> {
    await this.round();
    if (this.stopped) return;
    this.timer = setInterval(() => void this.round(), this.options.intervalMs ?? PROBE_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * One round (or the one under way); it never rejects. Skipped while Redis is unreachable: the
   * client reports that.
   */
  round(): Promise<void> {
    if (this.running) return this.running;
    if (this.stopped || this.options.client.problem() !== null) return Promise.resolve();
    this.running = this.probe()
      .catch((error: unknown) => this.options.logError(`redis probe: ${(error as Error)?.stack ?? String(error)}`))
      .finally(() => (this.running = null));
    return this.running;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async probe(): Promise<void> {
    const { client, conditions, warnings, refusals, probeKey, storeCheck } = this.options;
    // Sent in this turn, so in one write; replies come in order with the requests' beside them.
    const [policy, store, write, persistence, role] = await Promise.allSettled([
      readEvictionPolicy(client),
      storeCheck(),
      client.sendReplicated(['SET', probeKey, this.probeValue, 'PX', PROBE_KEY_TTL_MS]),
      readPersistence(client),
      client.address.sentinel ? client.send(['ROLE']) : null,
    ]);
    if (role.status === 'fulfilled' && Array.isArray(role.value) && role.value[0] !== 'master') {
      client.reconnect(
        `the Redis the sentinels named is a ${String(role.value[0])} now (ROLE), no longer the primary; asking them ` +
          `again`,
      );
      return;
    }
    if (policy.status === 'fulfilled') {
      if (policy.value === null) conditions.end(POLICY_CONDITION);
      else conditions.begin(POLICY_CONDITION, policy.value);
    }
    if (persistence.status === 'fulfilled') warnings.report(PERSISTENCE_WARNING, persistence.value);
    if (write.status === 'fulfilled') refusals.answered(PROBE_WRITE);
    else if (write.reason instanceof RedisCommandError) refusals.refused(PROBE_WRITE, write.reason);
    if (write.status === 'fulfilled' && store.status === 'fulfilled') refusals.probeSucceeded();
  }
}
