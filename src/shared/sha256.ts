/**
 * SHA-256 in one call. The one-shot `crypto.hash` (Node 20.12 and later) costs a third of a Hash
 * object on a short text (BENCHMARKS.md, "Throughput"; 1.3 against 2.7 to 5.7 µs a call for a
 * measurement record's id text, the build making 375,000 of them for the sample); older 20s
 * build one.
 */
import * as crypto from 'node:crypto';

export type Sha256Encoding = 'hex' | 'base64url';

export const sha256: (data: string | Buffer, encoding: Sha256Encoding) => string =
  typeof crypto.hash === 'function'
    ? (data, encoding) => crypto.hash('sha256', data, encoding)
    : (data, encoding) => crypto.createHash('sha256').update(data).digest(encoding);
