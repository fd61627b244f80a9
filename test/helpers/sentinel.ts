/**
 * A real Sentinel setup for a test: one primary, its replicas (`--replicaof`) and three
 * sentinels (`redis-sentinel` with a config file each, in a temporary folder), all on free
 * loopback ports. `startSentinels` returns once every sentinel knows every replica and the two
 * other sentinels, so a failover the test causes can happen at once. Sentinels are told a
 * primary is down after a second (`down-after-milliseconds`): a failover takes a few seconds.
 * Everything is killed and removed in `close`. When redis-sentinel is missing the suites say
 * they skipped.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'uvu';
import { freePort, stopProcess } from '../../scripts/processes.ts';
import type { Reply } from '../../src/redis/resp.ts';
import { askOnce } from '../../src/redis/sentinel.ts';
import { startRedis, type RedisServer } from './redis.ts';
import { until } from './wait.ts';

export const SENTINEL_INSTALLED = spawnSync('redis-sentinel', ['--version']).error === undefined && spawnSync('redis-server', ['--version']).error === undefined;

export function skipWithoutSentinel(s: Test, names: readonly string[]): void {
  for (const name of names) s.skip(`${name} (skipped: redis-sentinel is not installed)`, () => {});
  console.log('skipped: redis-sentinel is not installed (apt-get install redis-sentinel redis-server)');
}

/** A question to one Redis or sentinel, on a connection of its own: generous, a hang guard only. */
export function ask(port: number, ...args: (string | number)[]): Promise<Reply> {
  return askOnce({ host: '127.0.0.1', port }, null, args, 30_000);
}

/** A sentinel's `SENTINEL REPLICAS`/`SENTINELS` entries (flat field, value lists) as objects. */
function entries(reply: Reply): Record<string, string>[] {
  if (!Array.isArray(reply)) return [];
  return reply.map((flat) => {
    const fields: Record<string, string> = {};
    if (Array.isArray(flat)) for (let i = 0; i + 1 < flat.length; i += 2) fields[String(flat[i])] = String(flat[i + 1]);
    return fields;
  });
}

export interface SentinelSet {
  /** The name the sentinels monitor the primary under. */
  name: string;
  /** `redis-sentinel://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/NAME/0` */
  url: string;
  /** Every data Redis: the first primary at the start, then the replicas. */
  nodes: RedisServer[];
  sentinelPorts: number[];
  /** The data Redis the sentinels name as primary now (asked of the first that answers). */
  primary(): Promise<RedisServer>;
  close(): Promise<void>;
}

function launchSentinel(dir: string, port: number, name: string, primaryPort: number): Promise<ChildProcess> {
  const config = join(dir, `sentinel-${port}.conf`);
  // Written fresh: a sentinel rewrites its file as it learns (replicas, other sentinels, epochs).
  writeFileSync(
    config,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      'daemonize no',
      'logfile ""',
      `dir ${dir}`,
      'sentinel resolve-hostnames yes',
      'sentinel announce-ip 127.0.0.1',
      `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 6000`,
      `sentinel parallel-syncs ${name} 1`,
      '',
    ].join('\n'),
  );
  const child = spawn('redis-sentinel', [config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`redis-sentinel exited (${code}):\n${output}`)));
    until(async () => child.exitCode !== null || (await ask(port, 'PING').catch(() => null)) === 'PONG', `sentinel on ${port} answers`).then(
      () => (child.exitCode === null ? resolve(child) : undefined),
      reject,
    );
  });
}

export async function startSentinels(options: { replicas?: number; name?: string } = {}): Promise<SentinelSet> {
  const name = options.name ?? 'benchprimary';
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-test-'));
  const nodes: RedisServer[] = [];
  const sentinels: ChildProcess[] = [];
  const sentinelPorts: number[] = [];
  const close = async () => {
    await Promise.all(sentinels.map((child) => stopProcess(child, 'SIGKILL')));
    await Promise.all(nodes.map((node) => node.close()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const first = await startRedis();
    nodes.push(first);
    for (let i = 0; i < (options.replicas ?? 1); i++) nodes.push(await startRedis({ args: ['--replicaof', '127.0.0.1', String(first.port)] }));
    for (let i = 0; i < 3; i++) {
      let port = await freePort();
      for (let attempt = 1; ; attempt++) {
        try {
          sentinels.push(await launchSentinel(dir, port, name, first.port));
          sentinelPorts.push(port);
          break;
        } catch (error) {
          if (attempt >= 5 || !/Address already in use/.test((error as Error).message)) throw error;
          port = await freePort();
        }
      }
    }
    // Ready once each sentinel sees every replica linked and the two other sentinels.
    await until(async () => {
      for (const port of sentinelPorts) {
        const replicas = entries(await ask(port, 'SENTINEL', 'REPLICAS', name));
        const healthy = replicas.filter((r) => r.flags === 'slave' && r['master-link-status'] === 'ok');
        if (healthy.length !== nodes.length - 1) return false;
        if (entries(await ask(port, 'SENTINEL', 'SENTINELS', name)).length !== 2) return false;
      }
      return true;
    }, 'the sentinels know every replica and each other');
  } catch (error) {
    await close();
    throw error;
  }
  return {
    name,
    url: `redis-sentinel://${sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',')}/${name}/0`,
    nodes,
    sentinelPorts,
    async primary() {
      for (const port of sentinelPorts) {
        const reply = await ask(port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name).catch(() => null);
        const node = Array.isArray(reply) ? nodes.find((n) => n.port === Number(reply[1])) : undefined;
        if (node) return node;
      }
      throw new Error(`no sentinel names a primary for ${name}`);
    },
    close,
  };
}
