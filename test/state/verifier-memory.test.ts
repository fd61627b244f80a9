/**
 * The background check of a whole build reads the pack a chunk at a time. Those reads must not
 * pile up outside the heap: memory held by Buffers is collected only when V8 sees enough of it
 * (some 64 MB past its last limit), so a fresh buffer a chunk once let the check of the sample's
 * pack raise the server's peak resident memory at start-up by about 25 MB.
 *
 * Measured against the same process's figure just before the check, so the bound says what the
 * check adds, whatever the test runner holds: the route indexes it keeps, a chunk, and room to
 * spare, far below the pack's size.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { indexFile, MANIFEST_FILE, PACK_FILE, type Manifest } from '../../src/shared/manifest.ts';
import { Snapshot } from '../../src/snapshot/snapshot.ts';
import { BuildVerifier } from '../../src/snapshot/verifier.ts';
import { sampleSnapshot } from '../helpers/sample.ts';

const MB = 1024 * 1024;
const test = suite('verifier memory');

test('checking the whole sample pack holds a chunk at a time, not the pack', async () => {
  const sample = await sampleSnapshot();
  const packBytes = statSync(join(sample.buildDir, PACK_FILE)).size;
  const manifest = JSON.parse(readFileSync(join(sample.buildDir, MANIFEST_FILE), 'utf8')) as Manifest;
  const indexBytes = manifest.indexes.reduce((sum, routeId) => sum + statSync(join(sample.buildDir, indexFile(routeId))).size, 0);
  assert.ok(packBytes > 64 * MB, `the sample's pack (${(packBytes / MB).toFixed(1)} MB) is larger than V8's external-memory allowance, or this test proves nothing`);

  const snapshot = await Snapshot.open(sample.buildDir);
  const before = process.memoryUsage().arrayBuffers;
  let peak = before;
  let checking = true;
  // The check pauses with setImmediate while the server is quiet, so this sampler runs between its chunks.
  const sampleMemory = () => {
    peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    if (checking) setImmediate(sampleMemory);
  };
  setImmediate(sampleMemory);
  const verifier = new BuildVerifier(snapshot, () => true);
  const state = await verifier.done;
  checking = false;
  await snapshot.pack.close();

  assert.is(state, 'verified');
  assert.is(verifier.status().bytesChecked, verifier.status().bytes);
  const grown = peak - before;
  const allowance = indexBytes + 8 * MB;
  assert.ok(grown < allowance, `the check held ${(grown / MB).toFixed(1)} MB outside the heap at its peak; its indexes are ${(indexBytes / MB).toFixed(1)} MB (allowed ${(allowance / MB).toFixed(1)} MB of a ${(packBytes / MB).toFixed(1)} MB pack)`);
});

test.run();
