/**
 * A small Redis client, for the state several servers share (src/keys/redis-keys.ts, src/quota/redis-quota.ts).
 * Only what this server needs: commands pipelined on one connection (replies come back in
 * order, so one FIFO of waiting callers suffices), Lua scripts by SHA, reconnection with
 * backoff, a deadline per command, TLS (src/redis/connection.ts), the primary a majority of
 * sentinels names, followed as it changes (src/redis/sentinel-watch.ts), and writes confirmed
 * on replicas (WAIT). What travels on the connection, written and waited for, is
 * src/redis/pipeline.ts.
 *
 * It fails fast rather than queueing: while the connection is down every command is refused at
 * once, so a request is answered 503 at once instead of piling up behind a dead Redis. A
 * command that got no reply in time takes the connection down with it: a later reply could
 * not be told apart from the next command's, and a Redis that stopped answering is not one
 * to keep sending to.
 */
import { performance } from 'node:perf_hooks';
import type { Socket } from 'node:net';
import { afterIo } from '../lib/after-io.ts';
import { endpointLabel, type Endpoint, type RedisAddress } from './address.ts';
import { openSocket, readReplies } from './connection.ts';
import { Pipeline } from './pipeline.ts';
import { RespError, RespParser, type Reply } from './resp.ts';
import { RedisCommandError, RedisUnavailable } from './errors.ts';
import { handshakeCommands, handshakeRefusal, primarySource } from './handshake.ts';
import { Attempts } from './attempts.ts';
import { LuaScript } from './script.ts';
import { Waiting } from './waiting.ts';
import type { RedisClientOptions } from './client-options.ts';

export { parseRedisUrl, type RedisAddress } from './address.ts';
export { RedisCommandError, RedisUnavailable } from './errors.ts';
export { RedisNotReplicated, type ReplicaConfirmation } from './waiting.ts';
export { LuaScript } from './script.ts';
export type { RedisClientOptions } from './client-options.ts';

/** A replica's refusal to write, as Redis words it (in a script: `... -READONLY You can't write ...`). */
const READONLY = /(?:^|\W)-?READONLY\b/;

export class RedisClient {
  private socket: Socket | null = null;
  private ready = false;
  private closed = false;
  /** The commands under way on the connection. */
  private readonly pipeline: Pipeline;
  /** Where and when it connects, and why commands are refused meanwhile. */
  private readonly attempts: Attempts;
  private readonly watchdog: NodeJS.Timeout;
  private readonly parser = new RespParser((reply) => this.settle(reply));
  private readonly timeoutMs: number;
  /** Scripts loaded at every connection (load), by SHA. */
  private readonly scripts = new Map<string, LuaScript>();
  /** Where the current (or last) connection went, for messages. */
  private endpoint = '';

  constructor(private readonly options: RedisClientOptions) {
    this.timeoutMs = options.commandTimeoutMs ?? 2000;
    this.pipeline = new Pipeline(options.replicas ?? { count: 0, timeoutMs: 0 });
    const connector = {
      open: (endpoint: Endpoint) => this.open(endpoint),
      current: () => (this.socket ? this.endpoint : null),
      leave: (reason: string) => this.drop(reason),
    };
    const primary = options.primary ?? primarySource(options.address, this.timeoutMs);
    this.attempts = new Attempts(
      primary,
      connector,
      options.backoffMs ?? { first: 50, max: 1000 },
      options.address.label,
      options.log,
    );
    // One timer for all commands: replies come in order, so only the oldest can be late first.
    this.watchdog = setInterval(
      () => afterIo(() => this.checkDeadline()),
      Math.max(10, Math.floor(this.timeoutMs / 4)),
    );
    this.watchdog.unref();
    this.attempts.attempt();
  }

  get address(): RedisAddress {
    return this.options.address;
  }

  /** Settles once the first connection attempt has succeeded or failed (it never rejects). */
  started(): Promise<void> {
    return this.attempts.started();
  }

  /** Why commands are refused right now, or null when connected. */
  problem(): string | null {
    return this.ready ? null : this.attempts.problem();
  }

  /** Send one command; the reply, or RedisUnavailable / RedisCommandError naming the command. */
  send(args: readonly (string | number)[]): Promise<Reply> {
    return this.sendCommand(args, false);
  }

  /** A write that counts: with `replicas`, answered only once that many replicas have it (see evalReplicated). */
  sendReplicated(args: readonly (string | number)[]): Promise<Reply> {
    return this.sendCommand(args, true);
  }

  /**
   * Have Redis know this script from now on: loaded now when connected, and again on every
   * reconnection, so requests call it by its SHA and never meet NOSCRIPT on the way (a NOSCRIPT
   * all the same, after a SCRIPT FLUSH, is answered by `eval`).
   */
  load(script: LuaScript): void {
    if (this.scripts.has(script.sha)) return;
    this.scripts.set(script.sha, script);
    if (this.ready && this.socket) this.loadScript(this.socket, script);
  }

  /**
   * Run a script: EVALSHA, and EVAL once when Redis does not know it (a restart or SCRIPT FLUSH
   * emptied its cache), in the reply's place so the caller waits on one promise.
   */
  eval(script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<Reply> {
    return this.evalScript(script, keys, args, false);
  }

  /**
   * A script that counts: with `replicas`, `WAIT` ends the write it leaves in (one round trip
   * of latency, not two) and the reply is given only when enough replicas acknowledged;
   * RedisNotReplicated otherwise. WAIT waits for everything this connection wrote before it, so
   * one WAIT a write confirms every script in it: one replica round trip a write, not one queued
   * behind another per request.
   */
  evalReplicated(script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<Reply> {
    return this.evalScript(script, keys, args, true);
  }

  /**
   * Run `assemble` just before this iteration's commands leave, so what it sends rides in their
   * write (see Pipeline.beforeWrite). It runs at once when not connected: its commands are then
   * refused as any would be.
   */
  beforeWrite(assemble: () => void): void {
    if (this.ready && this.socket) this.pipeline.beforeWrite(this.socket, assemble);
    else assemble();
  }

  /** Drop the connection and find the primary again (the health probe saw it demoted). */
  reconnect(reason: string): void {
    this.drop(reason);
  }

  /** Close the connection and stop reconnecting; waiting commands fail. */
  close(): void {
    this.closed = true;
    clearInterval(this.watchdog);
    this.attempts.close();
    this.drop('client closed');
  }

  private sendCommand(args: readonly (string | number)[], replicated: boolean): Promise<Reply> {
    const name = String(args[0]).toUpperCase();
    if (!this.ready || !this.socket) return this.refuse(name);
    return this.enqueue(this.socket, name, args, undefined, replicated);
  }

  private refuse(name: string): Promise<never> {
    return Promise.reject(new RedisUnavailable(`redis ${name}: ${this.problem() ?? 'not connected'}`));
  }

  private evalScript(
    script: LuaScript,
    keys: readonly string[],
    args: readonly (string | number)[],
    replicated: boolean,
  ): Promise<Reply> {
    if (!this.ready || !this.socket) return this.refuse('EVALSHA');
    const command = ['EVALSHA', script.sha, keys.length, ...keys, ...args];
    return this.enqueue(this.socket, 'EVALSHA', command, { args: command, source: script.source }, replicated);
  }

  /** A script that cannot be loaded (an ACL without SCRIPT) is sent in full by `eval` instead. */
  private loadScript(socket: Socket, script: LuaScript): void {
    this.enqueue(socket, 'SCRIPT', ['SCRIPT', 'LOAD', script.source]).catch(() => {});
  }

  private enqueue(
    socket: Socket,
    name: string,
    args: readonly (string | number)[],
    script?: Waiting['script'],
    replicated?: boolean,
  ): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) =>
      this.pipeline.write(socket, new Waiting(name, resolve, reject, script, replicated), args),
    );
  }

  private open(endpoint: Endpoint): void {
    if (this.closed || this.socket) return;
    this.endpoint = endpointLabel(endpoint);
    const socket = openSocket(endpoint, this.options.address.tls, this.timeoutMs, {
      ready: () => void this.handshake(socket),
      down: (reason) => this.down(socket, reason),
    });
    this.socket = socket;
    readReplies(socket, this.parser);
  }

  /** Log in and choose the database before anyone else may send; with Sentinel, check it is the primary. */
  private async handshake(socket: Socket): Promise<void> {
    const { address } = this.options;
    const handshake = Promise.all(
      handshakeCommands(address).map((step) => this.enqueue(socket, String(step[0]), step)),
    );
    // Behind the handshake, before any command that may call them.
    for (const script of this.scripts.values()) this.loadScript(socket, script);
    try {
      const refusal = handshakeRefusal(address, (await handshake).at(-1), this.endpoint);
      if (refusal) throw new Error(refusal);
    } catch (error) {
      socket.destroy(error as Error);
      return;
    }
    if (socket !== this.socket) return;
    this.ready = true;
    this.attempts.succeeded(address.sentinel ? `${address.label} (primary ${this.endpoint})` : address.label);
    this.options.connected?.();
  }

  /** The connection ended (error, close, timeout): fail what waits, try again after a pause. */
  private down(socket: Socket, reason: string): void {
    if (socket !== this.socket) return;
    this.socket = null;
    this.ready = false;
    this.pipeline.fail(reason);
    this.parser.reset();
    socket.destroy();
    this.attempts.failed(reason);
  }

  private drop(reason: string): void {
    if (this.socket) this.down(this.socket, reason);
  }

  private settle(reply: Reply): void {
    const w = this.pipeline.next();
    if (!w) {
      this.drop('a reply came that no command asked for');
      return;
    }
    if (!(reply instanceof RespError)) {
      // A replicated command's reply waits for its write's WAIT (writeWait), which comes next.
      if (this.pipeline.holds(w)) w.reply = reply;
      else w.resolve(reply);
    } else if (this.options.address.sentinel && READONLY.test(reply.message)) {
      // A sentinel's primary that answers READONLY was demoted (it came back as a replica after a
      // failover): find the new one.
      const reason = `${this.endpoint} is a read-only replica now, no longer the primary; asking the sentinels again`;
      w.reject(new RedisUnavailable(`redis ${w.name}: ${reason} (the command did not run)`));
      this.drop(reason);
    } else if (w.script && reply.message.startsWith('NOSCRIPT') && this.socket) {
      this.pipeline.write(this.socket, new Waiting('EVAL', w.resolve, w.reject, undefined, w.replicated), [
        'EVAL',
        w.script.source,
        ...w.script.args.slice(2),
      ]);
    } else w.reject(new RedisCommandError(`redis ${w.name}: ${reply.message}`));
  }

  private checkDeadline(): void {
    const oldest = this.pipeline.oldest();
    if (oldest && performance.now() - oldest.sentAt > this.timeoutMs)
      this.drop(`${oldest.name} got no reply within ${this.timeoutMs} ms`);
  }
}
