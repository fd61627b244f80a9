/**
 * The commands sent on a connection and waiting for their replies, in order: Redis answers in
 * the order it was asked, so the next reply is always the oldest command's. Beside them, the
 * confirmation of writes on replicas: the WAIT that ends a write with replicated commands in it
 * answers for them all (src/redis/client.ts sends it).
 */
import { performance } from 'node:perf_hooks';
import type { Reply } from './resp.ts';
import { RedisCommandError } from './errors.ts';

/**
 * A command written and waiting for its reply. A class, so every one has the same fields in the
 * same order: made as a literal spread from the command's fields plus its own, each got V8 a new
 * hidden class through a runtime call, three a script run (some 20k instructions a batch of the
 * Redis path, callgrind; bench/analysis.md, "On Redis, a batch shorter").
 */
export class Waiting {
  /** When its write left: the deadline runs from here (Pipeline sets it as the write leaves). */
  sentAt = performance.now();
  /** A replicated command's reply, held until that WAIT's. */
  reply: Reply | undefined = undefined;

  constructor(
    readonly name: string,
    readonly resolve: (reply: Reply) => void,
    readonly reject: (error: Error) => void,
    /** An EVALSHA's command and script, sent as EVAL when Redis answers NOSCRIPT. */
    readonly script: { args: readonly (string | number)[]; source: string } | undefined = undefined,
    /** A write that counts: answered only once its write's WAIT confirmed it (with replicas to wait for). */
    readonly replicated = false,
  ) {}
}

/** A FIFO that drops its answered head now and then instead of shifting every time. */
export class WaitingQueue {
  private items: Waiting[] = [];
  private head = 0;

  push(waiting: Waiting): void {
    this.items.push(waiting);
  }

  /** The oldest command still waiting, if any. */
  oldest(): Waiting | undefined {
    return this.items[this.head];
  }

  /** Take the oldest (its reply has come). */
  shift(): Waiting | undefined {
    const w = this.items[this.head];
    if (!w) return undefined;
    this.items[this.head++] = undefined as unknown as Waiting;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return w;
  }

  /** Take every command still waiting (the connection is gone). */
  drain(): Waiting[] {
    const all = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return all;
  }
}

/**
 * Fewer replicas than asked acknowledged a write in time (WAIT): it ran on the primary but may
 * be lost in a failover. Worded with Redis's own code for this (NOREPLICAS), so the refusal
 * watch (src/redis/refusals.ts) reports it as it reports `min-replicas-to-write`.
 */
export class RedisNotReplicated extends RedisCommandError {}

/** How many replicas must acknowledge each write that counts (WAIT), and how long it may wait for them. */
export interface ReplicaConfirmation {
  count: number;
  timeoutMs: number;
}

/**
 * The replicated commands of the write under way, and the WAIT that confirms them once their
 * replies are held: WAIT waits for everything the connection wrote before it, so one a write
 * confirms every command in it.
 */
export class ReplicaWait {
  private unconfirmed: Waiting[] = [];

  constructor(private readonly replicas: ReplicaConfirmation) {}

  /** Whether this command's reply waits for a WAIT (it is replicated and replicas are asked for). */
  holds(waiting: Waiting): boolean {
    return waiting.replicated && this.replicas.count > 0;
  }

  /** A command written in the write under way. */
  written(waiting: Waiting): void {
    if (this.holds(waiting)) this.unconfirmed.push(waiting);
  }

  /** The WAIT that ends the write under way, or null when nothing in it needs one. */
  endOfWrite(): { waiting: Waiting; args: (string | number)[] } | null {
    const confirming = this.unconfirmed;
    if (confirming.length === 0) return null;
    this.unconfirmed = [];
    const { count, timeoutMs } = this.replicas;
    const confirmed = (acknowledged: Reply) => {
      for (const w of confirming) {
        // No reply held: it failed (rejected already) or was sent again as EVAL (confirmed by a later WAIT).
        if (w.reply === undefined) continue;
        if (Number(acknowledged) >= count) w.resolve(w.reply);
        else
          w.reject(
            new RedisNotReplicated(
              `redis WAIT: NOREPLICAS the write could not be confirmed on ${count} replica${count === 1 ? '' : 's'} ` +
                `(${Number(acknowledged)} acknowledged within ${timeoutMs} ms)`,
            ),
          );
      }
    };
    const failed = (error: Error) => {
      for (const w of confirming) if (w.reply !== undefined) w.reject(error);
    };
    return {
      waiting: new Waiting('WAIT', confirmed, failed),
      args: ['WAIT', count, timeoutMs],
    };
  }

  /** The connection is gone: its commands failed with it. */
  forget(): void {
    this.unconfirmed = [];
  }
}
