/**
 * The one error type of the request path, on the public port and the admin listener alike.
 * Anything that should become an error response is thrown as an HttpError; each listener's
 * single error path turns it into JSON. Anything else thrown
 * is either a storage error the app maps to a 503 in one place (src/exchange.ts) or a bug,
 * which becomes a 500 without taking the process down.
 *
 * Every error body is `{error, details}`: `error` is the message clients match on (the original
 * service's wording where it has one), `details` an object that names what a program needs to
 * act on it (the field, the valid values, the tier, the limit...). Only the CritPt 429 has a
 * body of its own, fixed by the contract.
 */

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
