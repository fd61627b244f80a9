/**
 * How the admin listener writes its answers: JSON with headers that keep it out of caches and
 * sniffers, whole or in pieces as the client reads them, and the one error path's body (the public
 * server's errorBody).
 */
import type { ServerResponse } from 'node:http';
import { errorBody, type HttpError } from '../http/error.ts';
import type { JsonPieces } from './operation.ts';
import { nextTurn } from '../lib/next-turn.ts';

const COMMON_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};
const JSON_TYPE = 'application/json; charset=utf-8';
/**
 * How much of an answer in pieces may wait in memory for its client before the next piece is made.
 * Past the socket's 16 KiB mark, the next piece is made while the last one is sent: the 30-day
 * export of 100,000 scopes took 1.55-1.86 s as JSON against 1.98-2.49 s waiting for each piece to
 * drain, and 1.0-1.2 s against 1.37-1.57 s as CSV (scripts/bench/usage-history.ts, 3 rounds).
 */
const AHEAD_MOST = 1024 * 1024;

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string | number> = {},
): void {
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, JSON.stringify(body));
}

/**
 * An answer made as it is sent (chunked), its pieces taken as fast as the client reads them, at most
 * AHEAD_MOST ahead of it; a client gone stops it. JSON unless its headers say otherwise (a CSV
 * export); errors are JSON.
 */
export async function sendPieces(res: ServerResponse, status: number, body: JsonPieces): Promise<void> {
  res.writeHead(status, { ...COMMON_HEADERS, 'Content-Type': JSON_TYPE, ...body.headers });
  for await (const text of body.texts) {
    // A turn of the event loop between pieces, drained or not: a socket that takes a piece at once
    // (loopback does) says so by 'drain' in the same tick, and the next piece, made from pieces
    // in hand, followed in the same turn: a day of the usage history's 30-day export held the loop
    // 70-135 ms so (a profile of the gaps: one setImmediate's microtasks, every piece of the day).
    res.write(text);
    if (res.writableLength > AHEAD_MOST) await drained(res);
    await nextTurn();
    if (res.destroyed) return;
  }
  res.end();
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** The one error path's answer: the public server's JSON error body (errorBody), with the error's headers. */
export function sendError(res: ServerResponse, error: HttpError): void {
  sendText(res, error.status, errorBody(error), error.headers);
}

/** 308 to where the page is (`/admin` and `/` go to `/admin/`). */
export function sendRedirect(res: ServerResponse, location: string): void {
  res.writeHead(308, { ...COMMON_HEADERS, Location: location, 'Content-Length': 0 });
  res.end();
}
