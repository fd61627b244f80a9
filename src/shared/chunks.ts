/**
 * Content-defined chunking: a file cut where its bytes say, not at fixed offsets, so that bytes
 * inserted or changed in one place move only the chunks around them. A gear hash rolls over the
 * bytes; a cut falls after a byte where its low bits are all zero (on average every CHUNK_AVERAGE
 * bytes), never before CHUNK_MIN bytes, always by CHUNK_MAX. Published snapshots are stored as
 * such chunks, named by their checksum (src/shared/release.ts), so a build that changes one
 * model's bodies shares all but the chunks those bodies fall in with the build before it.
 *
 * Chosen on the sample, one model's evaluation changed (35 of 19,707 bodies): 16 KiB chunks left
 * 8.0% of the build's bytes new, 64 KiB 9.0%, most of it the route index files, whose offsets all
 * move; at 32 KiB a full pull is some 3,000 requests.
 */

export const CHUNK_AVERAGE = 32 * 1024;
export const CHUNK_MIN = CHUNK_AVERAGE / 4;
export const CHUNK_MAX = CHUNK_AVERAGE * 4;
/**
 * The high bits, as FastCDC takes them: with a shift of one a byte, bit k of the hash depends on the
 * last k + 1 bytes only, so the top 15 bits see the last 32, where the low ones would see 15 (and
 * cut at every repeat of a short JSON phrase).
 */
const CUT_MASK = (~(0xffffffff >>> Math.log2(CHUNK_AVERAGE)) >>> 0) as number;

/** 256 fixed pseudo-random words, one per byte value: any change here changes every chunk ever published. */
const GEAR = (() => {
  const table = new Uint32Array(256);
  let state = 0x9e3779b9;
  for (let i = 0; i < 256; i++) {
    // xorshift32: deterministic, well spread, and written out here so no library's change can move a cut.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    table[i] = state >>> 0;
  }
  return table;
})();

/** The lengths of the chunks `bytes` is cut into, in order (they sum to its length; none for no bytes). */
export function chunkLengths(bytes: Uint8Array): number[] {
  const lengths: number[] = [];
  let start = 0;
  while (start < bytes.length) {
    const end = nextCut(bytes, start);
    lengths.push(end - start);
    start = end;
  }
  return lengths;
}

/** Where the chunk beginning at `start` ends. */
function nextCut(bytes: Uint8Array, start: number): number {
  const last = Math.min(bytes.length, start + CHUNK_MAX);
  if (last - start <= CHUNK_MIN) return last;
  let hash = 0;
  // The hash of the bytes before the minimum is not looked at: skipping them saves a quarter of the work.
  for (let i = start + CHUNK_MIN; i < last; i++) {
    hash = ((hash << 1) + GEAR[bytes[i]]) >>> 0;
    if ((hash & CUT_MASK) >>> 0 === 0) return i + 1;
  }
  return last;
}
