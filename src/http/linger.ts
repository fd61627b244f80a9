/**
 * Closing a connection in stages when its last answer went out before the request's body had
 * all arrived (RFC 9112, 9.6): a CritPt body refused by the upload budget (503), too large (413)
 * or too slow (408), an unmet Expect (417).
 *
 * Why: node:http closes such a connection outright once the answer is written. The client is
 * still sending, so the kernel answers its next bytes with a reset, and a reset that reaches the
 * client before it has read the answer erases it: the client sees a broken connection where a
 * JSON error was sent. In 30 floods of sixty 4 MiB posts against an 8 MiB budget, 9 to 88 of the
 * 1,800 posts got no answer (`scripts/bench/refused-uploads.ts`); none have since. So the server
 * half-closes instead, keeps reading and dropping what still arrives, and closes once the client
 * closes its side, or has sent nothing for `lingerQuietMs`, or after `lingerMs` in all (nginx's
 * lingering_timeout and lingering_time, with its defaults).
 */
import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';

export interface LingerLimits {
  /** Longest a connection keeps reading after its closing answer. */
  lingerMs: number;
  /** A lingering connection that receives nothing for this long is closed sooner. */
  lingerQuietMs: number;
}

/** The request last answered before its body had arrived, kept on its socket (it goes when the socket goes). */
const ANSWERED_EARLY = Symbol('answered before its body arrived');
type MarkedSocket = Socket & { [ANSWERED_EARLY]?: IncomingMessage };

/**
 * Say that the answer about to go to `req` may leave before its body has arrived (the error
 * paths call it): if that answer closes the connection, the close happens in stages.
 */
export function answeringEarly(req: IncomingMessage): void {
  if (!req.complete) (req.socket as MarkedSocket)[ANSWERED_EARLY] = req;
}

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

  /** Close every lingering connection now (the server is stopping). */
  endAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  private close(socket: MarkedSocket): void {
    const req = socket[ANSWERED_EARLY];
    socket[ANSWERED_EARLY] = undefined;
    if (!req || req.complete || socket.destroyed) return Socket.prototype.destroySoon.call(socket);
    this.sockets.add(socket);
    // The answer's bytes go first, then the FIN; the body's remaining bytes are read and dropped
    // (a request paused while it was refused flows again, with no one listening).
    socket.end();
    req.resume();
    let read = socket.bytesRead;
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
