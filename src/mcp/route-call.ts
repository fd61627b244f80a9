/**
 * A tool call made as the route's own request, answered in this process by the server's own
 * request handler: the key's checks, its quota (one counted request a call), the route's errors,
 * its access log line and metrics and its bytes are then the route's, by construction, with
 * nothing of the pipeline copied here.
 *
 * The request is a real IncomingMessage on the MCP request's socket (so the access log names the
 * agent's address, as the route would, and a call whose agent went away ends as the route's would);
 * the response is a HeldResponse, which keeps what the handler writes instead of sending it.
 *
 * Why not a request over loopback, as it first was: each call then wrote its request and the
 * route's whole body through the kernel and read them back, and parsed both; under load (the
 * Commercial list page at c=16, `scripts/bench/mcp.ts`) the socket writes took 18% of the CPU, the
 * HTTP client's parsing and pooling 10% more, and the garbage of the copied bodies most of 13%.
 */
import { EventEmitter } from 'node:events';
import { IncomingMessage, type IncomingHttpHeaders, type ServerResponse } from 'node:http';

/** The server's request handler (src/app.ts), as node:http calls it. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse, closed: () => void) => void;

/** What the route answered: its status, its header fields by lower-case name, its body whole. */
export interface RouteAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Who asks: the key the call is made with, and the MCP request it is made for. */
export interface RouteAsker {
  key: string | null;
  /** The agent's request: its socket and X-Forwarded-For are the call's, for the access log. */
  from: IncomingMessage;
}

export class RouteCaller {
  constructor(private readonly handle: RequestHandler) {}

  /** GET `path` with the asker's key, uncompressed (or gzipped, when the route stores it so). */
  get(path: string, asker: RouteAsker, encoding: 'identity' | 'gzip' = 'identity'): Promise<RouteAnswer> {
    const req = new IncomingMessage(asker.from.socket);
    req.method = 'GET';
    req.url = path;
    req.headers = { 'accept-encoding': encoding, accept: 'application/json' };
    if (asker.key !== null) req.headers['x-api-key'] = asker.key;
    const forwarded = asker.from.headers['x-forwarded-for'];
    if (forwarded !== undefined) req.headers['x-forwarded-for'] = forwarded;
    // A GET without a body, read whole; its stream is never read, so it is not ended either (an
    // ending is scheduled work: 2.4% of the calls' CPU under load).
    req.complete = true;
    return new Promise((resolve, reject) => {
      const res = new HeldResponse(resolve, reject, path);
      this.handle(req, res as unknown as ServerResponse, () => {});
    });
  }
}

/**
 * The part of a ServerResponse the request handler writes to, keeping the answer instead of sending
 * it: `writeHead` once, then the body by `write` and `end`; `destroy` (the answer was cut off) rejects.
 * It closes as a response does, after it ends, on a later tick.
 */
export class HeldResponse extends EventEmitter {
  statusCode = 200;
  headersSent = false;
  writableFinished = false;
  destroyed = false;
  /** node:http's own field, which the error path sets to close a connection: no connection here. */
  shouldKeepAlive = true;
  private headers: IncomingHttpHeaders = {};
  private readonly pieces: Buffer[] = [];

  constructor(
    private readonly resolve: (answer: RouteAnswer) => void,
    private readonly reject: (error: Error) => void,
    private readonly path: string,
  ) {
    super();
  }

  writeHead(status: number, fields: (string | number)[] | Record<string, string | number>): this {
    if (this.headersSent) throw new Error(`${this.path}: headers written twice`);
    this.statusCode = status;
    this.headersSent = true;
    const pairs = Array.isArray(fields) ? fields : Object.entries(fields).flat();
    for (let i = 0; i < pairs.length; i += 2) this.headers[String(pairs[i]).toLowerCase()] = String(pairs[i + 1]);
    return this;
  }

  write(piece: Buffer | string): boolean {
    if (!this.headersSent) this.writeHead(this.statusCode, []);
    this.pieces.push(typeof piece === 'string' ? Buffer.from(piece) : piece);
    return true;
  }

  end(piece?: Buffer | string): this {
    if (this.writableFinished || this.destroyed) return this;
    if (piece !== undefined) this.write(piece);
    else if (!this.headersSent) this.writeHead(this.statusCode, []);
    this.writableFinished = true;
    const body = this.pieces.length === 1 ? this.pieces[0] : Buffer.concat(this.pieces);
    this.resolve({ status: this.statusCode, headers: this.headers, body });
    process.nextTick(() => this.emit('close'));
    return this;
  }

  /** Corking is a socket's matter: every write is kept as it comes. */
  cork(): void {}
  uncork(): void {}

  destroy(error?: Error): this {
    if (this.destroyed || this.writableFinished) return this;
    this.destroyed = true;
    this.reject(error ?? new Error(`${this.path}: the answer was cut off`));
    process.nextTick(() => this.emit('close'));
    return this;
  }
}
