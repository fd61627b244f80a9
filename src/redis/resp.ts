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

/**
 * Reads replies from a byte stream. `push` the bytes as they come; every whole reply is
 * handed to `onReply` in order. A partial reply waits in the buffer, parsed again from its
 * start once more bytes arrive (replies here are small, so that costs little).
 */
export class RespParser {
  private buffer: Buffer = Buffer.alloc(0);
  private offset = 0;

  constructor(private readonly onReply: (reply: Reply) => void) {}

  push(chunk: Buffer): void {
    this.buffer = this.offset < this.buffer.length ? Buffer.concat([this.buffer.subarray(this.offset), chunk]) : chunk;
    this.offset = 0;
    for (;;) {
      const start = this.offset;
      const reply = this.read();
      if (reply === INCOMPLETE) {
        this.offset = start;
        return;
      }
      this.onReply(reply);
    }
  }

  /** Forget a partial reply (the connection it came on is gone). */
  reset(): void {
    this.buffer = Buffer.alloc(0);
    this.offset = 0;
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

  private read(): Reply | typeof INCOMPLETE {
    if (this.offset >= this.buffer.length) return INCOMPLETE;
    const type = String.fromCharCode(this.buffer[this.offset++]);
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
        if (this.buffer.length < this.offset + size + 2) return INCOMPLETE;
        const value = this.buffer.toString('utf8', this.offset, this.offset + size);
        this.offset += size + 2;
        return value;
      }
      case '*': {
        const count = this.length(text);
        if (count < 0) return null;
        const items: Reply[] = [];
        for (let i = 0; i < count; i++) {
          const item = this.read();
          if (item === INCOMPLETE) return INCOMPLETE;
          items.push(item);
        }
        return items;
      }
      default:
        throw new RespProtocolError(`unknown reply type ${JSON.stringify(type)}`);
    }
  }
}
