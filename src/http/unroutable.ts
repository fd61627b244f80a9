/**
 * Answers for what node:http parsed but cannot be routed, or could not parse at all: a request
 * line that is not HTTP/1.x, too many header lines, a missing or repeated Host header,
 * unparseable requests and timed-out ones (written straight onto the socket), and `OPTIONS *`,
 * which asks about the server rather than a route. Each a JSON error, the connection closed in
 * stages (src/http/linger.ts).
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorBody, HttpError } from './error.ts';
import { HTTP_LIMITS } from './limits.ts';
import { answeringEarly, type Lingering } from './linger.ts';
import { JSON_TYPE } from './respond.ts';
import { allowedMethods, MAX_TARGET_LENGTH } from './router.ts';
import { ROUTES } from '../shared/routes.ts';

/** Connections node's header or request timeout ended (their exchange is logged as 408). */
const timedOutSockets = new WeakSet<Duplex>();

/** Write a JSON error straight onto a socket node:http does not answer for us, and close it in stages. */
export function endSocket(socket: Duplex, error: HttpError, lingering: Lingering): void {
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
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (isHostField(req.rawHeaders[i])) hosts++;
  if (hosts > 1) return new HttpError(400, 'More than one Host header', { details: { header: 'host' } });
  if (hosts === 0 && req.httpVersionMinor >= 1)
    return new HttpError(400, 'Host header is required', { details: { header: 'host' } });
  return null;
}

/** A header field named Host, in any case; the usual spellings without making a lowercased copy. */
function isHostField(name: string): boolean {
  return name.length === 4 && (name === 'Host' || name === 'host' || name.toLowerCase() === 'host');
}

/** Methods some route answers: what `OPTIONS *` says the server offers. */
const SERVER_METHODS = allowedMethods(ROUTES).join(', ');

/** The asterisk-form target (RFC 9112, 3.2.4) asks about the server itself, and only OPTIONS may use it. */
export function answerAsterisk(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'OPTIONS')
    return answerUnroutable(
      res,
      new HttpError(400, 'The request target * is only for OPTIONS', {
        details: { field: 'target', method: req.method },
      }),
    );
  res.writeHead(204, { Allow: SERVER_METHODS, 'Cache-Control': 'no-store' });
  res.end();
}

export function answerUnroutable(res: ServerResponse, error: HttpError): void {
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
