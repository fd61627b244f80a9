/**
 * The node:http server around the app: deliberate timeouts and limits (src/http/limits.ts), what
 * one client can make it hold (lanes of pipelined requests, stalled sends), and a JSON answer for
 * everything node:http would otherwise answer on its own or not at all (src/http/unroutable.ts).
 */
import { performance } from 'node:perf_hooks';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Connection, ConnectionCaps } from './connection-caps.ts';
import type { FirstReads } from './first-read.ts';
import { HttpError } from './error.ts';
import { HTTP_LIMITS } from './limits.ts';
import { answeringEarly, declaresBody, Lingering } from './linger.ts';
import { answerAsterisk, answerClientError, answerUnroutable, endSocket, requestProblem } from './unroutable.ts';

/** Answers a request, and calls `closed` once when its response has closed (sent, or cut short). */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse, closed: () => void) => void;
/** `capped`: the request's connection under the caps, told when its answer closes. */
type Dispatch = (req: IncomingMessage, res: ServerResponse, capped: Connection | undefined) => void;

/** A connection's answers under way and its pipelined requests waiting for a turn. */
interface Lane {
  inFlight: number;
  waiting: Parameters<Dispatch>[];
}

/**
 * Kept on the socket itself: it goes when the socket goes (no Map entry to delete on close), for a
 * property read a request.
 */
const LANE = Symbol('lane');
type LaneSocket = Socket & { [LANE]?: Lane | null };

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
function boundClients(
  handle: RequestHandler,
  server: Server,
  limits: typeof HTTP_LIMITS,
  caps: ConnectionCaps | undefined,
): Dispatch {
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
  const dispatch = (req: IncomingMessage, res: ServerResponse, capped: Connection | undefined): void => {
    const socket = req.socket as LaneSocket;
    // A request read before its connection closed has no one left to answer.
    if (socket.destroyed) return drop(socket);
    const lane = (socket[LANE] ??= { inFlight: 0, waiting: [] });
    if (lane.inFlight >= limits.maxInFlightPerConnection) {
      // node:http has already parsed these; what bounds them is closing the connection that
      // pipelines past the server-wide budget (its parsed requests go with it).
      if (waiting >= limits.maxWaiting) return void socket.destroy();
      lane.waiting.push([req, res, capped]);
      waiting++;
      socket.pause();
      return;
    }
    lane.inFlight++;
    handle(req, res, () => {
      if (capped) caps!.requestEnded(capped);
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
  caps?.gate(server, true, firstReads, 'told');
  const bounded = boundClients(handle, server, limits, caps);
  server.on('connection', lingering.watch);
  // A request answered here, not by the handler (which tells the caps itself once it closes).
  const answeredHere = (req: IncomingMessage, res: ServerResponse, capped: Connection | undefined): boolean => {
    // A request after the answer that closed its connection (it came behind a body that was
    // refused, while the connection closes in stages) is not answered.
    if (req.socket.writableEnded) {
      req.socket.destroy();
      return true;
    }
    const problem = requestProblem(req, limits);
    if (!problem && req.url === '*') {
      answerAsterisk(req, res);
      return true;
    }
    // Else a connection let in past a cap only to be told so.
    const refusal = problem ?? caps?.refusal(capped, req, res);
    if (!refusal) return false;
    answerUnroutable(res, refusal);
    return true;
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const capped = caps?.requestBegan(req.socket);
    if (answeredHere(req, res, capped)) {
      if (capped) res.on('close', () => caps!.requestEnded(capped));
      return;
    }
    // No GET or HEAD route reads a body: one declared is not waited for after the answer.
    if ((req.method === 'GET' || req.method === 'HEAD') && declaresBody(req)) answeringEarly(req, res);
    bounded(req, res, capped);
  });
  // Long gradings must not be cut by an idle timer; request and header timeouts still apply.
  server.timeout = 0;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) =>
    answerClientError(error, socket, lingering),
  );
  // An Expect this server cannot meet (anything but 100-continue): 417, in JSON.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
    answerUnroutable(
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
