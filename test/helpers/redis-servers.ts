/**
 * What the Redis health tests start beside a Redis: servers in this process (port 0) on it,
 * with every line they log and their probe run often so the tests wait little (nothing is
 * timed), an operator's own connections to it, and free keys made by the keys command.
 */
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS } from '../../src/config.ts';
import { parseRedisUrl, RedisClient } from '../../src/redis/client.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import { keysCommand, type RedisServer } from './redis.ts';
import { buildFixture } from './server.ts';

export interface LoggedServer {
  server: RunningServer;
  /** Every line the server logged, errors and news, in order. */
  lines: string[];
  close: () => Promise<void>;
}

export class RedisTestBed {
  private snapshotDir: Promise<string> | null = null;
  private readonly opened: RedisClient[] = [];

  /** `root`: the test's temporary folder (the fixture is built there once). */
  constructor(private readonly root: string) {}

  /** The fixture's snapshot folder, built the first time it is asked for. */
  snapshot(): Promise<string> {
    return (this.snapshotDir ??= buildFixture(this.root).then((built) => built.snapshotDir));
  }

  /** A server on the Redis at `url`. */
  async serve(url: string): Promise<LoggedServer> {
    const snapshotDir = await this.snapshot();
    const lines: string[] = [];
    const server = await startServer(
      { ...DEFAULT_OPTIONS, port: 0, host: '127.0.0.1', snapshotDir, stateDir: join(this.root, 'unused-state'), store: parseRedisUrl(url), quiet: true },
      { log: (line) => lines.push(line), logError: (line) => lines.push(line), redisProbeMs: 20 },
    );
    return { server, lines, close: () => server.close() };
  }

  /** A connection for what an operator (or another program) does to the Redis; closed by closeOperators. */
  async operator(redis: RedisServer): Promise<RedisClient> {
    const client = new RedisClient({ address: redis.address });
    this.opened.push(client);
    await client.started();
    return client;
  }

  closeOperators(): void {
    for (const client of this.opened.splice(0)) client.close();
  }
}

/** A free key in `org`, made by the keys command on the Redis at `url`; the plain key. */
export async function createFreeKey(url: string, org: string): Promise<string> {
  const made = await keysCommand('create', '--tier', 'free', '--org', org, '--json', '--store', url);
  assert.is(made.status, 0, made.stderr);
  return (JSON.parse(made.stdout) as { key: string }).key;
}
