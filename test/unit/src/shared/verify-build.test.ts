import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checksumOf, indexEntry, indexFile, MANIFEST_FORMAT, manifestText, parseManifest, type CheckedSpan, type Manifest, type RouteIndex } from '../../../../src/shared/manifest.ts';
import { corruptionSummary, newProgress, verification, type Need } from '../../../../src/shared/verify-build.ts';

/** A build in memory: a pack of five parts, two route indexes sharing one body, one fragment. */
function tinyBuild() {
  const parts = ['gzip-a', 'br-a', 'gzip-b', 'br-bb', 'fragment-records'].map((text) => Buffer.from(text.repeat(10)));
  const pack = Buffer.concat(parts);
  const spans: CheckedSpan[] = [];
  let offset = 0;
  for (const part of parts) {
    spans.push([offset, part.length, checksumOf(part)]);
    offset += part.length;
  }
  const files = new Map<string, Buffer>();
  const index = (routeId: string, value: RouteIndex) => files.set(indexFile(routeId), Buffer.from(JSON.stringify(value)));
  index('r.list', { 'r.list free page=1': indexEntry('A', 100, spans[0], spans[1]), 'r.list pro page=1': indexEntry('B', 90, spans[2], spans[3]) });
  index('r.detail', { 'r.detail free slug=a': indexEntry('A', 100, spans[0], spans[1]) });
  const manifest = {
    indexes: ['r.list', 'r.detail'],
    index_sums: Object.fromEntries([...files].map(([file, bytes]) => [file.replace(/^index\/(.*)\.json$/, '$1'), checksumOf(bytes)])),
    fragments: { 'r.measurements commercial slug=x': { data: spans[4], index: spans[4] } },
  } as unknown as Manifest;
  return { pack, files, manifest, spans };
}

/** Run the walk over in-memory files; the reads it asked for and the parts it found corrupt. */
function walk(build: ReturnType<typeof tinyBuild>, chunkBytes?: number) {
  const reads: Need[] = [];
  const corrupt: string[] = [];
  const indexes: string[] = [];
  const progress = newProgress(build.manifest);
  const steps = verification(build.manifest, progress, { corrupt: (part) => corrupt.push(part), index: (routeId) => indexes.push(routeId) }, chunkBytes);
  for (let step = steps.next(); !step.done; ) {
    const need = step.value;
    reads.push(need);
    step = steps.next('file' in need ? build.files.get(need.file)! : build.pack.subarray(need.span[0], need.span[0] + need.span[1]));
  }
  return { reads, corrupt, indexes, progress };
}

const walkSuite = suite('verification');

walkSuite('should pass a sound build, checking each stored part once', () => {
  const build = tinyBuild();
  const { corrupt, indexes, progress, reads } = walk(build);
  assert.equal(corrupt, []);
  assert.equal(indexes, ['r.list', 'r.detail']);
  assert.equal(progress, { indexesChecked: 2, indexes: 2, bytesChecked: build.pack.length, bytes: build.pack.length }, 'the shared body and the fragment named twice count once');
  assert.equal(reads.filter((need) => 'span' in need).length, 1, 'small neighbouring parts are read in one chunk');
});

walkSuite('should read chunks no larger than asked, unless one part is larger alone', () => {
  const build = tinyBuild();
  const { reads, corrupt } = walk(build, 100);
  assert.equal(corrupt, []);
  const lengths = reads.flatMap((need) => ('span' in need ? [need.span[1]] : []));
  assert.ok(lengths.length > 1);
  const largest = Math.max(...build.spans.map((span) => span[1]));
  for (const length of lengths) assert.ok(length <= Math.max(100, largest), `a read of ${length} bytes`);
  assert.is(lengths.reduce((a, b) => a + b, 0), build.pack.length);
});

walkSuite('should name every part that fails and go on', () => {
  const build = tinyBuild();
  build.pack[build.spans[1][0] + 3] ^= 1;
  build.pack[build.spans[4][0]] ^= 1;
  const { corrupt, progress } = walk(build);
  assert.equal(corrupt, ['br variant of body A', 'records fragment of r.measurements commercial slug=x']);
  assert.is(progress.bytesChecked, progress.bytes);
  assert.is(corruptionSummary('b1', corrupt), 'build b1 is corrupt: 2 stored parts fail their checksum (br variant of body A, ...)');
});

walkSuite('should not trust the entries of an index file that fails its checksum', () => {
  const build = tinyBuild();
  const file = build.files.get(indexFile('r.list'))!;
  build.files.set(indexFile('r.list'), Buffer.from(file.toString().replace('"B"', '"C"')));
  const { corrupt, indexes, progress } = walk(build);
  assert.equal(corrupt, ['index file index/r.list.json']);
  assert.equal(indexes, ['r.detail']);
  assert.is(progress.bytes, build.spans[0][1] + build.spans[1][1] + build.spans[4][1], 'only the parts the sound index and the manifest name');
});

walkSuite('should find the parts past the end of a pack cut short', () => {
  const build = tinyBuild();
  const short = { ...build, pack: build.pack.subarray(0, build.spans[4][0] + 5) };
  assert.equal(walk(short).corrupt, ['records fragment of r.measurements commercial slug=x']);
});

walkSuite.run();

const sealed = suite('manifestText and parseManifest');

sealed('should read back what it wrote, and refuse a manifest whose text changed or carries no checksum', () => {
  const manifest = { format: MANIFEST_FORMAT, build_id: 'b1', page_size: 200, empty_pages: { 'r.list free page=*': { before: '{"page":', after: '}' } } } as unknown as Manifest;
  const text = manifestText(manifest);
  assert.equal(parseManifest(text, 'm.json'), { ...manifest, manifest_sum: JSON.parse(text).manifest_sum });
  assert.throws(() => parseManifest(text.replace('"b1"', '"b2"'), 'm.json'), /m\.json fails its checksum/);
  assert.throws(() => parseManifest(JSON.stringify(manifest), 'm.json'), /m\.json fails its checksum/);
  assert.throws(() => parseManifest(JSON.stringify({ ...manifest, format: 2 }), 'm.json'), /m\.json has manifest format 2; this server reads format 3 \(rebuild it\)/);
});

sealed.run();
