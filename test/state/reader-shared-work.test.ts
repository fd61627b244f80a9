/**
 * Requests that miss the same answer at once share one piece of work: one read of a stored body,
 * one inflation of a measurement fragment, one assembly of a measurements answer, one compression
 * of a large assembled answer (on another thread), one buffer.
 * Without that, the requests of one turn that all missed a measurements answer each inflated the
 * provider's records and assembled it anew, and the bench's mix peaked 20 MB higher.
 *
 * On the shared sample build, through the reader a server uses, counting the snapshot's reads.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readAllEntries } from '../../src/shared/manifest.ts';
import { BodyReader } from '../../src/snapshot/reader.ts';
import { Snapshot } from '../../src/snapshot/snapshot.ts';
import { sampleSnapshot } from '../helpers/sample.ts';

const AT_ONCE = 32;

/** The sample build with its pack reads counted. */
async function countedSnapshot(): Promise<{ snapshot: Snapshot; reads: () => number }> {
  const snapshot = await Snapshot.open((await sampleSnapshot()).buildDir);
  let reads = 0;
  const read = snapshot.read.bind(snapshot);
  snapshot.read = (span, part) => {
    reads++;
    return read(span, part);
  };
  return { snapshot, reads: () => reads };
}

const sharing = suite('answers missed at once');

sharing('should assemble a measurements answer once for every request that asked at once, in one buffer', async () => {
  const { snapshot, reads } = await countedSnapshot();
  const reader = new BodyReader(48 * 1024 * 1024);
  const name = Object.keys(snapshot.manifest.fragments)[0];
  const bodies = await Promise.all(Array.from({ length: AT_ONCE }, () => reader.measurements(snapshot, name, '2026-10-01', 'br')));
  assert.is(reads(), 2, 'the head index and the records, each read once');
  assert.ok(bodies.every((body) => body.bytes === bodies[0].bytes), 'one buffer for all');
  await snapshot.pack.close();
});

sharing('should read a stored body once for every request that missed it at once', async () => {
  const { snapshot, reads } = await countedSnapshot();
  const reader = new BodyReader(48 * 1024 * 1024);
  const [, entry] = [...readAllEntries(snapshot.dir, snapshot.manifest)].find(([key]) => key.startsWith('language.model '))!;
  const bodies = await Promise.all(Array.from({ length: AT_ONCE }, () => reader.body(snapshot, entry, ['br'])));
  assert.is(reads(), 1);
  assert.ok(bodies.every((body) => body.bytes === bodies[0].bytes));
  await snapshot.pack.close();
});

sharing('should send an assembled answer whose bytes left the cache from its compressed variant, not assemble it again', async () => {
  const { snapshot, reads } = await countedSnapshot();
  const name = Object.keys(snapshot.manifest.fragments)[0];
  const { bytes, etag } = await new BodyReader(48 * 1024 * 1024).measurements(snapshot, name, '2026-10-01', 'br');
  // Room for the compressed answer, not for its identity bytes (a quarter of the cache) nor the records.
  const reader = new BodyReader(2 * bytes.length);
  const before = reads();
  const first = await reader.measurements(snapshot, name, '2026-10-01', 'br');
  assert.is(reads() - before, 2, 'assembled once: the index and the records read');
  const again = reader.measurements(snapshot, name, '2026-10-01', 'br');
  assert.ok(!(again instanceof Promise), 'at once');
  assert.is(reads() - before, 2, 'nothing read again');
  assert.ok(again.bytes === first.bytes && again.etag === etag);
  await snapshot.pack.close();
});

sharing('should compress a large assembled answer once, on another thread, for every request that asked at once', async () => {
  const reader = new BodyReader(48 * 1024 * 1024);
  const identity = Buffer.from(JSON.stringify(Array.from({ length: 40_000 }, (_, i) => ({ i, price: (i * 7919) % 1000 / 7 }))));
  assert.ok(identity.length > 1024 * 1024);
  for (const encoding of ['br', 'gzip'] as const) {
    const asked = Array.from({ length: AT_ONCE }, () => reader.assembled(identity, encoding));
    assert.ok(asked.every((body) => body instanceof Promise), 'no request compresses it on the event loop');
    const bodies = await Promise.all(asked);
    assert.ok(bodies.every((body) => body.bytes === bodies[0].bytes), 'one compression, one buffer');
    assert.equal(encoding === 'br' ? brotliDecompressSync(bodies[0].bytes) : gunzipSync(bodies[0].bytes), identity);
    const again = reader.assembled(identity, encoding);
    assert.ok(!(again instanceof Promise) && again.bytes === bodies[0].bytes, 'then from the cache, at once');
  }
  const small = reader.assembled(Buffer.from('{"tier":"pro","data":[]}'), 'br');
  assert.ok(!(small instanceof Promise), 'a small answer is compressed at once');
});

sharing.run();
