/**
 * What the failover tests and the failover bench do to a Sentinel set (scripts/sentinel-set.ts)
 * and read back from it: a manual failover, the waits for its promotion and for the set to be
 * whole again, a copy of the store cut loose (what an old primary behind a partition holds), and
 * the counts a data Redis keeps of an org. Every wait is the set's hang guard.
 */
import type { RedisProcess } from './redis-server.ts';
import { startRedisProcess } from './redis-server.ts';
import { nodeArgs, waitFor, type SentinelSet } from './sentinel-set.ts';

/**
 * A manual failover (`SENTINEL FAILOVER`), asked again while a sentinel sees no replica fit yet
 * (NOGOODSLAVE); the old primary's port.
 */
export async function manualFailover(set: SentinelSet): Promise<number> {
  const old = (await set.primary()).port;
  const started = async () => (await set.askSentinel(set.sentinelPorts[0]!, 'SENTINEL', 'FAILOVER', set.name)) === 'OK';
  await waitFor(started, 'a sentinel starts the failover', set.guardMs, 100);
  return old;
}

/** Once a majority of the sentinels names another primary than `old`: its port. */
export async function promoted(set: SentinelSet, old: number): Promise<number> {
  let primary = old;
  const moved = async () => (primary = (await set.primary().catch(() => null))?.port ?? old) !== old;
  await waitFor(moved, `a majority names another primary than ${old}`, set.guardMs, 100);
  return primary;
}

/**
 * Once a failover away from `old` is over: a majority names another primary, and every other
 * data Redis that runs replicates from it, linked (the old primary converted and synced: the
 * counts it took that its successor lacks are gone). The new primary's port.
 */
export async function settled(set: SentinelSet, old: number): Promise<number> {
  let primary = 0;
  const whole = async () => {
    primary = (await set.primary().catch(() => null))?.port ?? old;
    if (primary === old) return false;
    const others = set.nodes.filter((n) => n.port !== primary);
    const roles = await Promise.all(others.map((n) => set.askNode(n.port, 'ROLE').catch(() => null)));
    const linked = (role: unknown) =>
      Array.isArray(role) && role[0] === 'slave' && Number(role[2]) === primary && role[3] === 'connected';
    return roles.every((role) => role === null || linked(role));
  };
  await waitFor(whole, `the failover away from ${old} settles`, set.guardMs, 100);
  return primary;
}

/** A Redis holding a copy of the store, cut loose from the primary (on a set without TLS); the caller closes it. */
export async function storeCopy(set: SentinelSet): Promise<RedisProcess> {
  const copy = await startRedisProcess((port, dir) => nodeArgs(port, dir, {}, null), set.guardMs);
  const primary = await set.primary();
  await set.askNode(copy.port, 'REPLICAOF', '127.0.0.1', primary.port);
  const synced = async () =>
    String(await set.askNode(copy.port, 'INFO', 'replication')).includes('master_link_status:up');
  await waitFor(synced, 'the copy is synced', set.guardMs);
  await set.askNode(copy.port, 'REPLICAOF', 'NO', 'ONE');
  return copy;
}

/** The data window counts of an org in the data Redis on `port` (0 when it has none). */
export async function countIn(set: SentinelSet, port: number, org: string): Promise<number> {
  const keys = (await set.askNode(port, 'KEYS', `bda:quota:data:*${org}*`)) as string[];
  let total = 0;
  for (const key of keys) total += Number(await set.askNode(port, 'HGET', key, 'count'));
  return total;
}
