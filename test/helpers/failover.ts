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

/** A key made by the keys command over the sentinels' URL: `args` after `create`. */
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
  return (JSON.parse(made.stdout) as { key: string }).key;
}

/**
 * Every replica holds the key store the keys command wrote, so that a failover cannot promote one
 * that had not yet synced: on a starved machine (two suites at once) the first sync can still be
 * under way when a test kills the primary, and the promoted replica then rightly reads as reset.
 */
export async function replicasHoldKeys(set: SentinelSet): Promise<void> {
  const primary = await set.primary();
  const replicas = set.nodes.filter((node) => node.port !== primary.port);
  await until(
    async () => {
      const held = await Promise.all(replicas.map((node) => set.askNode(node.port, 'EXISTS', 'bda:store')));
      return held.every((reply) => Number(reply) === 1);
    },
    'every replica holds the key store',
    undefined,
    100,
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
