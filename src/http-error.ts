/**
 * The one error type of the request path. Anything that should become an error response is
 * thrown as an HttpError; the server's single error path turns it into JSON. Anything else
 * thrown is a bug and becomes a 500 without taking the process down.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string | number>,
    /** A body of another shape where the spec fixes one (the CritPt 429). */
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** The JSON body of every error response: `{error, details?}`, unless the error brings its own. */
export function errorBody(error: HttpError): string {
  if (error.body) return JSON.stringify(error.body);
  return JSON.stringify(error.details ? { error: error.message, details: error.details } : { error: error.message });
}
