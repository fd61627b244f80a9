/**
 * The committed sample, built now, serves exactly the bodies it served before the pack stopped
 * storing identity bytes (format 1): `fixtures/sample-bodies.json` holds, per route, the count
 * and a digest of every entry name with the content hash of its body, as format 1 served them,
 * and a digest of every measurements answer its fragments make (format 1 stored them raw).
 * Every stored variant is decoded here and hashed, so "the same hash" means the same bytes.
 *
 * When the sample data changes on purpose, regenerate the file: UPDATE_SAMPLE_BODIES=1.
 *
 * The build is the run's shared one (test/helpers/sample.ts), read only.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { contentHash, MANIFEST_FILE, PACK_FILE, readAllEntries, variantOf, type CheckedSpan, type Manifest } from '../../src/shared/manifest.ts';
import { oneMonthBefore } from '../../src/shared/dates.ts';
import { assembleMeasurements, type MeasurementIndex } from '../../src/shared/measurements.ts';
import { ROOT } from '../helpers/process.ts';
import { sampleSnapshot } from '../helpers/sample.ts';

const GOLDEN = join(ROOT, 'test/fixtures/sample-bodies.json');

interface Golden {
  as_of: string;
  page_size: number;
  routes: Record<string, { entries: number; digest: string }>;
  /** Every measurements answer the fragments make, from the first day they keep. */
  measurements: { answers: number; digest: string };
}

/** The widest measurements answer of every fragment, each hashed, all digested in key order. */
function measurementAnswers(pack: Buffer, manifest: Manifest): Golden['measurements'] {
  const since = oneMonthBefore(Date.parse(manifest.as_of));
  const digest = createHash('sha256');
  const keys = Object.keys(manifest.fragments).sort();
  for (const key of keys) {
    const { data, index } = manifest.fragments[key];
    const inflate = ([offset, length]: CheckedSpan) => gunzipSync(pack.subarray(offset, offset + length));
    const answer = assembleMeasurements(JSON.parse(inflate(index).toString('utf8')) as MeasurementIndex, inflate(data), since);
    digest.update(`${key}\t${createHash('sha256').update(answer).digest('hex')}\n`);
  }
  return { answers: keys.length, digest: digest.digest('hex') };
}

const bodies = suite('the sample snapshot, body by body');

bodies('should serve every body of the committed sample byte for byte as the previous format did, in every encoding', async () => {
  const { buildDir } = await sampleSnapshot();
  const manifest = JSON.parse(readFileSync(join(buildDir, MANIFEST_FILE), 'utf8')) as Manifest;
  const pack = readFileSync(join(buildDir, PACK_FILE));
  const entries = readAllEntries(buildDir, manifest);
  const lines = new Map<string, string[]>();
  const checked = new Set<string>();
  for (const [key, entry] of entries) {
    const routeId = key.slice(0, key.indexOf(' '));
    // The front door and a model's history name their builds, whose ids carry the digest of the build's code, so
    // their bytes differ from build to build (test/front-door.test.ts and test/http/changes.test.ts check them).
    if (routeId === 'index' || routeId === 'index.api' || routeId === 'language.model.history') continue;
    if (!lines.has(routeId)) lines.set(routeId, []);
    lines.get(routeId)!.push(`${key}\t${entry[0]}\n`);
    if (checked.has(entry[0])) continue;
    checked.add(entry[0]);
    const identity = variantOf(pack, entry, 'identity');
    assert.is(identity.length, entry[1], `${key}: identity length`);
    assert.is(contentHash(identity), entry[0], `${key}: identity bytes`);
    assert.ok(brotliDecompressSync(variantOf(pack, entry, 'br')).equals(identity), `${key}: br decodes to the identity bytes`);
  }
  const now: Golden = { as_of: manifest.as_of, page_size: manifest.page_size, routes: {}, measurements: measurementAnswers(pack, manifest) };
  for (const routeId of [...lines.keys()].sort()) {
    const sorted = lines.get(routeId)!.sort();
    now.routes[routeId] = { entries: sorted.length, digest: createHash('sha256').update(sorted.join('')).digest('hex') };
  }
  if (process.env.UPDATE_SAMPLE_BODIES === '1') writeFileSync(GOLDEN, `${JSON.stringify(now, null, 1)}\n`);
  const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Golden;
  assert.is(now.as_of, golden.as_of);
  assert.equal(Object.keys(now.routes), Object.keys(golden.routes), 'the same routes');
  for (const [routeId, expected] of Object.entries(golden.routes)) assert.equal(now.routes[routeId], expected, `${routeId}: the same keys answered by the same bodies`);
  assert.equal(now.measurements, golden.measurements, 'every provider and prompt type: the same measurements answer');
});

bodies.run();
