/**
 * Something the server needs cannot be used right now (state it cannot read or write, stored
 * bytes that fail their checksum), so it cannot answer correctly: the request gets a 503 with
 * this message and a Retry-After of `retryAfterSeconds`, never a guess and never a 500.
 */
export abstract class Unavailable extends Error {
  abstract readonly retryAfterSeconds: number;
}
