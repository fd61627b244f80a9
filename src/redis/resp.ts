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
    // Numbers here are counts and times that change with every request: digits, not String, and
    // as many bytes as characters (no call into node to count them: most of a batch's arguments).
    if (typeof arg === 'number') {
      const text = digits(arg);
      out += `$${text.length}\r\n${text}\r\n`;
    } else out += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
  }
  return out;
}

/** The bytes that frame RESP: the reply types, CRLF, an integer's sign and digits. */
const [PLUS, MINUS, COLON, DOLLAR, STAR, CR, LF, ZERO, NINE] = [...'+-:$*\r\n09'].map((c) => c.charCodeAt(0));

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
    // All read before and one chunk come (a reply, mostly): read it as it came, no copy.
    this.buffer =
      this.offset === this.buffer.length && this.waiting.length === 1
        ? chunk
        : Buffer.concat([this.buffer.subarray(this.offset), ...this.waiting]);
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

  /**
   * The integer up to the next CRLF (a length, a count, an integer reply), or INCOMPLETE; moves
   * past the CRLF. Read from the bytes: finding the CRLF, decoding the text and testing it took
   * three calls into node and a regular expression an element, some 2k instructions a batch's
   * reply (callgrind).
   */
  private integer(): number | typeof INCOMPLETE {
    const { buffer } = this;
    const negative = buffer[this.offset] === MINUS;
    const first = negative ? this.offset + 1 : this.offset;
    let at = first;
    let value = 0;
    for (let byte = buffer[at]; byte !== undefined && byte >= ZERO && byte <= NINE; byte = buffer[++at])
      value = value * 10 + byte - ZERO;
    if (at + 1 >= buffer.length) return INCOMPLETE;
    if (at === first || buffer[at] !== CR || buffer[at + 1] !== LF) {
      // Not an integer: said once its line is whole, as any line is read.
      const end = buffer.indexOf('\r\n', this.offset, 'latin1');
      if (end < 0) return INCOMPLETE;
      throw new RespProtocolError(
        `bad length ${JSON.stringify(buffer.toString('utf8', this.offset, end).slice(0, 40))}`,
      );
    }
    // Past 15 digits a double may round differently from Number's reading of the text.
    if (at - first > 15) value = Number(buffer.toString('latin1', first, at));
    this.offset = at + 2;
    return negative ? -value : value;
  }

  /** One element at `offset`: a value, an array opened (OPENED), or INCOMPLETE (`needed` set). */
  private element(): Reply | typeof OPENED | typeof INCOMPLETE {
    const start = this.offset;
    if (start >= this.buffer.length) return INCOMPLETE;
    const type = this.buffer[this.offset++]!;
    if (type === PLUS || type === MINUS) {
      const text = this.line();
      if (text === INCOMPLETE) return INCOMPLETE;
      return type === PLUS ? text : new RespError(text);
    }
    if (type !== COLON && type !== DOLLAR && type !== STAR)
      throw new RespProtocolError(`unknown reply type ${JSON.stringify(String.fromCharCode(type))}`);
    // A length (bulk string), a count (array) or the value itself (integer).
    const n = this.integer();
    if (n === INCOMPLETE) return INCOMPLETE;
    switch (type) {
      case COLON:
        return n;
      case DOLLAR: {
        if (n < 0) return null;
        if (this.buffer.length < this.offset + n + 2) {
          this.needed = this.offset - start + n + 2;
          return INCOMPLETE;
        }
        const value = this.buffer.toString('utf8', this.offset, this.offset + n);
        this.offset += n + 2;
        return value;
      }
      default: {
        if (n < 0) return null;
        if (n === 0) return [];
        this.open.push({ items: [], left: n });
        return OPENED;
      }
    }
  }
}
