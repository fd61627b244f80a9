/**
 * Gzip members, which concatenate: a gzip stream may hold several (RFC 1952, 2.2), and decoders
 * (zlib, and so node's fetch, Python's gzip, browsers) read them as one body. A tool call's
 * answer is a member compressed once a body (the route's bytes, twice) between two small members
 * made each call, stored rather than compressed: a header and a length, no compressor to start.
 */

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 as gzip takes it (for the few hundred bytes of a stored member). */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);
/** A stored deflate block holds at most this many bytes. */
const STORED_MAX = 0xffff;

/** `bytes` as one gzip member of stored (uncompressed) deflate blocks. */
export function storedMember(bytes: Buffer): Buffer {
  const parts: Buffer[] = [HEADER];
  for (let at = 0; at === 0 || at < bytes.length; at += STORED_MAX) {
    const piece = bytes.subarray(at, at + STORED_MAX);
    const head = Buffer.alloc(5);
    head[0] = at + STORED_MAX >= bytes.length ? 1 : 0;
    head.writeUInt16LE(piece.length, 1);
    head.writeUInt16LE(~piece.length & 0xffff, 3);
    parts.push(head, piece);
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(bytes), 0);
  trailer.writeUInt32LE(bytes.length >>> 0, 4);
  parts.push(trailer);
  return Buffer.concat(parts);
}
