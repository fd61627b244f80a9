/**
 * The node:http server around the app: deliberate timeouts and limits, and a JSON answer for
 * everything node:http would otherwise answer on its own (or not at all): unparseable requests,
 * a missing Host header, an unmet Expect, CONNECT.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorBody, HttpError } from './http-error.ts';
import { MAX_TARGET_LENGTH } from './router.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Connections node's header or request timeout ended (their exchange is logged as 408). */
export const timedOutSockets = new WeakSet<Duplex>();

/** Write a JSON error straight onto a socket node:http does not answer for us, and close it. */
function endSocket(socket: Duplex, error: HttpError): void {
  const body = errorBody(error);
  socket.end(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** Answer what node:http could not parse (bad request line, huge headers) with a JSON error. */
export function answerClientError(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  let status = 400;
  let message = 'Malformed HTTP request';
  let details: Record<string, unknown> = { parser: error.code ?? 'unknown' };
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    const firstLine = error.rawPacket?.subarray(0, MAX_TARGET_LENGTH * 2).toString('latin1') ?? '';
    [status, message, details] = firstLine.includes('\r\n') ? [431, 'Request headers too large', { limit: HTTP_LIMITS.maxHeaderSize }] : [414, 'Request target too long', { limit: MAX_TARGET_LENGTH }];
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    timedOutSockets.add(socket);
    // node gives one code for both limits: say both.
    [status, message, details] = [408, 'Request timed out', { headers_timeout_seconds: HTTP_LIMITS.headersTimeout / 1000, request_timeout_seconds: HTTP_LIMITS.requestTimeout / 1000 }];
  }
  endSocket(socket, new HttpError(status, message, details));
}

/** Timeouts and limits, set deliberately (see README, "Hardening"). */
export const HTTP_LIMITS = {
  /** Whole headers must arrive within this. */
  headersTimeout: 20_000,
  /** The whole request (headers and body) must arrive within this; a response may take longer. */
  requestTimeout: 120_000,
  /** Idle keep-alive connections are closed after this. */
  keepAliveTimeout: 15_000,
  maxHeaderSize: 16 * 1024,
  /** A connection whose response has unsent bytes and made no progress for this long is closed. */
  sendStallMs: 30_000,
  /** Answers under way on one connection (pipelined requests) before it is no longer read. */
  maxInFlightPerConnection: 16,
};

/**
 * Bound what one client can make the server hold. Reading stops on a connection with too many
 * answers under way (pipelining without reading them), and resumes as they go out; and a
 * connection whose unsent answer makes no progress for `sendStallMs` is closed, so a client
 * that never reads cannot pin its answers in memory (a slow CritPt stream lives while it moves).
 */
function boundClients(server: Server, limits: typeof HTTP_LIMITS): void {
  const inFlight = new Map<Socket, number>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const count = (inFlight.get(socket) ?? 0) + 1;
    inFlight.set(socket, count);
    if (count > limits.maxInFlightPerConnection) socket.pause();
    res.once('close', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      if (left > 0) inFlight.set(socket, left);
      else inFlight.delete(socket);
      if (left <= limits.maxInFlightPerConnection && socket.isPaused()) socket.resume();
    });
  });
  const progress = new Map<Socket, { written: number; since: number }>();
  server.on('connection', (socket: Socket) => {
    progress.set(socket, { written: 0, since: performance.now() });
    socket.once('close', () => {
      progress.delete(socket);
      inFlight.delete(socket);
    });
  });
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [socket, seen] of progress) {
      if (socket.writableLength === 0 || socket.bytesWritten !== seen.written) progress.set(socket, { written: socket.bytesWritten, since: now });
      else if (now - seen.since > limits.sendStallMs) socket.destroy();
    }
  }, Math.min(5000, limits.sendStallMs / 2));
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
}

/** The server for a request handler (the app's `handle`). */
export function createHttpServer(handle: (req: IncomingMessage, res: ServerResponse) => void, limits = HTTP_LIMITS): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeout,
      requestTimeout: limits.requestTimeout,
      maxHeaderSize: limits.maxHeaderSize,
      keepAliveTimeout: limits.keepAliveTimeout,
      // node checks the two timeouts above only this often (30 s by default, so a 20 s limit
      // fired at up to 50 s); once a second keeps them what they say.
      connectionsCheckingInterval: 1000,
      // Checked by the handler below, so the answer is JSON like every other.
      requireHostHeader: false,
    },
    (req, res) => (req.headers.host === undefined && req.httpVersionMinor >= 1 ? answerPlain(res, new HttpError(400, 'Host header is required', { header: 'host' })) : handle(req, res)),
  );
  // Long gradings must not be cut by an idle timer; request and header timeouts still apply.
  server.timeout = 0;
  server.on('clientError', answerClientError);
  // An Expect this server cannot meet (anything but 100-continue): 417, in JSON.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => answerPlain(res, new HttpError(417, `Expectation not supported: ${String(req.headers.expect).slice(0, 100)}`, { header: 'expect', supported: ['100-continue'] })));
  // CONNECT asks for a tunnel, which no route offers.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => endSocket(socket, new HttpError(405, 'Method CONNECT is not allowed', { method: 'CONNECT', allowed: ['GET', 'HEAD', 'POST'] })));
  boundClients(server, limits);
  return server;
}

function answerPlain(res: ServerResponse, error: HttpError): void {
  const body = errorBody(error);
  res.writeHead(error.status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', Connection: 'close' });
  res.end(body);
}
