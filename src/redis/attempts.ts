/**
 * Where and when the Redis client (src/redis/client.ts) connects: to the primary its source
 * names (asked at each attempt, and followed at once when the source changes its verdict), again
 * after a pause when an attempt fails or a connection ends (src/redis/reconnection.ts), and why
 * commands are refused meanwhile: the last failure, or the source's reason for using no Redis
 * now (the sentinels disagree, a failover is deciding: src/redis/sentinel-watch.ts).
 */
import { endpointLabel, type Endpoint } from './address.ts';
import { Reconnection, type Backoff } from './reconnection.ts';
import type { PrimarySource } from './sentinel-watch.ts';

/** The client's side: its connection, which this opens and leaves. */
export interface Connector {
  /** Open a connection to `endpoint`; its end comes back as `failed`, its handshake as `succeeded`. */
  open(endpoint: Endpoint): void;
  /** Where the connection under way or open goes (`host:port`), or null when there is none. */
  current(): string | null;
  /** Leave the connection under way or open, for `reason` (the client fails what waits on it, then calls `failed`). */
  leave(reason: string): void;
}

export class Attempts {
  /** Why commands are refused: the last failure, or the source's reason while it names no primary. */
  private failure = 'not connected yet';
  /** The source's reason for using no primary now, or null. */
  private held: string | null = null;
  /** An attempt is asking the source where to go. */
  private finding = false;
  private closed = false;
  private readonly reconnection: Reconnection;
  private readonly first: Promise<void>;
  private endFirst: () => void = () => {};

  constructor(
    private readonly primary: PrimarySource,
    private readonly connector: Connector,
    backoff: Backoff,
    /** The store as messages name it. */
    private readonly label: string,
    log?: (line: string) => void,
  ) {
    this.reconnection = new Reconnection(backoff, label, log);
    this.first = new Promise((resolve) => (this.endFirst = resolve));
    primary.follow((verdict) => this.follow(verdict));
  }

  /** Settles once the first attempt has succeeded or failed (it never rejects). */
  started(): Promise<void> {
    return this.first;
  }

  /** Why commands are refused while no connection is ready. */
  problem(): string {
    return `Redis at ${this.label} ${this.held === null ? 'is unreachable' : 'is not used'}: ${this.failure}`;
  }

  /** Ask the source where to go and open a connection there, unless one is under way. */
  attempt(): void {
    if (this.closed || this.finding || this.connector.current() !== null) return;
    this.finding = true;
    this.primary.find().then(
      (endpoint) => {
        this.finding = false;
        if (!this.closed && this.connector.current() === null) this.connector.open(endpoint);
      },
      (error: Error) => {
        this.finding = false;
        this.failed(error.message);
      },
    );
  }

  /** An attempt failed, or a connection ended: say why (/readyz), try again after a pause. */
  failed(reason: string): void {
    this.failure = reason;
    this.endFirst();
    if (!this.closed)
      this.reconnection.failed(reason, () => this.attempt(), this.held === null ? 'unreachable' : 'not used');
  }

  /** A connection is ready (to `where`, as the log names it). */
  succeeded(where: string): void {
    this.reconnection.succeeded(where);
    this.endFirst();
  }

  close(): void {
    this.closed = true;
    this.reconnection.stop();
    this.primary.close();
    this.endFirst();
  }

  /**
   * The source's new verdict: none may be used (leave the connection, failing what is under way
   * on it, and refuse commands until one may), or a primary (connect to it at once, unless
   * connected or connecting there already). A command already sent to a primary that is left
   * fails as unavailable: its reply, if it came, would be from a Redis no longer counted on.
   */
  private follow(verdict: Endpoint | string): void {
    if (this.closed) return;
    if (typeof verdict === 'string') {
      this.held = verdict;
      if (this.connector.current() !== null) this.connector.leave(verdict);
      else this.failure = verdict;
      return;
    }
    this.held = null;
    const where = endpointLabel(verdict);
    const current = this.connector.current();
    if (current === where) return;
    if (current !== null) this.connector.leave(`the sentinels name ${where} as the primary now`);
    // An attempt under way asks the source, which answers with this verdict or a later one.
    if (!this.finding) this.reconnection.now(() => this.attempt());
  }
}
