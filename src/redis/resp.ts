/**
 * RESP2, the Redis protocol: commands out as arrays of bulk strings, replies in as a stream
 * that may split a reply anywhere (even inside `\r\n`) or carry several at once. Pure: no
 * sockets here (client.ts has them), so every frame shape is tested byte by byte.
 */

import { digits } from '../lib/digits.ts';

/** An error reply (`-ERR ...`): a value, so one inside an array does not hide its neighbours. */
export class RespError {
  constructor(readonly message: string) {}
}

/** Bulk strings are read as UTF-8 text: every value this server keeps in Redis is text. */
export type Reply = string | number | null | RespError | Reply[];

/** One command as RESP: `*N` then each argument as a bulk string (lengths in bytes, not characters). */
export function encodeCommand(args: readonly (string | number)[]): string {
  let out = `*${args.length}\r\n`;
  for (const arg of args) {
    // Numbers here are counts and times that change with every request: digits, not String.
    const text = typeof arg === 'number' ? digits(arg) : arg;
    out += `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
  }
  return out;
}

/** Not a whole reply yet: wait for more bytes. */
const INCOMPLETE = Symbol('incomplete');

/** The protocol was broken (not a framing we know): the connection cannot be trusted further. */
export class RespProtocolError extends Error {}

/** An array's header was read: its items follow. */
const OPENED = Symbol('opened');

/** An array being read: its items so far, and how many are still to come. */
interface OpenArray {
  items: Reply[];
  left: number;
}

/**
 * Reads replies from a byte stream. `push` the bytes as they come; every whole reply is
 * handed to `onReply` in order. Each element is read once: an array's items read so far are
 * kept while the rest comes, and only a partial element waits, read again when enough has come
 * (a bulk string, once all its bytes are here). Read again from each reply's start, as it first
 * was, a reply of 100,000 records (HVALS, some 40 MB in 64 KB chunks) was never read within 10 s.
 */
export class RespParser {
  private buffer: Buffer = Buffer.alloc(0);
  private offset = 0;
  /** Chunks come since the partial element at `offset` was last tried, and their bytes. */
  private waiting: Buffer[] = [];
  private waitingBytes = 0;
  /** Bytes from `offset` the partial element needs before it is worth trying again (0: any more). */
  private needed = 0;
  private readonly open: OpenArray[] = [];

  constructor(private readonly onReply: (reply: Reply) => void) {}

  push(chunk: Buffer): void {
    this.waiting.push(chunk);
    this.waitingBytes += chunk.length;
    if (this.buffer.length - this.offset + this.waitingBytes < this.needed) return;
    this.buffer = Buffer.concat([this.buffer.subarray(this.offset), ...this.waiting]);
    this.waiting = [];
    this.waitingBytes = 0;
    this.offset = 0;
    this.needed = 0;
    for (;;) {
      const start = this.offset;
      const element = this.element();
      if (element === INCOMPLETE) {
        this.offset = start;
        return;
      }
      if (element !== OPENED) this.deliver(element);
    }
  }

  /** Forget a partial reply (the connection it came on is gone). */
  reset(): void {
    this.buffer = Buffer.alloc(0);
    this.offset = 0;
    this.waiting = [];
    this.waitingBytes = 0;
    this.needed = 0;
    this.open.length = 0;
  }

  /** A value read: an item of the array being read (closing it when it is the last), or a whole reply. */
  private deliver(value: Reply): void {
    for (;;) {
      const top = this.open.at(-1);
      if (top === undefined) return this.onReply(value);
      top.items.push(value);
      if (--top.left > 0) return;
      this.open.pop();
      value = top.items;
    }
  }

  /** The text up to the next CRLF, or INCOMPLETE; moves past the CRLF. */
  private line(): string | typeof INCOMPLETE {
    const end = this.buffer.indexOf('\r\n', this.offset, 'latin1');
    if (end < 0) return INCOMPLETE;
    const text = this.buffer.toString('utf8', this.offset, end);
    this.offset = end + 2;
    return text;
  }

  private length(text: string): number {
    if (!/^-?\d+$/.test(text)) throw new RespProtocolError(`bad length ${JSON.stringify(text.slice(0, 40))}`);
    return Number(text);
  }

  /** One element at `offset`: a value, an array opened (OPENED), or INCOMPLETE (`needed` set). */
  private element(): Reply | typeof OPENED | typeof INCOMPLETE {
    const start = this.offset;
    if (start >= this.buffer.length) return INCOMPLETE;
    const type = String.fromCharCode(this.buffer[this.offset++]!);
    const text = this.line();
    if (text === INCOMPLETE) return INCOMPLETE;
    switch (type) {
      case '+':
        return text;
      case '-':
        return new RespError(text);
      case ':':
        return this.length(text);
      case '$': {
        const size = this.length(text);
        if (size < 0) return null;
        if (this.buffer.length < this.offset + size + 2) {
          this.needed = this.offset - start + size + 2;
          return INCOMPLETE;
        }
        const value = this.buffer.toString('utf8', this.offset, this.offset + size);
        this.offset += size + 2;
        return value;
      }
      case '*': {
        const count = this.length(text);
        if (count < 0) return null;
        if (count === 0) return [];
        this.open.push({ items: [], left: count });
        return OPENED;
      }
      default:
        throw new RespProtocolError(`unknown reply type ${JSON.stringify(type)}`);
    }
  }
}
