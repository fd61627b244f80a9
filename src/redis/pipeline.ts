/**
 * The commands under way on one connection: written in one write an event-loop iteration (the
 * WAIT that confirms its replicated commands at the write's end), and waited for in order,
 * since Redis replies in order. The connection's life (connect, handshake, reconnect) is the
 * client's (client.ts); this is what travels on it.
 */
import { performance } from 'node:perf_hooks';
import type { Socket } from 'node:net';
import { RedisUnavailable } from './errors.ts';
import { encodeCommand } from './resp.ts';
import { ReplicaWait, WaitingQueue, type ReplicaConfirmation, type Waiting } from './waiting.ts';

export class Pipeline {
  private readonly waiting = new WaitingQueue();
  private readonly replicaWait: ReplicaWait;
  private corked = false;
  /** What beforeWrite was given for the write under way. */
  private assembling: (() => void)[] = [];
  /** The commands of the write under way: their deadline runs from when the write leaves. */
  private unsent: Waiting[] = [];

  constructor(replicas: ReplicaConfirmation) {
    this.replicaWait = new ReplicaWait(replicas);
  }

  write(socket: Socket, waiting: Waiting, args: readonly (string | number)[]): void {
    this.waiting.push(waiting);
    this.unsent.push(waiting);
    this.replicaWait.written(waiting);
    this.holdUntilImmediate(socket);
    socket.write(encodeCommand(args));
  }

  /**
   * Run `assemble` as this iteration's write leaves, before it: the commands it sends (a batch
   * made of the iteration's requests, src/quota/redis-takes.ts) ride in that write. It runs
   * whatever happens to the connection meanwhile, so what it waits for always settles.
   */
  beforeWrite(socket: Socket, assemble: () => void): void {
    this.assembling.push(assemble);
    this.holdUntilImmediate(socket);
  }

  /**
   * The commands of one event-loop iteration (every request read in its poll phase) leave in
   * one write: a write a command cost a system call each, the most of a request's time on
   * Redis in a profile (writeUtf8String 19% of the server's CPU, the list page at c=16).
   */
  private holdUntilImmediate(socket: Socket): void {
    if (this.corked) return;
    this.corked = true;
    socket.cork();
    setImmediate(() => {
      try {
        // Until none is left: one that asks for another before the write leaves rides in it too.
        while (this.assembling.length > 0) {
          const assembling = this.assembling;
          this.assembling = [];
          for (const assemble of assembling) assemble();
        }
        this.writeWait(socket);
      } finally {
        this.corked = false;
        socket.uncork();
        this.sent();
      }
    });
  }

  /**
   * The write left now: its commands' deadlines start here, not when they were asked for (a
   * process held between the two would otherwise fail them before Redis saw them).
   */
  private sent(): void {
    const now = performance.now();
    for (const w of this.unsent) w.sentAt = now;
    this.unsent = [];
  }

  /** The WAIT that ends a write with replicated commands in it, confirming them all. */
  private writeWait(socket: Socket): void {
    const wait = this.replicaWait.endOfWrite();
    if (!wait) return;
    this.waiting.push(wait.waiting);
    socket.write(encodeCommand(wait.args));
  }

  /** The command the next reply answers; undefined when none waits (a reply no command asked for). */
  next(): Waiting | undefined {
    return this.waiting.shift();
  }

  /** Whether a replicated command's reply waits for its write's WAIT, which comes next. */
  holds(waiting: Waiting): boolean {
    return this.replicaWait.holds(waiting);
  }

  /** The command waiting longest, for the deadline. */
  oldest(): Waiting | undefined {
    return this.waiting.oldest();
  }

  /** The connection ended: every command under way fails, saying `reason`. */
  fail(reason: string): void {
    this.replicaWait.forget();
    this.unsent = [];
    for (const w of this.waiting.drain())
      w.reject(new RedisUnavailable(`redis ${w.name}: ${reason} (the command may or may not have run)`));
  }
}
