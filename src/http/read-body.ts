/**
 * The one reader of request bodies, for CritPt grading requests on the public port and every
 * body the admin listener takes: a body is read within a byte budget (src/http/body-budget.ts),
 * its bytes reserved before any is read (from Content-Length, or as a body without one
 * arrives), kept in one buffer, and released when the answer closes, however it ends. A body
 * that arrives slower than a minimum average rate after a grace period is cut with a 408. Each
 * listener words its refusals (BodyRefusals); the public API's wording is the default.
 *
 * Why: a body used to be gathered chunk by chunk with no bound but its own size, so a hundred
 * concurrent 15 MB posts (answered 400, so free to repeat) took a gigabyte, and each small chunk
 * of a trickled body cost hundreds of times its size until the request ended.
 */
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './error.ts';
import type { BodyBudget, BodyReservation, BudgetRefusal } from './body-budget.ts';

export interface BodyLimits {
  /** Largest body (413 past it). */
  maxBytes: number;
  /** Average bytes a second a body must keep up once the grace has passed (408 below it). */
  minBytesPerSecond: number;
  /** How long a body may arrive at any pace before the rate applies. */
  graceMs: number;
}

/** What a body without a Content-Length is first given; it doubles as it needs more. */
const FIRST_CHUNKED_BYTES = 16 * 1024;
/** How often the rate is checked (a slow body is cut within this of falling short). */
const RATE_CHECK_MS = 250;
/** Seconds a refused client is told to wait: uploads under way finish or are cut within seconds. */
const BUSY_RETRY_SECONDS = 2;

/** Content-Length as a number of bytes, or null when the body comes chunked. */
function declaredLength(req: IncomingMessage): number | null {
  const text = req.headers['content-length'];
  // node:http has checked it is digits (or refused the request), and uses it to end the body.
  return text === undefined ? null : Number(text);
}

/** The answers a body is refused with: too large, over the budget, too slow. */
export interface BodyRefusals {
  tooLarge(maxBytes: number): HttpError;
  busy(refusal: BudgetRefusal, budget: BodyBudget): HttpError;
  tooSlow(limits: BodyLimits): HttpError;
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `Request body larger than ${maxBytes} bytes`, {
    details: { limit: maxBytes },
    headers: { Connection: 'close' },
  });
}

/**
 * 503, not 429: the CritPt 429 has a body the contract fixes (the grading quota), and this is no
 * quota spent, only memory that frees itself as uploads under way end.
 */
function busy(refusal: BudgetRefusal, budget: BodyBudget): HttpError {
  const [who, limit] =
    refusal === 'scope' ? ['this user', budget.limits.perScopeBytes] : ['the server', budget.limits.totalBytes];
  return new HttpError(503, `Too many uploads in flight for ${who}; retry later`, {
    details: { budget: refusal, limit, retry_after: BUSY_RETRY_SECONDS },
    headers: { 'Retry-After': BUSY_RETRY_SECONDS, Connection: 'close' },
  });
}

function tooSlow(limits: BodyLimits): HttpError {
  return new HttpError(408, `Request body arrived slower than ${limits.minBytesPerSecond} bytes a second`, {
    details: { min_bytes_per_second: limits.minBytesPerSecond, grace_seconds: limits.graceMs / 1000 },
    headers: { Connection: 'close' },
  });
}

/** The public API's refusals (a CritPt grading request's body). */
export const PUBLIC_REFUSALS: BodyRefusals = { tooLarge, busy, tooSlow };

/**
 * Read the body of `req` for `scope` within `budget` and `limits`; its reservation is released
 * when `res` closes. Throws the HttpError 413, 503 (budget) or 408 (too slow) of `refusals`; a
 * client that goes away rejects with a plain error (the error path then only ends the exchange).
 */
export function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  budget: BodyBudget,
  scope: string,
  limits: BodyLimits,
  refusals: BodyRefusals = PUBLIC_REFUSALS,
): Promise<Buffer> {
  const { tooLarge, busy, tooSlow } = refusals;
  const declared = declaredLength(req);
  // A request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112, 6.3): the
  // admin listener's GETs and DELETEs reserve nothing and start no rate check.
  if (declared === null && req.headers['transfer-encoding'] === undefined) return Promise.resolve(Buffer.alloc(0));
  if (declared !== null && declared > limits.maxBytes) return Promise.reject(tooLarge(limits.maxBytes));
  const first = declared ?? Math.min(FIRST_CHUNKED_BYTES, limits.maxBytes);
  const held: BodyReservation | BudgetRefusal = budget.reserve(scope, first);
  if (typeof held === 'string') return Promise.reject(busy(held, budget));
  // The answer's close is the one event every ending has (sent, refused, cut, client gone).
  res.once('close', held.release);
  if (res.closed) held.release();
  // One allocation when the length is known: no list of chunks, no concatenation.
  let buffer = Buffer.allocUnsafe(first);
  let size = 0;
  const started = performance.now();

  return new Promise((resolve, reject) => {
    const finish = (error: Error | null): void => {
      clearInterval(rate);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      if (!error) return resolve(buffer.subarray(0, size));
      // Read no more for now: the error answer closes the connection (Connection: close), in
      // stages that read and drop the rest (src/http/linger.ts).
      req.pause();
      // The buffer is not needed any longer, even while the answer goes out.
      buffer = Buffer.alloc(0);
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      const needed = size + chunk.length;
      if (needed > buffer.length) {
        // Only a body without a Content-Length grows (node ends a declared one at its length):
        // geometrically, so its bytes are copied a few times at most, and within the budget.
        if (needed > limits.maxBytes) return finish(tooLarge(limits.maxBytes));
        const capacity = Math.min(limits.maxBytes, Math.max(buffer.length * 2, needed));
        const refused = held.grow(capacity - buffer.length);
        if (refused) return finish(busy(refused, budget));
        const grown = Buffer.allocUnsafe(capacity);
        buffer.copy(grown, 0, 0, size);
        buffer = grown;
      }
      chunk.copy(buffer, size);
      size = needed;
    };
    const onEnd = (): void => finish(null);
    const onClose = (): void => finish(new Error('client disconnected before its body was read'));
    const rate = setInterval(
      () => {
        const elapsed = performance.now() - started;
        if (elapsed >= limits.graceMs && size < (limits.minBytesPerSecond * elapsed) / 1000) finish(tooSlow(limits));
      },
      Math.min(RATE_CHECK_MS, Math.max(1, limits.graceMs)),
    );
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    req.once('error', onClose);
  });
}
