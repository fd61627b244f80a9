/**
 * One sentinel's events, as they happen: a connection that stays subscribed to the channels a
 * failover is announced on (src/redis/sentinel-verdict.ts lists them), logged in first when the
 * sentinel asks for credentials, and opened again after a pause whenever it ends. Only the events
 * about the monitored primary are passed on. The events are the quick path; the questions
 * src/redis/sentinel-watch.ts asks at every probe are the sure one, so a lost subscription
 * delays what the servers learn by at most a probe, and is nobody's condition.
 */
import type { Socket } from 'node:net';
import type { Endpoint, SentinelAuth } from './address.ts';
import { openSocket, readReplies, type RedisTls } from './connection.ts';
import { Reconnection } from './reconnection.ts';
import { encodeCommand, RespParser, type Reply } from './resp.ts';
import { authCommand } from './sentinel-ask.ts';
import { CHANGE_EVENTS, DECIDING_EVENTS, eventMaster } from './sentinel-verdict.ts';

export interface SentinelEventsOptions {
  node: Endpoint;
  tls: RedisTls | null;
  auth: SentinelAuth | null;
  masterName: string;
  /** Connecting (and the TLS handshake) may take this long. */
  timeoutMs: number;
  /** An event about the monitored primary: its channel (`+switch-master`) and payload. */
  heard: (channel: string, payload: string) => void;
}

export class SentinelEvents {
  private socket: Socket | null = null;
  private closed = false;
  // Unlogged: the questions at every probe report a sentinel that cannot be reached.
  private readonly reconnection = new Reconnection({ first: 100, max: 2000 }, '');

  constructor(private readonly options: SentinelEventsOptions) {
    this.connect();
  }

  close(): void {
    this.closed = true;
    this.reconnection.stop();
    this.socket?.destroy();
    this.socket = null;
  }

  private connect(): void {
    if (this.closed) return;
    const { node, tls, auth, timeoutMs } = this.options;
    const parser = new RespParser((reply) => this.received(socket, reply));
    const socket = openSocket(node, tls, timeoutMs, {
      ready: () => {
        const login = auth ? encodeCommand(authCommand(auth)) : '';
        socket.write(login + encodeCommand(['SUBSCRIBE', ...DECIDING_EVENTS, ...CHANGE_EVENTS]));
      },
      down: (reason) => this.down(socket, reason),
    });
    this.socket = socket;
    readReplies(socket, parser);
  }

  /** A reply on the subscribed connection: the login's, a subscription's, or an event. */
  private received(socket: Socket, reply: Reply): void {
    if (!Array.isArray(reply)) {
      // The login's +OK; anything else (a refused login) ends the connection, to be tried again.
      if (reply !== 'OK')
        socket.destroy(new Error(`refused: ${String((reply as { message?: string })?.message ?? reply)}`));
      return;
    }
    if (reply[0] === 'subscribe') {
      this.reconnection.succeeded('');
      return;
    }
    const [kind, channel, payload] = reply;
    if (kind !== 'message' || typeof channel !== 'string' || typeof payload !== 'string') return;
    if (eventMaster(channel, payload) === this.options.masterName) this.options.heard(channel, payload);
  }

  private down(socket: Socket, reason: string): void {
    if (socket !== this.socket) return;
    this.socket = null;
    socket.destroy();
    if (!this.closed) this.reconnection.failed(reason, () => this.connect());
  }
}
