/**
 * The access log: one JSON line per request on stdout. Lines of one event-loop turn are
 * written together, so logging costs one write per turn rather than one per request (a write
 * is a system call, about 0.9 µs on ext4: BENCHMARKS.md, "Counting cost"). It
 * never holds a key (only the key's public id) nor the query string of a CritPt post, and
 * what a client puts in its URL is redacted: anything key-shaped, and the value of any query
 * parameter named like a secret.
 */

/** A key, or the start of one, plain or percent-encoded (`bdk_`, `bdk%5F`). */
const KEY_SHAPED = /bdk(?:_|%5f)[A-Za-z0-9_%-]*/gi;
/** Query parameter names that carry secrets by their name (api_key, token, x-api-key, auth, ...). */
const SECRET_NAME = /key|token|secret|auth|pass|sig|cred/i;
export const REDACTED = '[redacted]';

/** A request path with every key-shaped part replaced. */
export function redactPath(path: string): string {
  return path.replace(KEY_SHAPED, `bdk_${REDACTED}`);
}

/** A query string with key-shaped parts and the values of secret-named parameters replaced. */
export function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      if (eq >= 0 && SECRET_NAME.test(safeDecode(name))) return `${redactPath(name)}=${REDACTED}`;
      return redactPath(pair);
    })
    .join('&');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export interface AccessEntry {
  time: string;
  method: string;
  /** The route id, or `unmatched`. */
  route: string;
  path: string;
  /** Query string of data routes (never of CritPt posts); omitted when empty. */
  query?: string;
  status: number;
  bytes: number;
  ms: number;
  /** The public id of the key (`key_…`), when one was valid. */
  key?: string;
}

export class AccessLog {
  private pending: string[] = [];
  private scheduled = false;

  constructor(private readonly write: (text: string) => void) {}

  record(entry: AccessEntry): void {
    this.pending.push(JSON.stringify(entry));
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const text = `${this.pending.join('\n')}\n`;
    this.pending = [];
    this.write(text);
  }
}
