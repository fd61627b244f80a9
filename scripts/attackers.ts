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
  const chunk = `GET ${options.path} HTTP/1.1\r\nHost: attacker\r\n${headerLines(options.headers ?? {})}\r\n`.repeat(
    options.requests,
  );
  return openFlood(options.port, options.sockets, (socket, written) => {
    socket.pause(); // never read: the server's answers pile up on its side
    socket.write(chunk, written);
  });
}

/**
 * Open `count` connections and let `start` write to each once connected (calling `written` when
 * its write is done). Resolves once every socket has written, failed or closed.
 */
async function openFlood(
  port: number,
  count: number,
  start: (socket: Socket, written: () => void) => void,
  halfOpen = false,
): Promise<Flood> {
  const sockets: Socket[] = [];
  let closed = 0;
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve) => {
          const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: halfOpen }, () => start(socket, resolve));
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

export interface UploadOptions {
  port: number;
  path: string;
  /** Headers of each POST (the key, at least); Host, Content-Type and Content-Length are added. */
  headers: Record<string, string>;
  sockets: number;
  /** Body bytes each POST declares. */
  bytes: number;
}

/** Header lines, each ended by CRLF. */
function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
}

function postHead(options: UploadOptions): string {
  const extra = headerLines(options.headers);
  return (
    `POST ${options.path} HTTP/1.1\r\nHost: attacker\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${options.bytes}\r\nConnection: close\r\n${extra}\r\n`
  );
}

/**
 * `sockets` concurrent POSTs of `bytes` each (not JSON: a free 400 if ever read), written as fast
 * as the server takes them. Resolves with each answer's status (0 when the server closed the
 * connection without one) once every connection has closed.
 */
export function uploadFlood(options: UploadOptions): Promise<number[]> {
  const body = Buffer.alloc(options.bytes, 'x');
  return Promise.all(
    Array.from(
      { length: options.sockets },
      () =>
        new Promise<number>((resolve) => {
          let head = '';
          const socket = connect(options.port, '127.0.0.1', () => {
            socket.write(postHead(options));
            socket.end(body);
          });
          socket.on('data', (chunk: Buffer) => (head ||= chunk.toString('latin1', 0, 16)));
          socket.on('error', () => {});
          socket.once('close', () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0)));
        }),
    ),
  );
}

/**
 * `sockets` POSTs that each send `bytesPerSecond` of their body a second (a few bytes at a time),
 * until `close()` or the server cuts them.
 */
export async function trickleFlood(options: UploadOptions & { bytesPerSecond: number }): Promise<Flood> {
  const flood = await openFlood(options.port, options.sockets, (socket, written) =>
    socket.write(postHead(options), written),
  );
  const piece = 'x'.repeat(Math.max(1, Math.round(options.bytesPerSecond / 10)));
  const timer = setInterval(() => {
    for (const socket of flood.sockets) if (!socket.destroyed) socket.write(piece);
  }, 100);
  return {
    ...flood,
    close: () => {
      clearInterval(timer);
      flood.close();
    },
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

export interface SlowOptions {
  port: number;
  sockets: number;
  /**
   * `post`: a keyless POST declaring 100 MB, its body trickled (the attack);
   * `headers`: slowloris, a request whose header lines never end.
   */
  kind: 'post' | 'headers';
  /** One byte every this many ms (1,000: the 1 byte a second). */
  everyMs?: number;
}

/** What one slow connection got: the status of the first answer, `reset`, or `closed` (ended without an answer). */
export type SlowOutcome = number | 'reset' | 'closed' | 'open';

/**
 * `sockets` connections that each send a request a byte at a time, for ever: what costs a
 * server a descriptor and serves no one. `outcomes()` says what each has got so far.
 */
export async function slowFlood(options: SlowOptions): Promise<Flood & { outcomes(): SlowOutcome[] }> {
  const head =
    options.kind === 'post'
      ? 'POST /api/v2/critpt/evaluate HTTP/1.1\r\nHost: attacker\r\n' +
        'Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n'
      : 'GET /api/v2/language/models HTTP/1.1\r\nHost: attacker\r\n';
  const outcomes = new Map<Socket, SlowOutcome>();
  const flood = await openFlood(
    options.port,
    options.sockets,
    (socket, written) => {
      outcomes.set(socket, 'open');
      socket.on('data', (chunk: Buffer) => {
        if (outcomes.get(socket) === 'open')
          outcomes.set(socket, Number(/^HTTP\/1\.1 (\d+)/.exec(chunk.toString('latin1', 0, 16))?.[1] ?? 0));
      });
      socket.on('error', (error: NodeJS.ErrnoException) => {
        if (outcomes.get(socket) === 'open') outcomes.set(socket, error.code === 'ECONNRESET' ? 'reset' : 'closed');
      });
      socket.on('close', () => {
        if (outcomes.get(socket) === 'open') outcomes.set(socket, 'closed');
      });
      socket.write(head, written);
      // An attacker keeps its side open and goes on sending after the server's answer and FIN.
    },
    true,
  );
  const timer = setInterval(() => {
    for (const socket of flood.sockets)
      if (!socket.destroyed && socket.writable) socket.write(options.kind === 'post' ? 'x' : 'X');
  }, options.everyMs ?? 1000);
  return {
    ...flood,
    outcomes: () => flood.sockets.map((socket) => outcomes.get(socket) ?? 'closed'),
    close: () => {
      clearInterval(timer);
      flood.close();
    },
  };
}
