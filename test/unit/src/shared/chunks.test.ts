import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CHUNK_AVERAGE, CHUNK_MAX, CHUNK_MIN, chunkLengths } from '../../../../src/shared/chunks.ts';
import { seededRandom } from '../../../helpers/random.ts';

const chunks = suite('chunkLengths');

/** The chunks of `bytes`, each named by its sha256. */
function sums(bytes: Buffer): string[] {
  let offset = 0;
  return chunkLengths(bytes).map((length) => {
    const sum = createHash('sha256')
      .update(bytes.subarray(offset, offset + length))
      .digest('hex');
    offset += length;
    return sum;
  });
}

/** The chunks of `after` that `before` does not have. */
function newChunks(before: Buffer, after: Buffer): number {
  const held = new Set(sums(before));
  return sums(after).filter((sum) => !held.has(sum)).length;
}

const next = seededRandom(20);

/** `length` random bytes, the same on every run (so a failure can be replayed). */
function randomBytes(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(next() * 256);
  return bytes;
}

const TWO_MB = randomBytes(2 * 1024 * 1024);

chunks('should cut nothing from no bytes, and a short input into one chunk', () => {
  assert.equal(chunkLengths(new Uint8Array(0)), []);
  assert.equal(chunkLengths(new Uint8Array(1)), [1]);
  assert.equal(chunkLengths(randomBytes(CHUNK_MIN)), [CHUNK_MIN]);
});

chunks('should cut lengths that sum to the input, none below the minimum but the last, none above the maximum', () => {
  for (const bytes of [TWO_MB, TWO_MB.subarray(0, 300_001), randomBytes(CHUNK_MAX * 3 + 17)]) {
    const lengths = chunkLengths(bytes);
    assert.is(
      lengths.reduce((a, b) => a + b, 0),
      bytes.length,
    );
    lengths.forEach((length, i) => {
      assert.ok(length <= CHUNK_MAX, `chunk ${i} is ${length} bytes`);
      if (i < lengths.length - 1) assert.ok(length >= CHUNK_MIN, `chunk ${i} of ${lengths.length} is ${length} bytes`);
    });
  }
});

chunks('should cut random bytes at content, not at the maximum, near the average length', () => {
  const lengths = chunkLengths(TWO_MB);
  const average = TWO_MB.length / lengths.length;
  assert.ok(average > CHUNK_AVERAGE / 2 && average < CHUNK_AVERAGE * 2, `${lengths.length} chunks`);
  assert.ok(lengths.some((length) => length < CHUNK_MAX && length > CHUNK_MIN));
});

chunks('should be deterministic: the same bytes, the same cuts (in a copy too)', () => {
  assert.equal(chunkLengths(TWO_MB), chunkLengths(Buffer.from(TWO_MB)));
  assert.equal(chunkLengths(new Uint8Array(TWO_MB)), chunkLengths(TWO_MB));
});

chunks('should leave all but a few chunks as they were when a few bytes change in the middle', () => {
  const changed = Buffer.from(TWO_MB);
  const middle = changed.length >> 1;
  for (let i = 0; i < 8; i++) changed[middle + i] ^= 0xff;
  const count = sums(TWO_MB).length;
  const fresh = newChunks(TWO_MB, changed);
  assert.ok(fresh >= 1 && fresh <= 3, `${fresh} of ${count} chunks new`);
});

chunks('should leave all but a few chunks as they were when bytes are inserted or removed in the middle', () => {
  const middle = TWO_MB.length >> 1;
  const inserted = Buffer.concat([TWO_MB.subarray(0, middle), randomBytes(5), TWO_MB.subarray(middle)]);
  const removed = Buffer.concat([TWO_MB.subarray(0, middle), TWO_MB.subarray(middle + 7)]);
  for (const [name, after] of [
    ['inserted', inserted],
    ['removed', removed],
  ] as const) {
    const fresh = newChunks(TWO_MB, after);
    assert.ok(fresh >= 1 && fresh <= 3, `${name}: ${fresh} of ${sums(after).length} chunks new`);
  }
  // Fixed-size blocks, by contrast, would all move after the insertion.
  assert.ok(sums(inserted).length > 20);
});

chunks('should cut repetitive bytes, which never hash to a cut, at the maximum', () => {
  const zeros = new Uint8Array(CHUNK_MAX * 5 + 100);
  assert.equal(chunkLengths(zeros), [CHUNK_MAX, CHUNK_MAX, CHUNK_MAX, CHUNK_MAX, CHUNK_MAX, 100]);
});

chunks.run();
