/**
 * Hostile clients, shared by the tests and the soak: connections that pipeline many requests
 * and never read an answer, and the server's resident memory while they do (read from
 * /proc, so only the server process is measured, not the attacker).
 *
 * Every attacker is bounded: a set number of sockets and requests, each socket closed by
 * `close()` (or by the server), loopback only.
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

export interface Flood {
  /** The connections, paused (a caller may resume one to read what the server sent). */
  readonly sockets: readonly Socket[];
  /** Sockets the server has not closed yet. */
  open(): number;
  /** Close every socket still open. */
  close(): void;
}

export interface FloodOptions {
  port: number;
  path: string;
  sockets: number;
  /** Requests written per socket, all in one write. */
  requests: number;
  headers?: Record<string, string>;
}

/**
 * Open `sockets` connections, each writing `requests` pipelined GETs in one chunk and then
 * never reading a byte. Resolves once every socket has connected and written.
 */
export async function pipelineFlood(options: FloodOptions): Promise<Flood> {
  const extra = Object.entries(options.headers ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const chunk = `GET ${options.path} HTTP/1.1\r\nHost: attacker\r\n${extra}\r\n`.repeat(options.requests);
  const sockets: Socket[] = [];
  let closed = 0;
  await Promise.all(
    Array.from(
      { length: options.sockets },
      () =>
        new Promise<void>((resolve) => {
          const socket = connect(options.port, '127.0.0.1', () => {
            socket.pause(); // never read: the server's answers pile up on its side
            socket.write(chunk, () => resolve());
          });
          socket.on('error', () => resolve());
          socket.once('close', () => {
            closed++;
            resolve();
          });
          sockets.push(socket);
        }),
    ),
  );
  return {
    sockets,
    open: () => sockets.length - closed,
    close: () => sockets.forEach((socket) => socket.destroy()),
  };
}

/**
 * Resident memory of a process in bytes (Linux /proc): now (VmRSS), or its peak so far (VmHWM);
 * null where it cannot be read.
 */
export function residentBytes(pid: number, which: 'VmRSS' | 'VmHWM' = 'VmRSS'): number | null {
  try {
    const match = new RegExp(`${which}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Sample a process's resident memory every `everyMs` until stopped; reports the peak. */
export function watchResident(pid: number, everyMs = 100): { peak(): number; stop(): number } {
  let peak = residentBytes(pid) ?? 0;
  const timer = setInterval(() => (peak = Math.max(peak, residentBytes(pid) ?? 0)), everyMs);
  return {
    peak: () => peak,
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}
