/** Timeouts and limits, set deliberately (docs/operating.md, "Hardening"). */
export const HTTP_LIMITS = {
  /** Whole headers must arrive within this. */
  headersTimeout: 20_000,
  /** The whole request (headers and body) must arrive within this; a response may take longer. */
  requestTimeout: 120_000,
  /** Idle keep-alive connections are closed after this. */
  keepAliveTimeout: 15_000,
  maxHeaderSize: 16 * 1024,
  /** Header lines a request may have (Apache's LimitRequestFields default); more get 431. */
  maxHeaderLines: 100,
  /** A connection whose response has unsent bytes and made no progress for this long is closed (--send-timeout). */
  sendStallMs: 30_000,
  /** Answers under way on one connection; further pipelined requests wait, and it is no longer read. */
  maxInFlightPerConnection: 4,
  /** Pipelined requests waiting on all connections together; past it, a connection that adds one is closed. */
  maxWaiting: 4096,
  /**
   * A connection closed by an answer that went before its request's body arrived keeps reading (and
   * dropping) for at most this long (src/http/linger.ts).
   */
  lingerMs: 30_000,
  /** ... and closes sooner once nothing has arrived for this long (or it is no longer read). */
  lingerQuietMs: 2_000,
  /** ... and reads at most this much of what the client still sends. */
  lingerBytes: 256 * 1024,
  /**
   * A new connection's first read holding more request heads than this waits its turn while
   * connections arrive (src/http/first-read.ts).
   */
  firstReadHeads: 4,
  /** Request heads of such first reads parsed in a turn once no connection arrived in it. */
  firstReadBudget: 256,
  /** Such a first read waits at most this long; a connection silent this long is given to node:http as it is. */
  firstReadWaitMs: 1000,
  /**
   * ... and such first reads are held up to this many bytes in all (and maxWaiting request heads);
   * past either, closed unparsed.
   */
  firstReadHeldBytes: 8 * 1024 * 1024,
};
