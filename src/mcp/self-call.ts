/**
 * A tool call made as the route's own request, to this server over loopback: the key's checks,
 * its quota (one counted request a call), the route's errors and its bytes are then the route's,
 * by construction, with nothing of the pipeline copied here. A few kept-alive connections carry
 * the calls; each answer is bounded in size and time.
 */
import { Agent, request, type IncomingHttpHeaders } from 'node:http';

/** Calls under way at once to the server itself; more wait for a connection. */
const SELF_CONNECTIONS = 8;
/** Larger than any body of the sample (the largest measurements answer is a few MB). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

export interface SelfAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as it arrived, in pieces: a tool's result writes them on as they are, uncopied. */
  pieces: Buffer[];
  /** The body whole (copied together when first asked for). */
  readonly body: Buffer;
}

function answerOf(status: number, headers: IncomingHttpHeaders, pieces: Buffer[]): SelfAnswer {
  let whole: Buffer | null = null;
  return {
    status,
    headers,
    pieces,
    get body() {
      return (whole ??= Buffer.concat(pieces));
    },
  };
}

export class SelfCaller {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: SELF_CONNECTIONS });

  /** `base`: where this server listens (`http://127.0.0.1:8080`), known once it does. */
  constructor(private readonly base: () => string | null) {}

  /** GET `path` of this server with the caller's key, uncompressed (or gzipped, when the route stores it so). */
  get(path: string, key: string | null, encoding: 'identity' | 'gzip' = 'identity'): Promise<SelfAnswer> {
    const base = this.base();
    if (!base) return Promise.reject(new Error('the server is not listening yet'));
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { 'accept-encoding': encoding, accept: 'application/json' };
      if (key !== null) headers['x-api-key'] = key;
      const req = request(new URL(path, base), { agent: this.agent, headers, timeout: TIMEOUT_MS });
      req.on('timeout', () => req.destroy(new Error(`no answer from ${path} within ${TIMEOUT_MS} ms`)));
      req.on('error', reject);
      req.on('response', (res) => {
        const parts: Buffer[] = [];
        let length = 0;
        res.on('data', (part: Buffer) => {
          length += part.length;
          if (length > MAX_BODY_BYTES) req.destroy(new Error(`${path} answered more than ${MAX_BODY_BYTES} bytes`));
          else parts.push(part);
        });
        res.on('error', reject);
        res.on('end', () => resolve(answerOf(res.statusCode ?? 0, res.headers, parts)));
      });
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
