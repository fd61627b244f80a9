/**
 * The one error type of the request path. Anything that should become an error response is
 * thrown as an HttpError; the server's single error path turns it into JSON. Anything else
 * thrown is a bug and becomes a 500 without taking the process down.
 *
 * Every error body is `{error, details}`: `error` is the message clients match on (the original
 * service's wording where it has one), `details` an object that names what a program needs to
 * act on it (the field, the valid values, the tier, the limit...). Only the CritPt 429 has a
 * body of its own, fixed by the spec.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: Record<string, unknown>,
    readonly headers?: Record<string, string | number>,
    /** A body of another shape where the spec fixes one (the CritPt 429). */
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Seconds a client should wait after a 503 for unwritable quota bookkeeping. */
const QUOTA_RETRY_SECONDS = 10;

/** The quota journal cannot be written: nothing is served uncounted. */
export function quotaUnavailable(): HttpError {
  return new HttpError(503, 'Quota bookkeeping is unavailable (state folder not writable); retry later', { retry_after: QUOTA_RETRY_SECONDS }, { 'Retry-After': QUOTA_RETRY_SECONDS });
}

/** Seconds a client should wait after a 503 for an unreachable shared store: it reconnects within a second. */
const STORE_RETRY_SECONDS = 2;

/** The shared state store (Redis) cannot be reached: no key is checked and nothing is served uncounted. */
export function storeUnavailable(): HttpError {
  return new HttpError(503, 'Quota bookkeeping is unavailable (the shared state store cannot be reached); retry later', { retry_after: STORE_RETRY_SECONDS }, { 'Retry-After': STORE_RETRY_SECONDS });
}

/** The JSON body of every error response: `{error, details}`, unless the error brings its own. */
export function errorBody(error: HttpError): string {
  return JSON.stringify(error.body ?? { error: error.message, details: error.details });
}
