/**
 * Closing a connection in stages when its last answer went out before the request's body had
 * all arrived (RFC 9112, 9.6): any error answer to a request whose body is still coming (a 401
 * without a key, a 404, 405, 411, 413, 415, 429, a CritPt body refused by the upload budget, 503,
 * or too slow, 408, an unmet Expect, 417), and any answer to a GET or HEAD that declares a body
 * (no route reads one).
 *
 * Such an answer closes its connection: kept alive, node:http would wait for the rest of a body
 * no one reads before the next request, so a client trickling a 100 MB body held its connection
 * until the request timeout (120 s, measured with a keyless POST at a byte a second); closed in
 * stages, it goes within the quiet bound below (2 s).
 *
 * Why: node:http closes such a connection outright once the answer is written. The client is
 * still sending, so the kernel answers its next bytes with a reset, and a reset that reaches the
 * client before it has read the answer erases it: the client sees a broken connection where a
 * JSON error was sent. In runs of 30 floods of sixty 4 MiB posts against an 8 MiB budget, 9, 51
 * and 88 of the 1,800 posts got no answer (`scripts/bench/refused-uploads.ts`); none have since.
 *
 * So the server half-closes instead, reads and drops up to `lingerBytes` of what still arrives,
 * then stops reading, and closes once the client closes its side, or nothing more has been read
 * for `lingerQuietMs`, or after `lingerMs` in all (nginx's lingering_time). The byte bound is
 * for memory: reading every refused body whole took the server's peak 35 to 70 MB higher at
 * twenty refused 4 MiB posts; with it, 7 MB (the same script).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface LingerLimits {
  /** Longest a connection keeps reading after its closing answer. */
  lingerMs: number;
  /** A lingering connection that receives nothing for this long is closed sooner. */
  lingerQuietMs: number;
  /** Bytes read and dropped at most after the answer; past them the connection is no longer read. */
  lingerBytes: number;
}

/** The request last answered before its body had arrived, kept on its socket (it goes when the socket goes). */
const ANSWERED_EARLY = Symbol('answered before its body arrived');
type MarkedSocket = Socket & { [ANSWERED_EARLY]?: IncomingMessage };

/** Whether the request declares a body (RFC 9112, 6.3): a Transfer-Encoding, or a Content-Length above 0. */
export function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Say that the answer about to go on `res` may leave before its request's body has arrived (the
 * error paths call it, and the server for a GET or HEAD with a body): when the body is still
 * coming, the answer closes the connection, in stages.
 */
export function answeringEarly(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || !declaresBody(req)) return;
  // node:http then answers `Connection: close` and ends the connection with destroySoon (below).
  res.shouldKeepAlive = false;
  (req.socket as MarkedSocket)[ANSWERED_EARLY] = req;
  // A body no one reads is dumped by node:http once the answer is sent, and a dumped body's
  // bytes are dropped inside node:http, where nothing can count them; a listener keeps it ours.
  req.on('data', ignore);
}

const ignore = (): void => {};

/** The connections of one server that are closing in stages. */
export class Lingering {
  private readonly sockets = new Set<Socket>();

  constructor(private readonly limits: LingerLimits) {}

  /**
   * Give a new connection the staged close. node:http ends a connection after its last answer
   * with `destroySoon`; connections whose request was complete keep node's own.
   */
  readonly watch = (socket: Socket): void => {
    socket.destroySoon = () => this.close(socket);
  };

  /** Connections lingering now. */
  count(): number {
    return this.sockets.size;
  }

  /** Whether the connection is closing in stages (its answer has gone). */
  has(socket: Duplex): boolean {
    return this.sockets.has(socket as Socket);
  }

  /**
   * End a connection node:http leaves to us (a request it could not parse or that came too
   * slowly, CONNECT) with `answer`, in the same stages. Its server sockets are half-open: ended
   * outright, such a connection stayed open after the answer's FIN for as long as the client
   * neither closed it nor sent (past a 150 s watch, for a 408 to a head trickled at a byte a second).
   */
  endWith(socket: Duplex, answer: string): void {
    const raw = socket as Socket;
    if (this.sockets.has(raw) || raw.destroyed) return;
    this.sockets.add(raw);
    raw.end(answer);
    const from = raw.bytesRead;
    raw.on('data', () => {
      if (raw.bytesRead - from > this.limits.lingerBytes) raw.pause();
    });
    raw.resume();
    this.bound(raw, from);
  }

  /** Close every lingering connection now (the server is stopping). */
  endAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  private close(socket: MarkedSocket): void {
    const req = socket[ANSWERED_EARLY];
    socket[ANSWERED_EARLY] = undefined;
    if (!req || req.complete || socket.destroyed) return Socket.prototype.destroySoon.call(socket);
    this.sockets.add(socket);
    // The answer's bytes go first, then the FIN. The body's next `lingerBytes` are read and
    // dropped (a request paused while it was refused flows again); past them the connection is
    // no longer read, so what a client may send costs no more memory, and the quiet bound
    // closes it.
    socket.end();
    const from = socket.bytesRead;
    req.removeListener('data', ignore);
    req.on('data', () => {
      if (socket.bytesRead - from <= this.limits.lingerBytes) return;
      req.pause();
      socket.pause();
    });
    req.resume();
    this.bound(socket, from);
  }

  /** Close a lingering connection once the client closes its side, is quiet, or has lingered its longest. */
  private bound(socket: Socket, from: number): void {
    let read = from;
    const quiet = setInterval(() => {
      if (socket.bytesRead === read) socket.destroy();
      read = socket.bytesRead;
    }, this.limits.lingerQuietMs);
    const longest = setTimeout(() => socket.destroy(), this.limits.lingerMs);
    // The client closed its side: it has read all it will.
    socket.once('end', () => socket.destroy());
    socket.once('close', () => {
      clearInterval(quiet);
      clearTimeout(longest);
      this.sockets.delete(socket);
    });
  }
}
