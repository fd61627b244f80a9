import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CompressPool } from '../../../../build/pack/compress-pool.ts';

const pool = suite('compress pool');

const bodyOf = (items: number) => Buffer.from(JSON.stringify({ data: Array.from({ length: items }, (_, i) => ({ id: i, slug: `model-${i}`, score: (i * 7919) % 1000 })) }));

pool('should give back gzip and brotli variants that inflate to the body, each owning exactly its bytes', async () => {
  const compressor = new CompressPool({ gzip: 6, brotli: 6 }, 2);
  try {
    // Small, a zlib chunk's worth and several chunks' worth of output.
    for (const items of [1, 400, 20_000]) {
      const body = bodyOf(items);
      const [gz, br] = await compressor.compress(Buffer.from(body));
      assert.equal(gunzipSync(gz), body, `gzip of ${body.length} bytes`);
      assert.equal(brotliDecompressSync(br), body, `br of ${body.length} bytes`);
      // A view of a larger array would be zlib's whole output chunk, cloned to this thread.
      for (const variant of [gz, br]) {
        assert.is(variant.byteOffset, 0);
        assert.is(variant.buffer.byteLength, variant.length, `a ${variant.length}-byte variant holds ${variant.buffer.byteLength} bytes`);
      }
    }
  } finally {
    await compressor.close();
  }
});

pool('should gzip or brotli a fragment alone, byte for byte what zlib makes on this thread, owning exactly its bytes', async () => {
  const compressor = new CompressPool({ gzip: 6, brotli: 6 }, 2);
  try {
    for (const items of [1, 20_000]) {
      const fragment = bodyOf(items);
      // Handed over as the build hands it: a buffer that owns its memory moves to the worker.
      const gz = await compressor.only(Buffer.from(fragment), 'gzip');
      assert.equal(gz, gzipSync(fragment, { level: 6 }), `gzip of ${fragment.length} bytes`);
      assert.is(gz.buffer.byteLength, gz.length, `a ${gz.length}-byte gzip holds ${gz.buffer.byteLength} bytes`);
      const br = await compressor.only(Buffer.from(fragment), 'br');
      assert.equal(brotliDecompressSync(br), Buffer.from(fragment), `brotli of ${fragment.length} bytes`);
      assert.is(br.buffer.byteLength, br.length);
    }
  } finally {
    await compressor.close();
  }
});

pool.run();
