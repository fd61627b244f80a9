/**
 * A new connection's first read, looked at before node:http's parser sees it: one that
 * pipelines a flood of requests waits its turn while connections keep arriving, and one that
 * asks a request or two (a probe, a browser, an API client) is parsed at once.
 *
 * Why: libuv accepts one connection a turn of the event loop and the kernel queues the rest in
 * arrival order, while node:http parses a connection's first read whole, every pipelined request
 * in it made into a request and a response, whatever the server then does with them. Each
 * connection pipelining 50 requests cost the turn that read it 1 to 2 ms (node:http alone, none
 * answered: 1,000 of them, 630 ms of CPU), so with 1,000 arriving at once a new /healthz waited
 * behind hundreds of queued connections, a long turn each: 2.2 to 6.5 s on a busy machine
 * (`scripts/bench/descriptors.ts --pipeline 1000`). Held here, such a read costs its turn a few
 * microseconds, the queue drains as fast as connections can be accepted, and the held reads are
 * parsed a budget of request heads a turn once a turn accepted none (the queue is empty), oldest
 * first. Held ones past the waiting budget are closed unparsed, as a connection that pipelines
 * past it is once parsed (src/http/server.ts).
 *
 * Only the first read: after it node:http's parser reads the connection itself, the fast path
 * of every keep-alive request, and what a client pipelines later is bounded by its lane and the
 * waiting budget. The connection is never paused here: node:http and the lanes stop reading by
 * pausing it, which only takes effect on a flowing one.
 */
import { performance } from 'node:perf_hooks';
import type { Socket } from 'node:net';

export interface FirstReadLimits {
  /**
   * A first read holding at most this many request heads is parsed at once (the answers a
   * connection may have under way).
   */
  firstReadHeads: number;
  /**
   * Request heads of held first reads parsed in one turn, once no connection was accepted in it (at
   * least one read a turn).
   */
  firstReadBudget: number;
  /**
   * A held first read is parsed after this long even while connections keep arriving, and a
   * connection that sends nothing for this long is given to node:http as it is (its header
   * timeout then applies).
   */
  firstReadWaitMs: number;
  /** Request heads held in all, at most (the pipelined requests the server keeps waiting). */
  maxWaiting: number;
  /** Bytes held in all, at most. */
  firstReadHeldBytes: number;
}

/** Bytes one held connection may send before its turn (a read of libuv's); past them it is closed. */
const HELD_BYTES_PER_CONNECTION = 64 * 1024;

/** Request heads (each ended by an empty line) in `bytes`, counted up to `atMost`. */
export function requestHeads(bytes: Buffer, atMost: number): number {
  let heads = 0;
  for (let at = bytes.indexOf('\r\n\r\n'); at !== -1 && heads < atMost; at = bytes.indexOf('\r\n\r\n', at + 4)) heads++;
  return heads;
}

/** What the turn's decision reads of each held first read. */
export interface HeldRead {
  heads: number;
  /** When it was read (ms, one clock). */
  since: number;
}

/**
 * How many of the held first reads, oldest first, to parse in this turn. While connections are
 * being accepted (`accepting`: one came in this turn, so more may be queued) only those held
 * `firstReadWaitMs` or longer; otherwise the oldest, up to `firstReadBudget` request heads in
 * all, and always at least one.
 */
export function readsToParse(
  held: readonly HeldRead[],
  accepting: boolean,
  now: number,
  limits: Pick<FirstReadLimits, 'firstReadBudget' | 'firstReadWaitMs'>,
): number {
  let count = 0;
  let heads = 0;
  for (const read of held) {
    if (accepting && now - read.since < limits.firstReadWaitMs) break;
    if (count > 0 && heads + read.heads > limits.firstReadBudget) break;
    count++;
    heads += read.heads;
  }
  return count;
}

/**
 * What /metrics shows: first reads held now; parsed in a later turn, and closed unparsed past the
 * budgets, since start.
 */
export interface FirstReadStats {
  held: number;
  parsedLater: number;
  closed: number;
}

/** A connection whose first read waits for its turn. */
interface Held extends HeldRead {
  socket: Socket;
  bytes: Buffer;
  /** Its client closed its side after what it sent. */
  ended: boolean;
  /** Give it to node:http with what it sent. */
  hand: () => void;
}

const ignoreError = (): void => {};

export class FirstReads {
  /**
   * Connections that have sent nothing yet: closed with the held ones when the server stops
   * (node:http does not know them yet).
   */
  private readonly unread = new Set<Socket>();
  private held: Held[] = [];
  private heldHeads = 0;
  private heldBytes = 0;
  private accepting = false;
  private scheduled = false;
  private parsedLater = 0;
  private closed = 0;

  constructor(private readonly limits: FirstReadLimits) {}

  stats(): FirstReadStats {
    return { held: this.held.length, parsedLater: this.parsedLater, closed: this.closed };
  }

  /**
   * Look at `socket`'s first read, then give it to node:http (`attach`, node's connection
   * listener), at once or in its turn.
   */
  take(socket: Socket, attach: () => void): void {
    this.accepting = true;
    this.unread.add(socket);
    let held: Held | null = null;
    const hand = (bytes: Buffer | null, ended = false): void => {
      // The close listener below keeps this scope as long as the connection lives: not the bytes.
      held = null;
      clearTimeout(silent);
      this.unread.delete(socket);
      socket.removeListener('data', onData);
      socket.removeListener('end', onEnd);
      socket.removeListener('error', ignoreError);
      if (socket.destroyed) return;
      attach();
      // What node:http would have read itself, in one piece (it may pause the connection while
      // parsing it, and take no more): node's listener is a flowing connection's data listener.
      if (bytes !== null) socket.emit('data', bytes);
      // Its close after that, when node:http would have read it: once it reads on (a full lane
      // stops reading until its pipelined requests are answered, and would have read the close then).
      if (ended) {
        const end = (): void => process.nextTick(() => socket.destroyed || socket.emit('end'));
        if (socket.isPaused()) socket.once('resume', end);
        else end();
      }
    };
    const onData = (chunk: Buffer): void => {
      if (held) return this.more(held, chunk);
      const heads = requestHeads(chunk, this.limits.firstReadBudget);
      if (heads <= this.limits.firstReadHeads) return hand(chunk);
      clearTimeout(silent);
      this.unread.delete(socket);
      held = {
        socket,
        bytes: chunk,
        heads,
        since: performance.now(),
        ended: false,
        hand: () => hand(held!.bytes, held!.ended),
      };
      if (!this.admit(held)) return;
      this.held.push(held);
      this.schedule();
    };
    // Closed its side: after a held read, node:http hears of it once handed the read; having
    // sent nothing, at once (and closes ours, as it does).
    const onEnd = (): void => {
      if (held) held.ended = true;
      else hand(null, true);
    };
    // Nothing sent for a while: node:http's own timeouts take it from here.
    const silent = setTimeout(() => hand(null), this.limits.firstReadWaitMs);
    silent.unref();
    // node:http's error listener comes with it; until then an error only closes the connection.
    socket.on('error', ignoreError);
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('close', () => {
      clearTimeout(silent);
      this.unread.delete(socket);
    });
  }

  /** Close every connection not yet given to node:http (the server is stopping). */
  endAll(): void {
    for (const socket of this.unread) socket.destroy();
    for (const read of this.held) read.socket.destroy();
    this.held = [];
    this.recount();
  }

  /** Within the budgets: counted in; else closed unparsed. */
  private admit(read: Held): boolean {
    if (
      this.heldHeads + read.heads <= this.limits.maxWaiting &&
      this.heldBytes + read.bytes.length <= this.limits.firstReadHeldBytes
    ) {
      this.heldHeads += read.heads;
      this.heldBytes += read.bytes.length;
      return true;
    }
    this.closed++;
    read.socket.destroy();
    return false;
  }

  /** A held connection sent more before its turn: kept with its read, within the budgets. */
  private more(read: Held, chunk: Buffer): void {
    const bytes = Buffer.concat([read.bytes, chunk]);
    const heads = requestHeads(bytes, this.limits.firstReadBudget);
    if (
      bytes.length > HELD_BYTES_PER_CONNECTION ||
      this.heldHeads - read.heads + heads > this.limits.maxWaiting ||
      this.heldBytes + chunk.length > this.limits.firstReadHeldBytes
    ) {
      this.closed++;
      read.socket.destroy();
      return;
    }
    this.heldHeads += heads - read.heads;
    this.heldBytes += chunk.length;
    read.bytes = bytes;
    read.heads = heads;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.turn);
  }

  /** Once a turn, after its I/O, while reads are held. */
  private readonly turn = (): void => {
    this.scheduled = false;
    this.held = this.held.filter((read) => !read.socket.destroyed);
    const count = readsToParse(this.held, this.accepting, performance.now(), this.limits);
    this.accepting = false;
    const due = this.held.splice(0, count);
    this.recount();
    this.parsedLater += due.length;
    for (const read of due) read.hand();
    if (this.held.length > 0) this.schedule();
  };

  private recount(): void {
    this.heldHeads = 0;
    this.heldBytes = 0;
    for (const read of this.held) {
      this.heldHeads += read.heads;
      this.heldBytes += read.bytes.length;
    }
  }
}
