/**
 * IP addresses and sets of blocks of them, as an operator writes them (`--trust-proxy
 * 10.0.0.0/8,2001:db8::/32,loopback`): CIDR blocks and plain addresses of either family, and
 * `loopback`. Every address is held as IPv6, four 32-bit words: an IPv4 address as its IPv4-mapped
 * form (`::ffff:a.b.c.d`, RFC 4291, 2.5.5.2), which is also what a dual-stack socket reports for an
 * IPv4 peer, so `127.0.0.1` and `::ffff:127.0.0.1` are one address and one IPv4 block holds both.
 *
 * Written here rather than asking node:net's BlockList: its check makes a SocketAddress each call,
 * 2.5 to 2.9 µs an address on the 2 cores of BENCHMARKS.md, where this parse and a match take 0.2
 * to 0.4 µs (bundled), and the public path asks it on every request when --trust-proxy is given.
 */

/** An address: four 32-bit words, most significant first. */
export type IpWords = readonly [number, number, number, number];

/** A zone (`fe80::1%eth0`), as node:net's isIP takes one. */
const ZONE = /^[0-9A-Za-z.:-]+$/;

/** A hexadecimal digit's value, or -1. */
function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/**
 * The IPv4 address written from `from` to `to` of `text` as one 32-bit word; null unless four
 * decimal parts 0-255 without leading zeros (`010` is octal to some parsers and decimal to others:
 * refused, as node:net refuses it).
 */
export function ipv4Word(text: string, from = 0, to = text.length): number | null {
  let word = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return null;
      word = word * 256 + part;
      part = 0;
      digits = 0;
      dots++;
      continue;
    }
    if (c < 48 || c > 57 || (digits === 1 && part === 0)) return null;
    part = part * 10 + (c - 48);
    digits++;
    if (part > 255) return null;
  }
  return dots === 3 && digits > 0 ? word * 256 + part : null;
}

/**
 * An IPv6 address (RFC 4291, 2.2: `::` once at most and for one group at least, an IPv4 tail, a
 * `%zone` ignored) as words; null if malformed. One pass over the characters, no slices.
 */
function ipv6Words(text: string): IpWords | null {
  const zone = text.indexOf('%');
  const end = zone === -1 ? text.length : zone;
  if (end === 0 || (zone !== -1 && !ZONE.test(text.slice(zone + 1)))) return null;
  const groups: number[] = [];
  let gap = -1;
  let i = 0;
  if (text.charCodeAt(0) === 58) {
    if (text.charCodeAt(1) !== 58) return null;
    gap = 0;
    i = 2;
  }
  while (i < end) {
    const start = i;
    let value = 0;
    for (; i < end; i++) {
      const h = hexValue(text.charCodeAt(i));
      if (h < 0) break;
      value = value * 16 + h;
    }
    if (i < end && text.charCodeAt(i) === 46) {
      // An IPv4 tail (`::ffff:10.0.0.1`, `64:ff9b::192.0.2.1`): two groups, and the end.
      const word = groups.length > 6 ? null : ipv4Word(text, start, end);
      if (word === null) return null;
      groups.push(Math.floor(word / 65536), word % 65536);
      break;
    }
    if (i === start || i - start > 4 || groups.length === 8) return null;
    groups.push(value);
    if (i === end) break;
    if (text.charCodeAt(i) !== 58 || i + 1 === end) return null;
    i++;
    if (text.charCodeAt(i) === 58) {
      if (gap !== -1) return null;
      gap = groups.length;
      i++;
    }
  }
  const zeros = 8 - groups.length;
  if (gap === -1 ? zeros !== 0 : zeros < 1) return null;
  const group = (k: number) => (gap === -1 || k < gap ? groups[k] : k < gap + zeros ? 0 : groups[k - zeros]);
  return [
    group(0) * 65536 + group(1),
    group(2) * 65536 + group(3),
    group(4) * 65536 + group(5),
    group(6) * 65536 + group(7),
  ];
}

/** The words of an IPv4 address, as its IPv4-mapped IPv6 form. */
export function mappedWords(ipv4: number): IpWords {
  return [0, 0, 0xffff, ipv4];
}

/** An IPv4 or IPv6 address as words (IPv4 as its mapped form), or null when the text is not one. */
export function ipWords(text: string): IpWords | null {
  if (text.includes(':')) return ipv6Words(text);
  const ipv4 = ipv4Word(text);
  return ipv4 === null ? null : mappedWords(ipv4);
}

/** A block: the masked words of its first address and the mask of each word. */
interface Block {
  readonly words: IpWords;
  readonly masks: IpWords;
}

/** What `loopback` stands for: 127.0.0.0/8 and ::1. */
export const LOOPBACK = ['127.0.0.0/8', '::1/128'];

/** The four word masks of a prefix of `bits` (0-128) of an IPv6 address. */
function masksOf(bits: number): IpWords {
  const word = (i: number) => {
    const left = Math.min(32, Math.max(0, bits - 32 * i));
    return left === 0 ? 0 : (0xffffffff << (32 - left)) >>> 0;
  };
  return [word(0), word(1), word(2), word(3)];
}

function masked(words: IpWords, masks: IpWords): IpWords {
  return [
    (words[0] & masks[0]) >>> 0,
    (words[1] & masks[1]) >>> 0,
    (words[2] & masks[2]) >>> 0,
    (words[3] & masks[3]) >>> 0,
  ];
}

/**
 * A block as written: `ADDRESS`, or `ADDRESS/PREFIX` (0-32 for IPv4, 0-128 for IPv6). Bits past the
 * prefix are dropped (`10.1.2.3/8` is 10.0.0.0/8), as node:net's BlockList and nginx do. Throws
 * saying what is wrong.
 */
function blockOf(text: string): Block {
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const ipv4 = ipv4Word(address);
  const words = ipv4 === null ? ipWords(address) : mappedWords(ipv4);
  if (words === null) throw new Error(`${JSON.stringify(text)} is not an IP address, a CIDR block or loopback`);
  const most = ipv4 === null ? 128 : 32;
  let bits = most;
  if (slash !== -1) {
    const prefix = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > most)
      throw new Error(`${JSON.stringify(text)}: the prefix length must be 0 to ${most}`);
    bits = Number(prefix);
  }
  // An IPv4 block is a block of the mapped addresses, 96 bits further down.
  const masks = masksOf(ipv4 === null ? bits : 96 + bits);
  return { words: masked(words, masks), masks };
}

export class AddressSet {
  private constructor(
    /** The entries as written (for the start-up line), `loopback` as it is. */
    readonly written: readonly string[],
    private readonly blocks: readonly Block[],
  ) {}

  /** The set a comma-separated list makes; throws saying which entry is not an address, a block or `loopback`. */
  static parse(text: string): AddressSet {
    const written = text
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    if (written.length === 0) throw new Error('give at least one IP address, CIDR block or loopback');
    const blocks = written.flatMap((entry) => (entry.toLowerCase() === 'loopback' ? LOOPBACK : [entry]).map(blockOf));
    return new AddressSet(written, blocks);
  }

  /** Whether an address (words of ipWords) is in one of the blocks. */
  holds(words: IpWords): boolean {
    for (const block of this.blocks) {
      const m = block.masks;
      const w = block.words;
      if (
        (words[3] & m[3]) >>> 0 === w[3] &&
        (words[2] & m[2]) >>> 0 === w[2] &&
        (words[1] & m[1]) >>> 0 === w[1] &&
        (words[0] & m[0]) >>> 0 === w[0]
      )
        return true;
    }
    return false;
  }

  /** Whether an address written as text is in the set; anything that is not an address is not. */
  has(address: string): boolean {
    const words = ipWords(address);
    return words !== null && this.holds(words);
  }
}
