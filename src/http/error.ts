/**
 * The one error type of the request path, on the public port and the admin listener alike.
 * Anything that should become an error response is thrown as an HttpError; each listener's
 * single error path turns it into JSON with answerOf. Anything else thrown is either something
 * the server cannot use right now (an Unavailable: a 503 with when to retry) or a bug, which
 * becomes a logged 500 without taking the process down.
 *
 * Every error body is `{error, details}`: `error` is the message clients match on (the original
 * service's wording where it has one), `details` an object that names what a program needs to
 * act on it (the field, the valid values, the tier, the limit...). Only the CritPt 429 has a
 * body of its own, fixed by the contract.
 */
import { Unavailable } from '../lib/unavailable.ts';

export interface HttpErrorOptions {
  /** What a program needs to act on the error; `{}` when the message says it all. */
  details?: Record<string, unknown>;
  /** Header fields the error answer carries (Allow, Retry-After, the rate-limit fields...). */
  headers?: Record<string, string | number>;
  /** A body of another shape where the contract fixes one (the CritPt 429). */
  body?: Record<string, unknown>;
  /**
   * The error this answer stands for (a key store's refusal, say), kept for whoever logs or
   * debugs it; never sent: the answer is the status, message and details alone.
   */
  cause?: unknown;
}

export class HttpError extends Error {
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string | number> | undefined;
  readonly body: Record<string, unknown> | undefined;

  constructor(
    readonly status: number,
    message: string,
    { details = {}, headers, body, cause }: HttpErrorOptions = {},
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'HttpError';
    this.details = details;
    this.headers = headers;
    this.body = body;
  }
}

/** The JSON body of every error response: `{error, details}`, unless the error brings its own. */
export function errorBody(error: HttpError): string {
  return JSON.stringify(error.body ?? { error: error.message, details: error.details });
}

/**
 * The answer to what was thrown: an HttpError as it is; what the server cannot use right now (an
 * Unavailable: state, stored bytes) a 503 saying when to retry; anything else is a bug, which
 * `logBug` records before it becomes a 500.
 */
export function answerOf(error: unknown, logBug: (error: unknown) => void): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof Unavailable) {
    const retryAfter = error.retryAfterSeconds;
    return new HttpError(503, error.message, {
      details: { retry_after: retryAfter },
      headers: { 'Retry-After': retryAfter },
      cause: error,
    });
  }
  logBug(error);
  return new HttpError(500, 'Internal server error', { details: { retry: 'with exponential backoff' }, cause: error });
}
