/**
 * Connections held under the descriptor limit (src/http/descriptor-limit.ts), in all and per
 * client address. Past the limit libuv closes a new connection at once, so a client that holds
 * a thousand slow connections made every other new one, /healthz included, a reset.
 *
 * At a cap a new connection first sheds one that costs a descriptor and serves no one
 * (src/http/shed-order.ts says which, and why in that order). When none can be, it is let in
 * on one of a few refusal slots past the cap: its request is read, so that closing cannot
 * reset it, and answered a JSON 503 with Retry-After and `Connection: close` (the probes an
 * orchestrator asks, /healthz, /readyz and /metrics, are answered as ever, then closed). Only
 * when those slots are full too, each holding a request being answered, is a connection closed
 * unanswered. Every listener of the process is counted (the admin one too): they share its
 * descriptors.
 */
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { HttpError } from './error.ts';
import type { FirstReads } from './first-read.ts';
import { takeNodeConnectionListener } from './stackless-close.ts';
import {
  capReached,
  pickShed,
  SHED_ORDER,
  shedReason,
  type Candidate,
  type Caps,
  type ShedReason,
} from './shed-order.ts';

export interface CapTimes {
  /** A connection younger than this, or quiet or stalled for less, is not shed (its request may be on the way). */
  graceMs: number;
  /** A connection let in to be refused that sends no request within this is closed. */
  refuseWaitMs: number;
}

export const CAP_TIMES: CapTimes = { graceMs: 1000, refuseWaitMs: 5000 };

/** Seconds a refused client is told to wait (Retry-After). */
const RETRY_AFTER_SECONDS = 1;

/** What /readyz and /metrics show. */
export interface ConnectionStats {
  open: number;
  cap: number;
  perClientCap: number;
  descriptorLimit: number;
  shed: Record<ShedReason, number>;
  /** New connections answered 503; closed unanswered (every refusal slot held a request being answered). */
  refused: { answered: number; closed: number };
}

/** A connection under the caps (requestBegan gives it, requestEnded takes it back). */
export interface Connection {
  socket: Socket;
  address: string;
  openedAt: number;
  requests: number;
  quietSince: number;
  /** bytesRead when it last became quiet: anything past it is a request partly received. */
  quietMark: number;
  written: number;
  unsentSince: number;
  /** Let in past a cap, to be answered 503. */
  refused: boolean;
}

/** The probes answered even on a refused connection: cheap, keyless, and what says the server lives. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

export class ConnectionCaps {
  private readonly open = new Map<Socket, Connection>();
  private readonly byAddress = new Map<string, number>();
  private refusing = 0;
  private readonly shed: Record<ShedReason, number> = { lingering: 0, idle: 0, slow_request: 0, stalled_reader: 0 };
  private readonly refused = { answered: 0, closed: 0 };

  constructor(
    readonly caps: Caps,
    readonly descriptorLimit: number,
    private readonly times: CapTimes = CAP_TIMES,
  ) {}

  /**
   * Put `server`'s connections under the caps. Called right after the server is made: node:http's
   * own connection listener is taken out and called only for connections let in, so one closed
   * at once never reaches its parser. `refuses`: false for a listener that cannot answer a
   * refusal itself (the admin one): there a connection past the caps is closed. `firstReads`:
   * what looks at a connection's first read before node:http does (src/http/first-read.ts).
   */
  gate(server: Server, refuses = true, firstReads?: FirstReads, requests: 'listened' | 'told' = 'listened'): void {
    const toNode = takeNodeConnectionListener(server);
    server.on('connection', (socket: Socket) => {
      if (!this.admit(socket, refuses)) return;
      if (firstReads) firstReads.take(socket, () => toNode(socket));
      else toNode(socket);
    });
    // `told`: the server tells of its requests itself (src/http/server.ts), which spares each
    // request a listener and a 'close' listener of its own.
    if (requests === 'listened')
      server.on('request', (req: IncomingMessage, res: ServerResponse) => this.watch(req, res));
  }

  /** Count a request on its connection until its answer closes. */
  watch(req: IncomingMessage, res: ServerResponse): void {
    const connection = this.requestBegan(req.socket);
    if (connection) res.on('close', () => this.requestEnded(connection));
  }

  /**
   * A request under way on `socket`: its connection, to give to requestEnded once the answer
   * closes; undefined for a connection not under the caps.
   */
  requestBegan(socket: Socket): Connection | undefined {
    const connection = this.open.get(socket);
    if (connection) connection.requests++;
    return connection;
  }

  requestEnded(connection: Connection): void {
    if (--connection.requests > 0) return;
    connection.quietSince = performance.now();
    connection.quietMark = connection.socket.bytesRead;
  }

  /**
   * The answer for `req` when its connection (requestBegan's) was let in only to be refused: a 503
   * (the probes excepted, which are answered and then close it). Null: answer it as ever.
   */
  refusal(connection: Connection | undefined, req: IncomingMessage, res: ServerResponse): HttpError | null {
    if (!connection?.refused) return null;
    const path = (req.url ?? '').split('?', 1)[0];
    if ((req.method === 'GET' || req.method === 'HEAD') && PROBES.has(path)) {
      res.shouldKeepAlive = false;
      return null;
    }
    this.refused.answered++;
    const { total, perClient } = this.caps;
    return new HttpError(503, 'Too many connections; try again shortly', {
      details: {
        open_connections: this.open.size,
        cap: total,
        per_client_cap: perClient,
        client_connections: this.byAddress.get(connection.address) ?? 0,
        retry_after_seconds: RETRY_AFTER_SECONDS,
      },
      headers: { 'Retry-After': RETRY_AFTER_SECONDS },
    });
  }

  stats(): ConnectionStats {
    return {
      open: this.open.size,
      cap: this.caps.total,
      perClientCap: this.caps.perClient,
      descriptorLimit: this.descriptorLimit,
      shed: { ...this.shed },
      refused: { ...this.refused },
    };
  }

  private admit(socket: Socket, refuses: boolean): boolean {
    const address = socket.remoteAddress ?? '';
    const reached = capReached(this.open.size, this.byAddress.get(address) ?? 0, address, this.caps);
    let refused = false;
    if (reached !== 'room' && !this.shedOne(reached === 'client' ? address : undefined)) {
      // Nothing to shed: a refusal slot, if one is free or can be freed.
      if (!refuses || (this.refusing >= this.caps.refusing && !this.evictRefused())) {
        this.refused.closed++;
        socket.destroy();
        return false;
      }
      refused = true;
    }
    this.add(socket, address, refused);
    return true;
  }

  private add(socket: Socket, address: string, refused: boolean): void {
    const now = performance.now();
    const connection: Connection = {
      socket,
      address,
      openedAt: now,
      requests: 0,
      quietSince: now,
      quietMark: 0,
      written: 0,
      unsentSince: now,
      refused,
    };
    this.open.set(socket, connection);
    this.byAddress.set(address, (this.byAddress.get(address) ?? 0) + 1);
    let wait: NodeJS.Timeout | undefined;
    if (refused) {
      this.refusing++;
      wait = setTimeout(() => {
        if (connection.requests === 0 && socket.bytesRead === 0) socket.destroy();
      }, this.times.refuseWaitMs);
      wait.unref();
    }
    socket.once('close', () => {
      clearTimeout(wait);
      this.remove(connection);
    });
  }

  /**
   * Out of the count at once, when shed or closed: a shed connection's descriptor is freed as it
   * closes, in this turn.
   */
  private remove(connection: Connection): void {
    if (this.open.get(connection.socket) !== connection) return;
    this.open.delete(connection.socket);
    const left = (this.byAddress.get(connection.address) ?? 1) - 1;
    if (left > 0) this.byAddress.set(connection.address, left);
    else this.byAddress.delete(connection.address);
    if (connection.refused) this.refusing--;
  }

  /** Close the connection shed-order picks (of `address` alone, when given); false when none may be. */
  private shedOne(address?: string): boolean {
    const now = performance.now();
    const candidates: Candidate[] = [];
    const connections: Connection[] = [];
    for (const connection of this.open.values()) {
      const { socket } = connection;
      if (connection.refused || (address !== undefined && connection.address !== address)) continue;
      if (socket.writableLength === 0 || socket.bytesWritten !== connection.written) {
        connection.written = socket.bytesWritten;
        connection.unsentSince = now;
      }
      const reason = shedReason(
        {
          address: connection.address,
          openedAt: connection.openedAt,
          closing: socket.writableEnded,
          requests: connection.requests,
          partial: socket.bytesRead > connection.quietMark,
          quietSince: connection.quietSince,
          unsent: socket.writableLength,
          unsentSince: connection.unsentSince,
        },
        now,
        this.times.graceMs,
      );
      if (reason === null) continue;
      candidates.push({
        reason,
        address: connection.address,
        since:
          reason === 'stalled_reader'
            ? connection.unsentSince
            : reason === 'lingering'
              ? connection.openedAt
              : connection.quietSince,
      });
      connections.push(connection);
    }
    const chosen = pickShed(candidates, (a) => this.byAddress.get(a) ?? 0, address);
    if (chosen === -1) return false;
    this.shed[candidates[chosen].reason]++;
    this.remove(connections[chosen]);
    connections[chosen].socket.destroy();
    return true;
  }

  /**
   * Free the refusal slot held longest by a connection with no request being answered: one
   * still sending its request (a newcomer's arrives within a moment; a slowloris's never), or
   * one closing after its 503. False when each slot holds a request being answered.
   */
  private evictRefused(): boolean {
    // Map order is arrival order: the first found is the oldest.
    for (const connection of this.open.values()) {
      if (!connection.refused || connection.requests > 0) continue;
      if (!connection.socket.writableEnded) this.refused.closed++;
      this.remove(connection);
      connection.socket.destroy();
      return true;
    }
    return false;
  }
}

export { SHED_ORDER };
