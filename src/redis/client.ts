/**
 * A small Redis client over node:net, for the state several servers share (src/keys/redis.ts, src/quota/redis.ts).
 * Only what this server needs: commands pipelined on one connection (replies come back in
 * order, so one FIFO of waiting callers suffices), Lua scripts by SHA, reconnection with
 * backoff, and a deadline per command.
 *
 * It fails fast rather than queueing: while the connection is down every command is refused at
 * once, so a request is answered 503 at once instead of piling up behind a dead Redis. A
 * command that got no reply in time takes the connection down with it: a later reply could
 * not be told apart from the next command's, and a Redis that stopped answering is not one
 * to keep sending to.
 */
import { createHash } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { encodeCommand, RespError, RespParser, RespProtocolError, type Reply } from './resp.ts';
import { SentinelResolver, type Endpoint, type SentinelTarget } from './sentinel.ts';

export interface RedisAddress {
  host: string;
  port: number;
  db: number;
  username: string | null;
  password: string | null;
  /** `host:port/db`, never the password: for messages and logs. */
  label: string;
  /** Set for `redis-sentinel://`: the primary is asked of these sentinels at each connection (host and port are unused). */
  sentinel?: SentinelTarget;
}

/** `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]`; throws Error saying what is wrong. */
export function parseRedisUrl(text: string): RedisAddress {
  if (!URL.canParse(text)) throw new Error(`not a URL: ${JSON.stringify(text)}`);
  const url = new URL(text);
  if (url.protocol !== 'redis:') throw new Error(`a Redis URL starts with redis://, got ${JSON.stringify(url.protocol)}`);
  if (url.search || url.hash) throw new Error('a Redis URL takes no query or fragment');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new Error('a Redis URL needs a host');
  const port = url.port === '' ? 6379 : Number(url.port);
  const path = url.pathname.replace(/^\//, '');
  if (!/^\d{0,4}$/.test(path)) throw new Error(`the database is a number (redis://HOST:PORT/DB), got ${JSON.stringify(path)}`);
  const db = Number(path || '0');
  const password = url.password ? decodeURIComponent(url.password) : null;
  const username = url.username ? decodeURIComponent(url.username) : null;
  return { host, port, db, username, password, label: `${host.includes(':') ? `[${host}]` : host}:${port}/${db}` };
}

/** The connection is down or a reply did not come in time: the command may or may not have run. */
export class RedisUnavailable extends Error {}
/** Redis answered the command with an error. */
export class RedisCommandError extends Error {}
/**
 * Fewer replicas than asked acknowledged a write in time (WAIT): it ran on the primary but may
 * be lost in a failover. Worded with Redis's own code for this (NOREPLICAS), so the refusal
 * watch (src/redis/refusals.ts) reports it as it reports `min-replicas-to-write`.
 */
export class RedisNotReplicated extends RedisCommandError {}

/** A replica's refusal to write, as Redis words it (in a script: `... -READONLY You can't write ...`). */
const READONLY = /(?:^|\W)-?READONLY\b/;

/** How many replicas must acknowledge each write that counts (WAIT), and how long it may wait for them. */
export interface ReplicaConfirmation {
  count: number;
  timeoutMs: number;
}

/** A Lua script, sent by its SHA-1 and in full only when Redis does not know it yet. */
export class LuaScript {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }
}

export interface RedisClientOptions {
  address: RedisAddress;
  /** A command unanswered this long fails and takes the connection down (default 2000 ms). */
  commandTimeoutMs?: number;
  /** Reconnection: the first wait, doubled after each failure up to the last (default 50 to 1000 ms). */
  backoffMs?: { first: number; max: number };
  /** Told when the connection goes down or comes back (once per outage, not per retry). */
  log?: (line: string) => void;
  /** Called each time a connection is ready for commands, the first and every reconnection: what a restarted Redis may have changed is checked again. */
  connected?: () => void;
  /**
   * Where to connect, asked at every connection attempt (default: the address's host and port,
   * or its sentinels' current primary for `redis-sentinel://`). A rejection is a failed attempt.
   */
  resolve?: () => Promise<Endpoint>;
  /**
   * Writes that count (sendReplicated, evalReplicated) are followed in the same write by
   * `WAIT count timeoutMs`, and fail with RedisNotReplicated unless `count` replicas acknowledged
   * them (default count 0: no WAIT).
   */
  replicas?: ReplicaConfirmation;
}

interface Waiting {
  name: string;
  sentAt: number;
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
}

export class RedisClient {
  private socket: Socket | null = null;
  private ready = false;
  private closed = false;
  private waiting: Waiting[] = [];
  private head = 0;
  private corked = false;
  private failure: string | null = 'not connected yet';
  private loggedFailure: string | null = null;
  private retryMs: number;
  private retryTimer: NodeJS.Timeout | null = null;
  private readonly watchdog: NodeJS.Timeout;
  private readonly parser = new RespParser((reply) => this.settle(reply));
  private readonly timeoutMs: number;
  private readonly backoff: { first: number; max: number };
  private firstAttempt: Promise<void>;
  private endFirstAttempt: () => void = () => {};
  private readonly resolve: () => Promise<Endpoint>;
  /** Following a sentinel's primary: the handshake checks ROLE, and READONLY means it was demoted. */
  private readonly followsSentinel: boolean;
  /** Where the current (or last) connection went, for messages. */
  private endpoint = '';
  private readonly replicas: ReplicaConfirmation;
  /** The WAIT that follows this turn's writes, shared by every write of the turn (one WAIT a write, not one a request). */
  private turnWait: { promise: Promise<number>; resolve: (n: number) => void; reject: (e: Error) => void } | null = null;

  constructor(private readonly options: RedisClientOptions) {
    this.timeoutMs = options.commandTimeoutMs ?? 2000;
    this.backoff = options.backoffMs ?? { first: 50, max: 1000 };
    this.retryMs = this.backoff.first;
    this.firstAttempt = new Promise((resolve) => (this.endFirstAttempt = resolve));
    const { address } = options;
    this.followsSentinel = address.sentinel !== undefined;
    this.replicas = options.replicas ?? { count: 0, timeoutMs: 0 };
    if (options.resolve) this.resolve = options.resolve;
    else if (address.sentinel) {
      const sentinels = new SentinelResolver(address.sentinel, this.timeoutMs);
      this.resolve = () => sentinels.primary();
    } else this.resolve = () => Promise.resolve({ host: address.host, port: address.port });
    // One timer for all commands: replies come in order, so only the oldest can be late first.
    this.watchdog = setInterval(() => this.checkDeadline(), Math.max(10, Math.floor(this.timeoutMs / 4)));
    this.watchdog.unref();
    this.connect();
  }

  get address(): RedisAddress {
    return this.options.address;
  }

  /** Settles once the first connection attempt has succeeded or failed (it never rejects). */
  started(): Promise<void> {
    return this.firstAttempt;
  }

  /** Why commands are refused right now, or null when connected. */
  problem(): string | null {
    return this.ready ? null : `Redis at ${this.options.address.label} is unreachable: ${this.failure}`;
  }

  /** Send one command; the reply, or RedisUnavailable / RedisCommandError naming the command. */
  send(args: readonly (string | number)[]): Promise<Reply> {
    const name = String(args[0]).toUpperCase();
    if (!this.ready || !this.socket) return Promise.reject(new RedisUnavailable(`redis ${name}: ${this.problem() ?? 'not connected'}`));
    return this.enqueue(this.socket, name, args);
  }

  /** Run a script: EVALSHA, and EVAL once when Redis does not know it (a restart emptied its cache). */
  async eval(script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<Reply> {
    try {
      return await this.send(['EVALSHA', script.sha, keys.length, ...keys, ...args]);
    } catch (error) {
      if (!(error instanceof RedisCommandError && error.message.includes('NOSCRIPT'))) throw error;
      return this.send(['EVAL', script.source, keys.length, ...keys, ...args]);
    }
  }

  /** A write that counts: with `replicas`, answered only once that many replicas have it (see evalReplicated). */
  sendReplicated(args: readonly (string | number)[]): Promise<Reply> {
    return this.replicated(() => this.send(args));
  }

  /**
   * A script that counts: with `replicas`, `WAIT` follows it in the same write (one round trip
   * of latency, not two), and the reply is given only when enough replicas acknowledged;
   * RedisNotReplicated otherwise. WAIT waits for everything this connection wrote before it, so
   * one WAIT at the end of a turn's write confirms every script in it.
   */
  async evalReplicated(script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<Reply> {
    try {
      return await this.replicated(() => this.send(['EVALSHA', script.sha, keys.length, ...keys, ...args]));
    } catch (error) {
      if (!(error instanceof RedisCommandError && error.message.includes('NOSCRIPT'))) throw error;
      return this.replicated(() => this.send(['EVAL', script.source, keys.length, ...keys, ...args]));
    }
  }

  private async replicated(send: () => Promise<Reply>): Promise<Reply> {
    const { count, timeoutMs } = this.replicas;
    if (count === 0) return send();
    const [reply, acknowledged] = await Promise.allSettled([send(), this.waitAfterTurn()]);
    if (reply.status === 'rejected') throw reply.reason;
    if (acknowledged.status === 'rejected') throw acknowledged.reason;
    if (acknowledged.value < count) {
      throw new RedisNotReplicated(`redis WAIT: NOREPLICAS the count could not be confirmed on ${count} replica${count === 1 ? '' : 's'} (${acknowledged.value} acknowledged within ${timeoutMs} ms)`);
    }
    return reply.value;
  }

  /** How many replicas acknowledged this turn's writes: the WAIT written after them (see enqueue). */
  private waitAfterTurn(): Promise<number> {
    if (!this.ready || !this.socket || !this.corked) return Promise.reject(new RedisUnavailable(`redis WAIT: ${this.problem() ?? 'not connected'}`));
    if (!this.turnWait) {
      let resolve: (n: number) => void = () => {};
      let reject: (e: Error) => void = () => {};
      const promise = new Promise<number>((yes, no) => ((resolve = yes), (reject = no)));
      this.turnWait = { promise, resolve, reject };
    }
    return this.turnWait.promise;
  }

  /** Drop the connection and find the primary again (the health probe saw it demoted). */
  reconnect(reason: string): void {
    this.drop(reason);
  }

  /** Close the connection and stop reconnecting; waiting commands fail. */
  close(): void {
    this.closed = true;
    clearInterval(this.watchdog);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.drop('client closed');
    this.endFirstAttempt();
  }

  private enqueue(socket: Socket, name: string, args: readonly (string | number)[]): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      this.waiting.push({ name, sentAt: performance.now(), resolve, reject });
      // Commands of one event-loop turn leave in one write.
      if (!this.corked) {
        this.corked = true;
        socket.cork();
        process.nextTick(() => {
          this.writeTurnWait(socket);
          this.corked = false;
          socket.uncork();
        });
      }
      socket.write(encodeCommand(args));
    });
  }

  /** The turn's WAIT, last in its write, when a write that counts asked for one. */
  private writeTurnWait(socket: Socket): void {
    const turn = this.turnWait;
    if (!turn) return;
    this.turnWait = null;
    if (socket !== this.socket) return turn.reject(new RedisUnavailable(`redis WAIT: ${this.problem() ?? 'connection lost'}`));
    const { count, timeoutMs } = this.replicas;
    this.waiting.push({ name: 'WAIT', sentAt: performance.now(), resolve: (n) => turn.resolve(Number(n)), reject: turn.reject });
    socket.write(encodeCommand(['WAIT', count, timeoutMs]));
  }

  private connect(): void {
    this.retryTimer = null;
    if (this.closed) return;
    this.resolve().then(
      (endpoint) => this.open(endpoint),
      (error: Error) => this.retryLater(error.message),
    );
  }

  private open({ host, port }: Endpoint): void {
    if (this.closed) return;
    this.endpoint = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const socket = connect({ host, port });
    this.socket = socket;
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 10_000);
    // A connect that hangs (a dropped SYN) counts as a failed attempt.
    socket.setTimeout(this.timeoutMs, () => socket.destroy(new Error(`connect timed out after ${this.timeoutMs} ms`)));
    socket.on('data', (chunk: Buffer) => {
      try {
        this.parser.push(chunk);
      } catch (error) {
        if (!(error instanceof RespProtocolError)) throw error;
        socket.destroy(error);
      }
    });
    socket.on('error', (error) => this.down(socket, error.message));
    socket.on('close', () => this.down(socket, 'connection closed'));
    socket.once('connect', () => {
      socket.setTimeout(0);
      void this.handshake(socket);
    });
  }

  /** Log in and choose the database before anyone else may send. */
  private async handshake(socket: Socket): Promise<void> {
    const { db, username, password } = this.options.address;
    const steps: (string | number)[][] = [];
    if (password !== null) steps.push(username === null ? ['AUTH', password] : ['AUTH', username, password]);
    if (db !== 0) steps.push(['SELECT', db]);
    // A sentinel's answer may be stale (a failover under way, a primary since demoted).
    steps.push(this.followsSentinel ? ['ROLE'] : ['PING']);
    try {
      const replies = await Promise.all(steps.map((step) => this.enqueue(socket, String(step[0]), step)));
      const role = replies.at(-1);
      if (this.followsSentinel && !(Array.isArray(role) && role[0] === 'master')) {
        throw new Error(`${this.endpoint}, named by the sentinels, is not the primary (ROLE ${Array.isArray(role) ? role[0] : role}); asking them again`);
      }
    } catch (error) {
      socket.destroy(error as Error);
      return;
    }
    if (socket !== this.socket) return;
    this.ready = true;
    this.failure = null;
    this.retryMs = this.backoff.first;
    const where = this.followsSentinel ? `${this.options.address.label} (primary ${this.endpoint})` : this.options.address.label;
    if (this.loggedFailure !== null) this.options.log?.(`redis: connected to ${where} again`);
    this.loggedFailure = null;
    this.endFirstAttempt();
    this.options.connected?.();
  }

  /** The connection ended (error, close, timeout): fail what waits, try again after a pause. */
  private down(socket: Socket, reason: string): void {
    if (socket !== this.socket) return;
    this.socket = null;
    this.ready = false;
    this.failure = reason;
    this.failWaiting(reason);
    this.parser.reset();
    socket.destroy();
    this.retryLater(reason);
  }

  /**
   * A connection ended or could not be made: try again after a pause. Logged once an outage, not
   * once a reason: a failover goes through several (the connection reset, the old primary
   * refusing, the sentinels naming no primary yet); /readyz tells the current one.
   */
  private retryLater(reason: string): void {
    this.failure = reason;
    this.endFirstAttempt();
    if (this.closed) return;
    if (this.loggedFailure === null) {
      this.loggedFailure = reason;
      this.options.log?.(`redis: ${this.options.address.label} unreachable (${reason}); retrying, answering 503 meanwhile`);
    }
    this.retryTimer = setTimeout(() => this.connect(), this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.backoff.max, this.retryMs * 2);
  }

  private drop(reason: string): void {
    if (this.socket) this.down(this.socket, reason);
  }

  private failWaiting(reason: string): void {
    const waiting = this.waiting.slice(this.head);
    this.waiting = [];
    this.head = 0;
    for (const w of waiting) w.reject(new RedisUnavailable(`redis ${w.name}: ${reason} (the command may or may not have run)`));
  }

  private settle(reply: Reply): void {
    const w = this.waiting[this.head];
    if (!w) {
      this.drop('a reply came that no command asked for');
      return;
    }
    this.waiting[this.head++] = undefined as unknown as Waiting;
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    if (reply instanceof RespError && this.followsSentinel && READONLY.test(reply.message)) {
      // The primary was demoted (it came back as a replica after a failover): find the new one.
      const reason = `${this.endpoint} is a read-only replica now, no longer the primary; asking the sentinels again`;
      w.reject(new RedisUnavailable(`redis ${w.name}: ${reason} (the command did not run)`));
      this.drop(reason);
    } else if (reply instanceof RespError) w.reject(new RedisCommandError(`redis ${w.name}: ${reply.message}`));
    else w.resolve(reply);
  }

  private checkDeadline(): void {
    const oldest = this.waiting[this.head];
    if (oldest && performance.now() - oldest.sentAt > this.timeoutMs) this.drop(`${oldest.name} got no reply within ${this.timeoutMs} ms`);
  }
}
