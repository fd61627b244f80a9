/**
 * One gzip stream made of a part compressed once and a part written each call: a deflate stream
 * may be cut after a sync flush (a non-final block, byte-aligned) and go on with more blocks, and
 * CRC-32 goes on from where it stopped. So the body-dependent start of a tool call's answer is
 * deflated once (with its CRC and length kept), and each call adds its own end as a final stored
 * block and the trailer: one gzip member, as every decoder reads it. (Several members would be
 * simpler, but curl reads only the first.)
 */
import * as zlib from 'node:zlib';
import { constants, deflateRawSync } from 'node:zlib';

/**
 * node's own CRC-32 (Node 20.15 and later), else the table below: the table's loop over each call's
 * end (a few hundred bytes) was 2.3% of the CPU of tool calls under load (scripts/bench/mcp.ts).
 */
const nativeCrc32 = (zlib as { crc32?: (bytes: Uint8Array, previous?: number) => number }).crc32;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 as gzip takes it, going on from `previous` (the CRC of the bytes before these). */
export function crc32(bytes: Uint8Array, previous = 0): number {
  // zlib answers 0 for no bytes at a null address, which an empty buffer may have (Node 20.20).
  if (bytes.length === 0) return previous >>> 0;
  return nativeCrc32 ? nativeCrc32(bytes, previous) : tableCrc32(bytes, previous);
}

export function tableCrc32(bytes: Uint8Array, previous = 0): number {
  let c = (previous ^ 0xffffffff) >>> 0;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);
/** A stored deflate block holds at most this many bytes. */
const STORED_MAX = 0xffff;

/** The start of a gzip stream: its header and `bytes` deflated up to a sync flush, with their CRC and length. */
export interface GzipStart {
  bytes: Buffer;
  crc: number;
  length: number;
}

export function gzipStart(bytes: Buffer): GzipStart {
  const deflated = deflateRawSync(bytes, { level: 6, finishFlush: constants.Z_SYNC_FLUSH });
  return { bytes: Buffer.concat([HEADER, deflated]), crc: crc32(bytes), length: bytes.length };
}

/** The rest of the stream after `start`: `end` as stored blocks, the last one final, and the trailer. */
export function gzipEnd(start: GzipStart, end: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  for (let at = 0; at === 0 || at < end.length; at += STORED_MAX) {
    const piece = end.subarray(at, at + STORED_MAX);
    const head = Buffer.alloc(5);
    head[0] = at + STORED_MAX >= end.length ? 1 : 0;
    head.writeUInt16LE(piece.length, 1);
    head.writeUInt16LE(~piece.length & 0xffff, 3);
    parts.push(head, piece);
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(end, start.crc), 0);
  trailer.writeUInt32LE((start.length + end.length) >>> 0, 4);
  parts.push(trailer);
  return parts;
}
