/**
 * The access log: one JSON line per request on stdout. Lines of one event-loop turn are
 * written together, so logging costs one write per turn rather than one per request (a write
 * is a system call, about 0.9 µs on ext4: BENCHMARKS.md, "Counting cost"). It
 * never holds a key (only the key's public id) nor the query string of a CritPt post, and
 * what a client puts in its URL is redacted: anything key-shaped, and the value of any query
 * parameter named like a secret.
 */
import { RecentMap } from '../lib/recent-map.ts';

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

/** A request target as the log writes it: its path and query, each cut at 512 characters and redacted. */
export interface LoggedTarget {
  path: string;
  /** Omitted when the target has none. */
  query?: string;
}

/** A path or query longer than this is cut to it in the log. */
const LOGGED_CHARS = 512;
/** Targets up to this length are remembered (LoggedTargets): a few hundred of them hold well under a megabyte. */
const REMEMBERED_TARGET_CHARS = 512;

export function loggedTarget(target: string): LoggedTarget {
  const [path, query] = target.split('?', 2);
  return {
    path: redactPath(path.length > LOGGED_CHARS ? `${path.slice(0, LOGGED_CHARS)}...` : path),
    query: query ? redactQuery(query.slice(0, LOGGED_CHARS)) : undefined,
  };
}

/**
 * Logged targets remembered by the target itself: a server's clients ask for the same few again
 * and again, and splitting and redacting one cost some 3,000 instructions a request (callgrind,
 * the access log on, the Commercial list page, 16 connections).
 */
export class LoggedTargets {
  private readonly memo = new RecentMap<string, LoggedTarget>(256);

  of(target: string): LoggedTarget {
    if (target.length > REMEMBERED_TARGET_CHARS) return loggedTarget(target);
    let logged = this.memo.get(target);
    if (logged === undefined) this.memo.set(target, (logged = loggedTarget(target)));
    return logged;
  }
}

export interface AccessEntry {
  time: string;
  /** The client's address: the socket's peer, or behind trusted proxies the one they name (src/http/forwarded.ts). */
  client: string;
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

/**
 * An entry as its line: what `JSON.stringify(entry)` writes, made by hand. The time, method, route
 * and key id are written as they are, since none holds a character JSON escapes (an ISO time, a
 * method node:http parsed from its table, a route id of the route table, a key id of its pattern),
 * and the numbers are finite; the client, path and query go through JSON.stringify. Walking the
 * entry as an object cost some 4,000 instructions a line (callgrind, as above).
 */
export function accessLine(entry: AccessEntry): string {
  const { time, client, method, route, path, query, status, bytes, ms, key } = entry;
  let line = `{"time":"${time}","client":${JSON.stringify(client)},"method":"${method}","route":"${route}"`;
  line += `,"path":${JSON.stringify(path)}`;
  if (query !== undefined) line += `,"query":${JSON.stringify(query)}`;
  line += `,"status":${status},"bytes":${bytes},"ms":${ms}`;
  return key === undefined ? `${line}}` : `${line},"key":"${key}"}`;
}

/**
 * Where the lines go: stdout, or any stream like it (write() says false, and writableLength grows,
 * when the reader lags).
 */
export interface LogStream {
  write(text: string): boolean;
  readonly writableLength: number;
  once(event: 'drain', listener: () => void): unknown;
}

/** Bytes the stream may hold unwritten before lines are dropped (docs/operating.md, "Health, metrics and logs"). */
export const ACCESS_LOG_BACKLOG_BYTES = 4 * 1024 * 1024;

export interface AccessLogOptions {
  /** Bytes waiting in the stream past which a turn's lines are dropped rather than queued. */
  backlogBytes?: number;
  /** Told how many lines were just dropped (the metric). */
  dropped?: (lines: number) => void;
  /** One line once the stream takes writes again, saying how many were dropped (stderr: stdout is what lagged). */
  notice?: (line: string) => void;
}

/** A function as a stream that never lags (a test's collector). */
function alwaysReady(write: (text: string) => void): LogStream {
  return {
    write: (text) => (write(text), true),
    writableLength: 0,
    once: () => undefined,
  };
}

/**
 * When the reader of stdout stops (a full pipe to a stalled log shipper), node keeps every
 * write in memory: the process would grow by each line until it died. Past `backlogBytes`
 * unwritten, lines are dropped and counted until the stream drains, then one notice says how many.
 */
export class AccessLog {
  private pending: string[] = [];
  private scheduled = false;
  private readonly out: LogStream;
  private readonly backlogBytes: number;
  /** A write was refused and its 'drain' has not come yet. */
  private lagging = false;
  /** Lines dropped since the stream last drained; while above 0 every line is dropped. */
  private droppedLines = 0;

  constructor(
    out: LogStream | ((text: string) => void),
    private readonly options: AccessLogOptions = {},
  ) {
    this.out = typeof out === 'function' ? alwaysReady(out) : out;
    this.backlogBytes = options.backlogBytes ?? ACCESS_LOG_BACKLOG_BYTES;
  }

  record(entry: AccessEntry): void {
    this.pending.push(accessLine(entry));
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    const text = `${lines.join('\n')}\n`;
    // Dropping goes on until the drain, not just until the backlog dips under the bound, so a
    // lagging reader gets one notice per stall rather than one per turn.
    if (this.droppedLines > 0 || (this.lagging && this.out.writableLength + text.length > this.backlogBytes))
      return this.drop(lines.length);
    if (this.out.write(text) || this.lagging) return;
    // Refused: the stream says 'drain' once its backlog is written (only then, so a drop waits for one).
    this.lagging = true;
    this.out.once('drain', () => this.drained());
  }

  private drop(lines: number): void {
    this.droppedLines += lines;
    this.options.dropped?.(lines);
  }

  private drained(): void {
    this.lagging = false;
    const lines = this.droppedLines;
    if (lines === 0) return;
    this.droppedLines = 0;
    this.options.notice?.(
      `access log: ${lines} line${lines === 1 ? '' : 's'} dropped while stdout was not being read (more than ` +
        `${this.backlogBytes} bytes waiting)`,
    );
  }
}
