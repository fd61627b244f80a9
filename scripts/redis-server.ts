/**
 * A redis-server (Debian's package) started as a child and awaited until it says it is ready,
 * for the tests (test/helpers/redis.ts) and the bench (scripts/bench/redis.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** Resolves once it accepts connections; rejects with its output when it exits first, or after `guardMs` (a hang guard: it is ready in milliseconds, on a busy machine in seconds). */
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
