/**
 * What a RedisClient (src/redis/client.ts) is told when it is made: where Redis is, how long a
 * command may wait, how it reconnects, whom it tells, and how writes are confirmed.
 */
import type { RedisAddress } from './address.ts';
import type { Backoff } from './reconnection.ts';
import type { PrimarySource } from './sentinel-watch.ts';
import type { ReplicaConfirmation } from './waiting.ts';

export interface RedisClientOptions {
  address: RedisAddress;
  /** A command unanswered this long fails and takes the connection down (default 2000 ms). */
  commandTimeoutMs?: number;
  /** Reconnection: the first wait, doubled after each failure up to the last (default 50 to 1000 ms). */
  backoffMs?: Backoff;
  /** Told when the connection goes down or comes back (once per outage, not per retry). */
  log?: (line: string) => void;
  /**
   * Called each time a connection is ready for commands, the first and every reconnection: what a
   * restarted Redis may have changed is checked again.
   */
  connected?: () => void;
  /**
   * Where to connect, asked at every connection attempt and followed when it changes its verdict
   * (default: the address's host and port, or the primary its sentinels name, asked at each
   * attempt). A rejection is a failed attempt; the client closes it when it closes.
   */
  primary?: PrimarySource;
  /**
   * Writes that count (sendReplicated, evalReplicated) are confirmed by a `WAIT count timeoutMs`
   * at the end of their write, and fail with RedisNotReplicated unless `count` replicas
   * acknowledged them (default count 0: no WAIT).
   */
  replicas?: ReplicaConfirmation;
}
