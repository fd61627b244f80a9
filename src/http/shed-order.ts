/**
 * The decisions of the connection caps, pure (src/http/connection-caps.ts applies them): the
 * caps a descriptor limit allows, what a connection costs that serves no one, and which one
 * goes first when a new connection arrives at a cap.
 */

/**
 * Why a connection may be shed, in the order they are shed. Each step gives up more than the
 * one before:
 * 1. `lingering`: its answer is sent; it only reads and drops what its client still sends, so
 *    that a reset cannot erase that answer (src/http/linger.ts). Closing it costs nothing
 *    but, at worst, that one answer.
 * 2. `idle`: a keep-alive connection with no request under way and nothing of one received.
 *    Its client opens another when it has something to ask, as browsers and agents do.
 * 3. `slow_request`: request bytes (headers, or a next request) arriving with no answer under
 *    way, for longer than the grace: a slowloris. Nothing has been decided or counted for it,
 *    so closing it loses its client no answer; a client trickling a request will resend it.
 * 4. `stalled_reader`: an answer under way whose bytes have not moved for the grace: a client
 *    that does not read. Last, because that answer is decided and may be counted against the
 *    client's quota; the send timeout closes it anyway, later.
 * A connection with a request being read into a handler (an upload), answered or waited on
 * (a grading) is never shed: it is doing work someone asked for.
 */
export const SHED_ORDER = ['lingering', 'idle', 'slow_request', 'stalled_reader'] as const;
export type ShedReason = (typeof SHED_ORDER)[number];

/** What the caps know of one open connection, at one moment (times in ms, one clock). */
export interface ConnectionFacts {
  address: string;
  openedAt: number;
  /** Its closing answer is sent and it closes in stages. */
  closing: boolean;
  /** Requests received and not yet answered to the end (pipelined ones included). */
  requests: number;
  /** Bytes received since its last answer ended (or since it opened, before any). */
  partial: boolean;
  /** Since when it has had no request under way (its last answer's end, or its opening). */
  quietSince: number;
  /** Answer bytes waiting in its send buffer. */
  unsent: number;
  /** Since when those bytes have not moved. */
  unsentSince: number;
}

/** Why `c` could be shed now, or null: it does work someone asked for, or is too new to tell. */
export function shedReason(c: ConnectionFacts, now: number, graceMs: number): ShedReason | null {
  if (c.closing) return 'lingering';
  // A connection opened a moment ago may have its request on the way: not idle yet, nor slow.
  if (now - c.openedAt < graceMs) return null;
  if (c.unsent > 0) return c.requests > 0 && now - c.unsentSince >= graceMs ? 'stalled_reader' : null;
  if (c.requests > 0) return null;
  if (now - c.quietSince < graceMs) return null;
  return c.partial ? 'slow_request' : 'idle';
}

export interface Candidate {
  reason: ShedReason;
  address: string;
  /** Older goes first within a reason: the longest lingering, idle, trickling or stalled. */
  since: number;
}

/**
 * The candidate to shed, or -1: the first reason of SHED_ORDER that any has; within it, one of
 * the address holding the most connections (the client that has most pays first), then the
 * oldest. `only`: candidates of this address alone (its own cap is reached, not the server's).
 */
export function pickShed(
  candidates: readonly Candidate[],
  openByAddress: (address: string) => number,
  only?: string,
): number {
  let best = -1;
  let bestRank = 0;
  let bestHeld = 0;
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i];
    if (only !== undefined && c.address !== only) continue;
    const rank = SHED_ORDER.indexOf(c.reason);
    const held = openByAddress(c.address);
    if (
      best === -1 ||
      rank < bestRank ||
      (rank === bestRank && (held > bestHeld || (held === bestHeld && c.since < candidates[best].since)))
    ) {
      best = i;
      bestRank = rank;
      bestHeld = held;
    }
  }
  return best;
}

export interface Caps {
  /** Connections open at once, all listeners together, before new ones are refused. */
  total: number;
  /** Connections of one client address; loopback addresses are held to `total` alone. */
  perClient: number;
  /** Connections let in past `total` to be answered 503 (or /healthz) and closed, not reset. */
  refusing: number;
}

/**
 * The caps a descriptor limit allows. Kept back from the limit: an eighth (at least 64) for what
 * else the process opens (snapshot and state files, the journal, keys.json reads, Redis, the
 * grader, the listeners, log pipes) and the refusal slots. One client may hold half the
 * connections: a crowd of others is never starved by one; loopback is exempt, as every client
 * of a reverse proxy on the same host comes from 127.0.0.1. `total` and `perClient` given are
 * used as they are (an operator who raised the limit, or runs behind a proxy elsewhere).
 */
export function capsFor(
  descriptorLimit: number,
  given: { total: number | null; perClient: number | null } = { total: null, perClient: null },
): Caps {
  const reserve = Math.max(64, Math.ceil(descriptorLimit / 8));
  const refusing = Math.min(256, Math.max(8, Math.floor(descriptorLimit / 32)));
  const total = given.total ?? Math.max(1, descriptorLimit - reserve - refusing);
  return { total, perClient: given.perClient ?? Math.max(1, Math.ceil(total / 2)), refusing };
}

/** A loopback address (IPv4, IPv6, IPv4-mapped): a proxy's, held to the total cap only. */
export function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
}

/** What a new connection meets: room, a cap to make room under (the server's, or its client's), or its client's too. */
export function capReached(
  open: number,
  openOfClient: number,
  address: string,
  caps: Caps,
): 'room' | 'server' | 'client' {
  if (!isLoopback(address) && openOfClient >= caps.perClient) return 'client';
  return open >= caps.total ? 'server' : 'room';
}
