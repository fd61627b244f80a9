/**
 * Writing a response and remembering how many body bytes it carried (for the access log:
 * headers given to writeHead cannot be read back from the response).
 */
import type { ServerResponse } from 'node:http';

export type Headers = Record<string, string | number>;

const sent = new WeakMap<ServerResponse, number>();

/** A whole response at once, with its Content-Length; no body for HEAD. */
export function send(res: ServerResponse, status: number, headers: Headers, body: Buffer | string, head: boolean): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { ...headers, 'Content-Length': bytes.length });
  sent.set(res, head ? 0 : bytes.length);
  res.end(head ? undefined : bytes);
}

/** Part of a streamed body. */
export function sendPart(res: ServerResponse, text: string): void {
  sent.set(res, (sent.get(res) ?? 0) + Buffer.byteLength(text));
  res.write(text);
}

export function bytesSent(res: ServerResponse): number {
  return sent.get(res) ?? 0;
}
