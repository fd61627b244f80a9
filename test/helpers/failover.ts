/**
 * Servers on a Sentinel set, for the failover tests: started in-process on a `redis-sentinel://`
 * URL with their log kept, keys made by the keys command over that URL, and the replicas a
 * failover waits for (what the tests do to the set itself is scripts/sentinel-faults.ts, shared
 * with the failover bench). Nothing is timed: the waits are hang guards.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS, type ServerOptions } from '../../src/config.ts';
import { parseSentinelUrl } from '../../src/redis/sentinel-url.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import type { SentinelSet } from '../../scripts/sentinel-set.ts';
import { keysCommand } from './redis.ts';
import { until } from './wait.ts';

export interface LoggedServer {
  server: RunningServer;
  url: string;
  /** Everything it logged, in order. */
  lines: string[];
}

/**
 * A server on the sentinels of `url` (TLS trusting `set.trust`), on the snapshot in `snapshotDir`;
 * its Redis probe and sentinel rounds every `probeMs` (a second in production).
 */
export async function serveOn(
  set: SentinelSet,
  snapshotDir: string,
  root: string,
  options: Partial<ServerOptions> & { url?: string; probeMs?: number } = {},
): Promise<LoggedServer> {
  const { url = set.url, probeMs = 200, ...rest } = options;
  const lines: string[] = [];
  const store = parseSentinelUrl(url, set.trust ?? undefined);
  const server = await startServer(
    {
      ...DEFAULT_OPTIONS,
      port: 0,
      snapshotDir,
      stateDir: mkdtempSync(join(root, 'unused-state-')),
      store,
      quiet: true,
      ...rest,
    },
    { log: (line) => lines.push(line), logError: (line) => lines.push(line), redisProbeMs: probeMs },
  );
  return { server, url: server.url, lines };
}

/**
 * A key made by the keys command over the sentinels' URL (`args` after `create`), once every
 * replica has it (replicasCaughtUp): a test fails over next, and a replica promoted before the
 * write reached it would rightly read as a reset store.
 */
export async function createKeyOn(set: SentinelSet, ...args: string[]): Promise<string> {
  const made = await keysCommand(
    'create',
    ...args,
    '--json',
    '--store',
    set.url,
    ...(set.trust ? ['--store-ca', set.caFile!] : []),
  );
  assert.is(made.status, 0, made.stderr);
  await replicasCaughtUp(set);
  return (JSON.parse(made.stdout) as { key: string }).key;
}

/**
 * Every replica has applied the primary's writes so far: its link up and its `slave_repl_offset`
 * at least the primary's `master_repl_offset`, read first. Sentinel promotes without waiting for
 * a replica to catch up, so on a starved machine (two suites at once) a failover right after a
 * write could promote a replica still syncing or without the write; in production that is the
 * replication lag the docs describe, here it would be a flaky test. A node that does not answer
 * (killed by a test) or is not a replica (an old primary not yet converted, which syncs in full
 * once it is) is not waited for.
 */
export async function replicasCaughtUp(set: SentinelSet): Promise<void> {
  const primary = await set.primary();
  const info = String(await set.askNode(primary.port, 'INFO', 'replication'));
  const written = Number(/master_repl_offset:(\d+)/.exec(info)![1]);
  const others = set.nodes.filter((node) => node.port !== primary.port);
  const applied = async (port: number) => {
    const replica = String(await set.askNode(port, 'INFO', 'replication').catch(() => 'role:gone'));
    if (!replica.includes('role:slave')) return true;
    const offset = Number(/slave_repl_offset:(\d+)/.exec(replica)?.[1] ?? -1);
    return replica.includes('master_link_status:up') && offset >= written;
  };
  await until(
    async () => (await Promise.all(others.map((node) => applied(node.port)))).every(Boolean),
    `every replica has the primary's writes up to offset ${written}`,
    undefined,
    20,
  );
}

/** Every replica of the primary online (synced and acknowledging), as WAIT counts them. */
export async function replicasOnline(set: SentinelSet, count: number): Promise<void> {
  await until(
    async () => {
      const primary = await set.primary();
      const info = String(await set.askNode(primary.port, 'INFO', 'replication'));
      return (info.match(/slave\d+:.*state=online/g) ?? []).length >= count;
    },
    `${count} replicas online`,
    undefined,
    100,
  );
}

/** Log lines that begin an outage of the store, and that end one. */
export function outageLines(lines: readonly string[]): { began: string[]; ended: string[] } {
  return {
    began: lines.filter((l) => /^redis: .* (unreachable|not used) \(/.test(l)),
    ended: lines.filter((l) => /^redis: connected to .* again$/.test(l)),
  };
}
