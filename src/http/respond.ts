/**
 * Writing a response and remembering how many body bytes it carried (for the access log:
 * headers given to writeHead cannot be read back from the response).
 */
import type { ServerResponse } from 'node:http';

/** Content type of every JSON answer, errors included. */
export const JSON_TYPE = 'application/json; charset=utf-8';

export type Headers = Record<string, string | number>;

/**
 * Header fields as one flat list, name then value, in the order they are written. The answers
 * sent most often use it: node:http takes the list as it is, where an object would be built,
 * spread and walked key by key for every answer (BENCHMARKS.md, "Throughput": 6 µs a request
 * lay between the body lookup and writeHead, in header objects and a WeakMap entry per answer).
 */
export type HeaderFields = (string | number)[];

/** Body bytes sent, kept on the response itself (a WeakMap entry per answer costs the collector more: same figure). */
const SENT = Symbol('body bytes sent');
type Tracked = ServerResponse & { [SENT]?: number };

/** A whole response at once, with its Content-Length; no body for HEAD. A list of fields is extended, not copied. */
export function send(
  res: ServerResponse,
  status: number,
  headers: Headers | HeaderFields,
  body: Buffer | string,
  head: boolean,
): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (Array.isArray(headers)) {
    headers.push('Content-Length', bytes.length);
    res.writeHead(status, headers);
  } else res.writeHead(status, { ...headers, 'Content-Length': bytes.length });
  (res as Tracked)[SENT] = head ? 0 : bytes.length;
  res.end(head ? undefined : bytes);
}

/**
 * A body of several pieces, written as they are (no copy into one buffer), in one go: corked, so
 * they leave in as few writes as the socket allows. A list of fields is extended, not copied.
 */
export function sendPieces(res: ServerResponse, status: number, fields: HeaderFields, pieces: readonly Buffer[]): void {
  const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
  fields.push('Content-Length', length);
  res.writeHead(status, fields);
  (res as Tracked)[SENT] = length;
  res.cork();
  for (const piece of pieces) res.write(piece);
  res.end();
  res.uncork();
}

/** Part of a streamed body. */
export function sendPart(res: ServerResponse, text: string): void {
  (res as Tracked)[SENT] = bytesSent(res) + Buffer.byteLength(text);
  res.write(text);
}

export function bytesSent(res: ServerResponse): number {
  return (res as Tracked)[SENT] ?? 0;
}

/** The same fields as an object, for the answers that merge headers from several places. */
export function headersOf(fields: HeaderFields): Headers {
  const headers: Headers = {};
  for (let i = 0; i < fields.length; i += 2) headers[fields[i]] = fields[i + 1];
  return headers;
}
