/**
 * The decimal digits of a number that changes from one request to the next (a remaining count,
 * a timestamp in milliseconds), made without V8's number-to-string cache.
 *
 * `String(n)`, a template and node:http writing a numeric header value all go through that
 * cache, and the cache lives in the old generation: every new number leaves its string there.
 * At tens of thousands of counted requests a second that grew the old generation by megabytes
 * a second and brought a major collection every second or two, each a pause of 1 to 5 ms
 * (`--trace-gc` under the bench's load: 3 mark-compacts in 5 s; none with this). `toFixed(0)`
 * writes the same digits for a safe integer without the cache; anything else keeps `String`.
 */
export function digits(n: number): string {
  return Number.isSafeInteger(n) ? n.toFixed(0) : String(n);
}
