/**
 * A redis-server (Debian's package) started as a child and awaited until it says it is ready,
 * for the tests (test/helpers/redis.ts, test/helpers/sentinel.ts), the bench (scripts/bench/redis.ts)
 * and the Sentinel sets of scripts/sentinel-set.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, stopProcess } from './processes.ts';

/**
 * Resolves once it accepts connections; rejects with its output when it exits first, or after
 * `guardMs` (a hang guard: it is ready in milliseconds, on a busy machine in seconds).
 */
export function spawnRedisServer(args: readonly string[], guardMs: number): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // Kept until it is ready, for the error; read and dropped after, so the pipe never fills.
  let output = '';
  let ready = false;
  const keep = (chunk: Buffer) => {
    if (!ready) output += chunk;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not start in ${guardMs / 1000} s (a hang guard):\n${output}`));
    }, guardMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk);
      if (!ready && output.includes('Ready to accept connections')) {
        ready = true;
        output = '';
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr!.on('data', keep);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}):\n${output}`));
    });
  });
}

/** A redis-server child on a port of its own, in a folder of its own. */
export interface RedisProcess {
  port: number;
  /** Its working folder (removed by `close`). */
  dir: string;
  /** Stop it (SIGTERM, or SIGKILL as a crash); `start` brings it back on the same port and folder. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  start(): Promise<void>;
  /** Stop it and remove its folder. */
  close(): Promise<void>;
}

/**
 * Start a redis-server on a loopback port found free, with the options `args(port, dir)` gives
 * for that port and folder. The port is free when asked, but another program (another test run
 * on this machine) may take it before redis-server binds it: then another port, up to 5 tries.
 */
export async function startRedisProcess(
  args: (port: number, dir: string) => string[],
  guardMs: number,
): Promise<RedisProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-'));
  let port = await freePort();
  let child: ChildProcess | null = null;
  for (let attempt = 1; !child; attempt++) {
    try {
      child = await spawnRedisServer(args(port, dir), guardMs);
    } catch (error) {
      if (attempt >= 5 || !/Address already in use/.test((error as Error).message)) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      port = await freePort();
    }
  }
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child) await stopProcess(child, signal);
    child = null;
  };
  return {
    port,
    dir,
    stop,
    start: async () => {
      child = await spawnRedisServer(args(port, dir), guardMs);
    },
    close: async () => {
      await stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
