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
import type { Socket } from 'node:net';
import { openSocket, type RedisTls } from './connection.ts';
import { encodeCommand, RespError, RespParser, RespProtocolError, type Reply } from './resp.ts';

export interface RedisAddress {
  host: string;
  port: number;
  db: number;
  username: string | null;
  password: string | null;
  /** TLS (`rediss://`) and its files, or null for plain TCP (`redis://`). */
  tls: RedisTls | null;
  /** `host:port/db`, never the password: for messages and logs. */
  label: string;
}

/**
 * `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]`, or `rediss://...` for TLS (verified against the
 * system's roots unless `tls` gives a CA; see src/redis/connection.ts); throws Error saying what is wrong.
 */
export function parseRedisUrl(text: string, tls: RedisTls = { ca: null, cert: null, key: null }): RedisAddress {
  if (!URL.canParse(text)) throw new Error(`not a URL: ${JSON.stringify(text)}`);
  const url = new URL(text);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error(`a Redis URL starts with redis:// (or rediss:// for TLS), got ${JSON.stringify(url.protocol)}`);
  if (url.search || url.hash) throw new Error('a Redis URL takes no query or fragment');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new Error('a Redis URL needs a host');
  const port = url.port === '' ? 6379 : Number(url.port);
  const path = url.pathname.replace(/^\//, '');
  if (!/^\d{0,4}$/.test(path)) throw new Error(`the database is a number (redis://HOST:PORT/DB), got ${JSON.stringify(path)}`);
  const db = Number(path || '0');
  const password = url.password ? decodeURIComponent(url.password) : null;
  const username = url.username ? decodeURIComponent(url.username) : null;
  return { host, port, db, username, password, tls: url.protocol === 'rediss:' ? tls : null, label: `${host.includes(':') ? `[${host}]` : host}:${port}/${db}` };
}

/** The connection is down or a reply did not come in time: the command may or may not have run. */
export class RedisUnavailable extends Error {}
/** Redis answered the command with an error. */
export class RedisCommandError extends Error {}

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
  /** Told when the connection goes down or comes back (once per change, not per retry). */
  log?: (line: string) => void;
  /** Called each time a connection is ready for commands, the first and every reconnection: what a restarted Redis may have changed is checked again. */
  connected?: () => void;
}

interface Waiting {
  name: string;
  sentAt: number;
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
  /** An EVALSHA's command and script, sent as EVAL when Redis answers NOSCRIPT. */
  script?: { args: readonly (string | number)[]; source: string };
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
  /** Scripts loaded at every connection (load), by SHA. */
  private readonly scripts = new Map<string, LuaScript>();
  private endFirstAttempt: () => void = () => {};

  constructor(private readonly options: RedisClientOptions) {
    this.timeoutMs = options.commandTimeoutMs ?? 2000;
    this.backoff = options.backoffMs ?? { first: 50, max: 1000 };
    this.retryMs = this.backoff.first;
    this.firstAttempt = new Promise((resolve) => (this.endFirstAttempt = resolve));
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
    if (!this.ready || !this.socket) return this.refuse(name);
    return this.enqueue(this.socket, name, args);
  }

  private refuse(name: string): Promise<never> {
    return Promise.reject(new RedisUnavailable(`redis ${name}: ${this.problem() ?? 'not connected'}`));
  }

  /**
   * Have Redis know this script from now on: loaded now when connected, and again on every
   * reconnection, so requests call it by its SHA and never meet NOSCRIPT on the way (a NOSCRIPT
   * all the same, after a SCRIPT FLUSH, is answered by `eval`).
   */
  load(script: LuaScript): void {
    if (this.scripts.has(script.sha)) return;
    this.scripts.set(script.sha, script);
    if (this.ready && this.socket) this.enqueue(this.socket, 'SCRIPT', ['SCRIPT', 'LOAD', script.source]).catch(() => {});
  }

  /**
   * Run a script: EVALSHA, and EVAL once when Redis does not know it (a restart or SCRIPT FLUSH
   * emptied its cache), in the reply's place so the caller waits on one promise.
   */
  eval(script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<Reply> {
    if (!this.ready || !this.socket) return this.refuse('EVALSHA');
    const command = ['EVALSHA', script.sha, keys.length, ...keys, ...args];
    return this.enqueue(this.socket, 'EVALSHA', command, { args: command, source: script.source });
  }

  /** Close the connection and stop reconnecting; waiting commands fail. */
  close(): void {
    this.closed = true;
    clearInterval(this.watchdog);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.drop('client closed');
    this.endFirstAttempt();
  }

  private enqueue(socket: Socket, name: string, args: readonly (string | number)[], script?: Waiting['script']): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => this.write(socket, { name, sentAt: performance.now(), resolve, reject, script }, args));
  }

  private write(socket: Socket, waiting: Waiting, args: readonly (string | number)[]): void {
    this.waiting.push(waiting);
    // The commands of one event-loop iteration (every request read in its poll phase) leave in
    // one write: a write a command cost a system call each, the most of a request's time on
    // Redis in a profile (writeUtf8String 19% of the server's CPU, the list page at c=16).
    if (!this.corked) {
      this.corked = true;
      socket.cork();
      setImmediate(() => {
        this.corked = false;
        socket.uncork();
      });
    }
    socket.write(encodeCommand(args));
  }

  private connect(): void {
    this.retryTimer = null;
    if (this.closed) return;
    const { host, port, tls } = this.options.address;
    const socket = openSocket({ host, port }, tls, this.timeoutMs, {
      ready: () => void this.handshake(socket),
      down: (reason) => this.down(socket, reason),
    });
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      try {
        this.parser.push(chunk);
      } catch (error) {
        if (!(error instanceof RespProtocolError)) throw error;
        socket.destroy(error);
      }
    });
  }

  /** Log in and choose the database before anyone else may send. */
  private async handshake(socket: Socket): Promise<void> {
    const { db, username, password } = this.options.address;
    const steps: (string | number)[][] = [];
    if (password !== null) steps.push(username === null ? ['AUTH', password] : ['AUTH', username, password]);
    if (db !== 0) steps.push(['SELECT', db]);
    steps.push(['PING']);
    const handshake = Promise.all(steps.map((step) => this.enqueue(socket, String(step[0]), step)));
    // Behind the handshake, before any command that may call them. One that cannot be loaded (an
    // ACL without SCRIPT) is sent in full by `eval` instead.
    for (const script of this.scripts.values()) this.enqueue(socket, 'SCRIPT', ['SCRIPT', 'LOAD', script.source]).catch(() => {});
    try {
      await handshake;
    } catch (error) {
      socket.destroy(error as Error);
      return;
    }
    if (socket !== this.socket) return;
    this.ready = true;
    this.failure = null;
    this.retryMs = this.backoff.first;
    if (this.loggedFailure !== null) this.options.log?.(`redis: connected to ${this.options.address.label} again`);
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
    this.endFirstAttempt();
    if (this.closed) return;
    if (this.loggedFailure !== reason) {
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
    if (!(reply instanceof RespError)) w.resolve(reply);
    else if (w.script && reply.message.startsWith('NOSCRIPT') && this.socket) this.write(this.socket, { ...w, name: 'EVAL', sentAt: performance.now(), script: undefined }, ['EVAL', w.script.source, ...w.script.args.slice(2)]);
    else w.reject(new RedisCommandError(`redis ${w.name}: ${reply.message}`));
  }

  private checkDeadline(): void {
    const oldest = this.waiting[this.head];
    if (oldest && performance.now() - oldest.sentAt > this.timeoutMs) this.drop(`${oldest.name} got no reply within ${this.timeoutMs} ms`);
  }
}
