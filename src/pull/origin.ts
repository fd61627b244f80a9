/**
 * The origin a server pulls published snapshots from (src/pull/puller.ts): plain HTTP GETs of
 * release.json and of chunks, over http or https (trusting the operator's CA when given), on a
 * few kept-alive connections. Every answer is bounded: its size (a chunk is never larger than
 * the release says, release.json never past RELEASE_MAX_BYTES), the wait for it to begin, and
 * the time it may take in all, so an origin that trickles or lies about sizes costs a failed
 * fetch, never memory or a stuck pull.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** Connections to the origin at once: enough to keep a fast link busy with 32 KiB chunks. */
export const ORIGIN_CONNECTIONS = 4;

export interface OriginOptions {
  /** The published folder's URL (a trailing slash is added). */
  base: string;
  /** PEM of the CA an https origin's certificate must chain to, beside the system's; null: the system's. */
  ca: Buffer | null;
  /** How long an answer may take to begin, and how long it may go without a byte. */
  idleMs: number;
  /** How long one GET may take in all. */
  totalMs: number;
}

export interface Fetched {
  status: number;
  etag: string | null;
  lastModified: string | null;
  body: Buffer;
}

/** A fetch that failed: the origin's status, or what went wrong on the way. */
export class OriginError extends Error {}

export class Origin {
  readonly base: URL;
  private readonly agent: HttpAgent;
  private readonly request: typeof httpRequest;

  constructor(private readonly options: OriginOptions) {
    this.base = new URL(options.base.endsWith('/') ? options.base : `${options.base}/`);
    const https = this.base.protocol === 'https:';
    if (!https && this.base.protocol !== 'http:')
      throw new Error(`--snapshot-from must be http or https, got ${options.base}`);
    const agentOptions = { keepAlive: true, maxSockets: ORIGIN_CONNECTIONS };
    this.agent = https
      ? new HttpsAgent({ ...agentOptions, ...(options.ca && { ca: options.ca }) })
      : new HttpAgent(agentOptions);
    this.request = https ? httpsRequest : httpRequest;
  }

  /** The URL of a file of the published folder, for messages. */
  urlOf(path: string): string {
    return new URL(path, this.base).href;
  }

  /**
   * GET a file of the published folder, at most `maxBytes` of it; a 304 (with `headers` asking
   * for one) has an empty body. Throws OriginError for anything but 200 and 304.
   */
  get(path: string, maxBytes: number, headers: Record<string, string> = {}): Promise<Fetched> {
    const url = new URL(path, this.base);
    return new Promise<Fetched>((resolve, reject) => {
      const fail = (message: string) => {
        clearTimeout(deadline);
        req.destroy();
        reject(new OriginError(`${url.href}: ${message}`));
      };
      // The request first: when it throws (a header it refuses), no deadline is left to fire at a `req` never made.
      const req = this.request(url, { agent: this.agent, headers: { 'accept-encoding': 'identity', ...headers } });
      const deadline = setTimeout(
        () => fail(`no whole answer within ${this.options.totalMs} ms`),
        this.options.totalMs,
      );
      req.setTimeout(this.options.idleMs, () => fail(`nothing for ${this.options.idleMs} ms`));
      req.on('error', (error) => fail(error.message));
      req.on('response', (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if (status !== 200 && status !== 304) {
          res.resume();
          return fail(`HTTP ${status}`);
        }
        const declared = Number(res.headers['content-length'] ?? NaN);
        if (declared > maxBytes) return fail(`${declared} bytes, more than the ${maxBytes} expected`);
        const parts: Buffer[] = [];
        let length = 0;
        res.on('data', (part: Buffer) => {
          length += part.length;
          if (length > maxBytes) return fail(`more than the ${maxBytes} bytes expected`);
          parts.push(part);
        });
        res.on('error', (error) => fail(error.message));
        res.on('end', () => {
          clearTimeout(deadline);
          if (!res.complete) return reject(new OriginError(`${url.href}: the answer ended early`));
          const header = (name: string) =>
            typeof res.headers[name] === 'string' ? (res.headers[name] as string) : null;
          resolve({
            status,
            etag: header('etag'),
            lastModified: header('last-modified'),
            body: Buffer.concat(parts, length),
          });
        });
      });
      req.end();
    });
  }

  /** Close the kept-alive connections (and any under way). */
  close(): void {
    this.agent.destroy();
  }
}
