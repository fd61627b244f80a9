/**
 * The node:http server around the app: deliberate timeouts and limits, and a JSON answer for
 * everything node:http would otherwise answer on its own (or not at all): unparseable requests,
 * a request line that is not HTTP/1.x, too many header lines, a missing or repeated Host header,
 * an unmet Expect, CONNECT; and `OPTIONS *`, which asks about the server rather than a route.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ConnectionCaps } from './connection-caps.ts';
import type { FirstReads } from './first-read.ts';
import { errorBody, HttpError } from './error.ts';
import { answeringEarly, declaresBody, Lingering } from './linger.ts';
import { JSON_TYPE } from './respond.ts';
import { allowedMethods, MAX_TARGET_LENGTH } from './router.ts';
import { ROUTES } from '../shared/routes.ts';

/** Answers a request, and calls `closed` once when its response has closed (sent, or cut short). */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse, closed: () => void) => void;
type Dispatch = (req: IncomingMessage, res: ServerResponse) => void;

/** A connection's answers under way and its pipelined requests waiting for a turn. */
interface Lane {
  inFlight: number;
  waiting: [IncomingMessage, ServerResponse][];
}

/**
 * Kept on the socket itself: it goes when the socket goes (no Map entry to delete on close), for a
 * property read a request.
 */
const LANE = Symbol('lane');
type LaneSocket = Socket & { [LANE]?: Lane | null };

/** Connections node's header or request timeout ended (their exchange is logged as 408). */
const timedOutSockets = new WeakSet<Duplex>();

/** Write a JSON error straight onto a socket node:http does not answer for us, and close it in stages. */
function endSocket(socket: Duplex, error: HttpError, lingering: Lingering): void {
  const body = errorBody(error);
  lingering.endWith(
    socket,
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: ` +
      `${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Answer what node:http could not parse (bad request line, huge headers) with a JSON error. */
export function answerClientError(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
  socket: Socket,
  lingering: Lingering,
): void {
  // Answered already: what the client still sends is read and dropped by the staged close.
  if (lingering.has(socket)) return;
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  let status = 400;
  let message = 'Malformed HTTP request';
  let details: Record<string, unknown> = { parser: error.code ?? 'unknown' };
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    const firstLine = error.rawPacket?.subarray(0, MAX_TARGET_LENGTH * 2).toString('latin1') ?? '';
    [status, message, details] = firstLine.includes('\r\n')
      ? [431, 'Request headers too large', { limit: HTTP_LIMITS.maxHeaderSize }]
      : [414, 'Request target too long', { limit: MAX_TARGET_LENGTH }];
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    timedOutSockets.add(socket);
    // node gives one code for both limits: say both.
    [status, message, details] = [
      408,
      'Request timed out',
      {
        headers_timeout_seconds: HTTP_LIMITS.headersTimeout / 1000,
        request_timeout_seconds: HTTP_LIMITS.requestTimeout / 1000,
      },
    ];
  }
  endSocket(socket, new HttpError(status, message, { details: details }), lingering);
}

/** Timeouts and limits, set deliberately (docs/operating.md, "Hardening"). */
export const HTTP_LIMITS = {
  /** Whole headers must arrive within this. */
  headersTimeout: 20_000,
  /** The whole request (headers and body) must arrive within this; a response may take longer. */
  requestTimeout: 120_000,
  /** Idle keep-alive connections are closed after this. */
  keepAliveTimeout: 15_000,
  maxHeaderSize: 16 * 1024,
  /** Header lines a request may have (Apache's LimitRequestFields default); more get 431. */
  maxHeaderLines: 100,
  /** A connection whose response has unsent bytes and made no progress for this long is closed (--send-timeout). */
  sendStallMs: 30_000,
  /** Answers under way on one connection; further pipelined requests wait, and it is no longer read. */
  maxInFlightPerConnection: 4,
  /** Pipelined requests waiting on all connections together; past it, a connection that adds one is closed. */
  maxWaiting: 4096,
  /**
   * A connection closed by an answer that went before its request's body arrived keeps reading (and
   * dropping) for at most this long (src/http/linger.ts).
   */
  lingerMs: 30_000,
  /** ... and closes sooner once nothing has arrived for this long (or it is no longer read). */
  lingerQuietMs: 2_000,
  /** ... and reads at most this much of what the client still sends. */
  lingerBytes: 256 * 1024,
  /**
   * A new connection's first read holding more request heads than this waits its turn while
   * connections arrive (src/http/first-read.ts).
   */
  firstReadHeads: 4,
  /** Request heads of such first reads parsed in a turn once no connection arrived in it. */
  firstReadBudget: 256,
  /** Such a first read waits at most this long; a connection silent this long is given to node:http as it is. */
  firstReadWaitMs: 1000,
  /**
   * ... and such first reads are held up to this many bytes in all (and maxWaiting request heads);
   * past either, closed unparsed.
   */
  firstReadHeldBytes: 8 * 1024 * 1024,
};

/**
 * Bound what one client can make the server hold. A connection gets at most
 * `maxInFlightPerConnection` answers under way: node:http parses a whole chunk of pipelined
 * requests at once, so the rest wait, unanswered, in arrival order, and the socket is no longer
 * read until answers go out (a client that pipelines without reading costs node's parsed
 * requests, not our answers to them). Past `maxWaiting` waiting requests on the whole server,
 * a connection that pipelines one more is closed. A connection whose unsent answer makes no
 * progress for `sendStallMs` is closed, so a client that never reads cannot pin its answers in
 * memory (a slow CritPt stream lives while it moves).
 */
function boundClients(handle: RequestHandler, server: Server, limits: typeof HTTP_LIMITS): Dispatch {
  let waiting = 0;
  // A closed connection's waiting requests leave the budget, and its lane, once: answers still
  // under way on it close after this and must find nothing left to dispatch.
  const drop = (socket: LaneSocket): void => {
    const lane = socket[LANE];
    if (!lane) return;
    waiting -= lane.waiting.length;
    lane.waiting.length = 0;
    socket[LANE] = null;
  };
  const dispatch = (req: IncomingMessage, res: ServerResponse): void => {
    const socket = req.socket as LaneSocket;
    // A request read before its connection closed has no one left to answer.
    if (socket.destroyed) return drop(socket);
    const lane = (socket[LANE] ??= { inFlight: 0, waiting: [] });
    if (lane.inFlight >= limits.maxInFlightPerConnection) {
      // node:http has already parsed these; what bounds them is closing the connection that
      // pipelines past the server-wide budget (its parsed requests go with it).
      if (waiting >= limits.maxWaiting) return void socket.destroy();
      lane.waiting.push([req, res]);
      waiting++;
      socket.pause();
      return;
    }
    lane.inFlight++;
    handle(req, res, () => {
      lane.inFlight--;
      const next = lane.waiting.shift();
      if (next) {
        waiting--;
        return dispatch(...next);
      }
      if (socket.isPaused() && !socket.destroyed) socket.resume();
    });
  };
  const progress = new Map<Socket, { written: number; since: number }>();
  server.on('connection', (socket: Socket) => {
    progress.set(socket, { written: 0, since: performance.now() });
    socket.once('close', () => {
      progress.delete(socket);
      drop(socket as LaneSocket);
    });
  });
  const sweep = setInterval(
    () => {
      const now = performance.now();
      for (const [socket, seen] of progress) {
        if (socket.writableLength === 0 || socket.bytesWritten !== seen.written)
          progress.set(socket, { written: socket.bytesWritten, since: now });
        else if (now - seen.since > limits.sendStallMs) socket.destroy();
      }
    },
    Math.min(5000, limits.sendStallMs / 2),
  );
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
  return dispatch;
}

/**
 * The server for a request handler (the app's `handle`); `lingering` holds its connections
 * closing in stages; `caps`, when given, holds its connections under the descriptor limit, and
 * `firstReads` looks at each one's first read before node:http parses it.
 */
export function createHttpServer(
  handle: RequestHandler,
  limits = HTTP_LIMITS,
  lingering = new Lingering(limits),
  caps?: ConnectionCaps,
  firstReads?: FirstReads,
): Server {
  const server = createServer({
    headersTimeout: limits.headersTimeout,
    requestTimeout: limits.requestTimeout,
    maxHeaderSize: limits.maxHeaderSize,
    keepAliveTimeout: limits.keepAliveTimeout,
    // node checks the two timeouts above only this often (30 s by default, so a 20 s limit
    // fired at up to 50 s); once a second keeps them what they say.
    connectionsCheckingInterval: 1000,
    // Checked by the handler below, so the answer is JSON like every other.
    requireHostHeader: false,
  });
  // node keeps only this many header lines (by default 2000, the rest silently dropped): one
  // past the limit is enough to tell a request over it.
  server.maxHeadersCount = limits.maxHeaderLines + 1;
  // First, before node:http's parser sees a connection: one closed at a cap never reaches it.
  caps?.gate(server, true, firstReads);
  const bounded = boundClients(handle, server, limits);
  server.on('connection', lingering.watch);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // A request after the answer that closed its connection (it came behind a body that was
    // refused, while the connection closes in stages) is not answered.
    if (req.socket.writableEnded) return void req.socket.destroy();
    const problem = requestProblem(req, limits);
    if (problem) return answerPlain(res, problem);
    if (req.url === '*') return answerAsterisk(req, res);
    // A connection let in past a cap only to be told so.
    const refusal = caps?.refusal(req, res);
    if (refusal) return answerPlain(res, refusal);
    // No GET or HEAD route reads a body: one declared is not waited for after the answer.
    if ((req.method === 'GET' || req.method === 'HEAD') && declaresBody(req)) answeringEarly(req, res);
    bounded(req, res);
  });
  // Long gradings must not be cut by an idle timer; request and header timeouts still apply.
  server.timeout = 0;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) =>
    answerClientError(error, socket, lingering),
  );
  // An Expect this server cannot meet (anything but 100-continue): 417, in JSON.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
    answerPlain(
      res,
      new HttpError(417, `Expectation not supported: ${String(req.headers.expect).slice(0, 100)}`, {
        details: { header: 'expect', supported: ['100-continue'] },
      }),
    ),
  );
  // CONNECT asks for a tunnel, which no route offers.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) =>
    endSocket(
      socket,
      new HttpError(405, 'Method CONNECT is not allowed', {
        details: { method: 'CONNECT', allowed: ['GET', 'HEAD', 'POST'] },
      }),
      lingering,
    ),
  );
  return server;
}

/**
 * What makes a request that node:http parsed unfit to route (RFC 9112): a request line without
 * HTTP/1.x (node passes `GET /` through as HTTP/0.9, which would otherwise read as a missing
 * Host), more header lines than the limit, no Host or more than one (RFC 9112, 3.2).
 */
export function requestProblem(
  req: IncomingMessage,
  limits: Pick<typeof HTTP_LIMITS, 'maxHeaderLines'> = HTTP_LIMITS,
): HttpError | null {
  if (req.httpVersionMajor === 0)
    return new HttpError(400, 'The request line must end with HTTP/1.1 or HTTP/1.0 (HTTP/0.9 is not served)', {
      details: { version: req.httpVersion },
    });
  if (req.httpVersionMajor !== 1)
    return new HttpError(505, `HTTP/${req.httpVersion} is not supported over this connection; use HTTP/1.1`, {
      details: { version: req.httpVersion, supported: ['1.0', '1.1'] },
    });
  if (req.rawHeaders.length / 2 > limits.maxHeaderLines)
    return new HttpError(431, 'Too many header lines', { details: { limit: limits.maxHeaderLines } });
  let hosts = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    if (req.rawHeaders[i].length === 4 && req.rawHeaders[i].toLowerCase() === 'host') hosts++;
  if (hosts > 1) return new HttpError(400, 'More than one Host header', { details: { header: 'host' } });
  if (hosts === 0 && req.httpVersionMinor >= 1)
    return new HttpError(400, 'Host header is required', { details: { header: 'host' } });
  return null;
}

/** Methods some route answers: what `OPTIONS *` says the server offers. */
const SERVER_METHODS = allowedMethods(ROUTES).join(', ');

/** The asterisk-form target (RFC 9112, 3.2.4) asks about the server itself, and only OPTIONS may use it. */
function answerAsterisk(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'OPTIONS')
    return answerPlain(
      res,
      new HttpError(400, 'The request target * is only for OPTIONS', {
        details: { field: 'target', method: req.method },
      }),
    );
  res.writeHead(204, { Allow: SERVER_METHODS, 'Cache-Control': 'no-store' });
  res.end();
}

function answerPlain(res: ServerResponse, error: HttpError): void {
  answeringEarly(res.req, res);
  const body = errorBody(error);
  res.writeHead(error.status, {
    ...error.headers,
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    Connection: 'close',
  });
  res.end(body);
}

/**
 * The status an exchange ended with, for the log and the metrics: what was sent, or, when nothing
 * was, 408 for a request node's timeout cut and 499 (nginx's "client closed request") otherwise.
 */
export function outcomeStatus(req: IncomingMessage, res: ServerResponse): number {
  if (res.headersSent || res.writableFinished) return res.statusCode;
  return timedOutSockets.has(req.socket) ? 408 : 499;
}

/**
 * Listen on `host:port` (port 0: one the system picks); the port taken and the URL to reach it, or
 * the listen error (EADDRINUSE...). `backlog`: connections the kernel queues before this process
 * accepts them (it holds to net.core.somaxconn at most); past it a new connection's SYN is dropped
 * and sent again a second later.
 */
export function listenAt(
  server: Server,
  port: number,
  host: string,
  backlog = 511,
): Promise<{ port: number; url: string }> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog }, () => {
      server.off('error', reject);
      const taken = (server.address() as AddressInfo).port;
      resolve({ port: taken, url: `http://${host.includes(':') ? `[${host}]` : host}:${taken}` });
    });
  });
}
