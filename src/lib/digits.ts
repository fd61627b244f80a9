/**
 * The decimal digits of a number that changes from one request to the next (a remaining count,
 * a timestamp in milliseconds), made without V8's number-to-string cache.
 *
 * `String(n)`, a template and node:http writing a numeric header value all go through that
 * cache, and the cache lives in the old generation: every new number leaves its string there.
 * At tens of thousands of counted requests a second that grew the old generation by megabytes
 * a second and brought a major collection every second or two, each a pause of 1 to 5 ms
 * (`--trace-gc` under the bench's load: 3 mark-compacts in 5 s; none without). A safe integer
 * is written here without the cache; anything else keeps `String`.
 */
export function digits(n: number): string {
  if (!Number.isSafeInteger(n)) return String(n);
  if (n < 0) return `-${digits(-n)}`;
  // Three digits at a time from a table: `toFixed(0)`, which also skips the cache, took about 480
  // instructions a request in V8's double-to-text code (bench/analysis.md, "A shorter path").
  let text = '';
  while (n >= 1000) {
    text = THREE_DIGITS[n % 1000]! + text;
    n = Math.floor(n / 1000);
  }
  return LEADING_DIGITS[n]! + text;
}

/** 0 to 999 as written first (no leading zeros) and after it (three digits). */
const LEADING_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i));
const THREE_DIGITS = LEADING_DIGITS.map((text) => text.padStart(3, '0'));
