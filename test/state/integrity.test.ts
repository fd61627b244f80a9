/**
 * Stored bytes that rot: a byte flipped in each kind of stored part (br variant, gzip variant,
 * measurement fragment, route index file), before the server starts and under a running one,
 * a corrupt build switched in, a build folder removed. Never a 200 with wrong bytes, never a
 * 500; another acceptable encoding stands in when one exists, else a 503; /readyz says why.
 */
import { closeSync, cpSync, openSync, readFileSync, readlinkSync, readSync, renameSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { contentHash, MANIFEST_FILE, PACK_FILE, readRouteIndex, spanOf, indexFile, type IndexEntry, type Manifest } from '../../src/shared/manifest.ts';
import { get, type Reply } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

const PROVIDER = 'capstan-serve';

function manifestOf(buildDir: string): Manifest {
  return JSON.parse(readFileSync(join(buildDir, MANIFEST_FILE), 'utf8')) as Manifest;
}

function currentBuild(snapshotDir: string): string {
  return join(snapshotDir, readlinkSync(join(snapshotDir, 'current')));
}

function entryOf(buildDir: string, routeId: string, name: string): IndexEntry {
  const entry = readRouteIndex(buildDir, manifestOf(buildDir), routeId)?.[name];
  if (!entry) throw new Error(`no entry ${name} in ${buildDir}`);
  return entry;
}

/** Flip every bit of one byte of a file, in place. */
function flipByte(path: string, offset: number): void {
  const fd = openSync(path, 'r+');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, offset);
    byte[0] ^= 0xff;
    writeSync(fd, byte, 0, 1, offset);
  } finally {
    closeSync(fd);
  }
}

/** Flip a byte in the middle of a stored part of the pack. */
function flipInPack(buildDir: string, [offset, length]: readonly (number | string)[]): void {
  flipByte(join(buildDir, PACK_FILE), (offset as number) + Math.floor((length as number) / 2));
}

/** A 200's body decoded as sent; its ETag must name exactly these bytes (the build's content hash). */
function checkedBody(reply: Reply): Buffer {
  const encoding = reply.headers['content-encoding'];
  const identity = encoding === 'br' ? brotliDecompressSync(reply.body) : encoding === 'gzip' ? gunzipSync(reply.body) : reply.body;
  const mark = encoding === 'br' ? '-br' : encoding === 'gzip' ? '-gz' : '';
  assert.is(reply.headers.etag, `"${contentHash(identity)}${mark}"`, 'the ETag names the bytes sent');
  return identity;
}

const atStart = suite('corrupt bytes in the build a server starts with');
let t: TestServer;
/** The content hash (the identity bytes' ETag) of each damaged body. */
const damaged: Record<string, string> = {};

atStart.before(async () => {
  t = await startTestServer({
    keys: { free: { tier: 'free', org: 'f' }, pro: { tier: 'pro', org: 'p' }, commercial: { tier: 'commercial', org: 'c', grants: [PROVIDER] } },
    server: { metrics: true },
    beforeStart: ({ snapshotDir }) => {
      const build = currentBuild(snapshotDir);
      const freeList = entryOf(build, 'language.models.free', 'language.models.free free page=1');
      flipInPack(build, spanOf(freeList, 'br'));
      damaged.br = freeList[0];
      const proList = entryOf(build, 'language.models.free', 'language.models.free pro page=1');
      flipInPack(build, spanOf(proList, 'gzip'));
      damaged.gzip = proList[0];
      flipInPack(build, manifestOf(build).fragments[`language.provider.measurements commercial prompt_type=medium slug=${PROVIDER}`].data);
      flipByte(join(build, indexFile('language.providers')), 40);
    },
  });
});
atStart.after(() => t.close());

atStart('should send another encoding the client accepts when its first choice fails its checksum', async () => {
  const fallback = await get(t.url, '/api/v2/language/models/free', t.keys.free, { 'accept-encoding': 'br, gzip' });
  assert.is(fallback.status, 200);
  assert.is(fallback.headers['content-encoding'], 'gzip');
  assert.is(contentHash(checkedBody(fallback)), damaged.br);
  const plain = await get(t.url, '/api/v2/language/models/free', t.keys.free, { 'accept-encoding': 'br' });
  assert.is(plain.status, 200);
  assert.is(plain.headers['content-encoding'], undefined, 'identity (acceptable unless refused), inflated from the gzip variant that checks out');
  assert.is(contentHash(checkedBody(plain)), damaged.br);
});

atStart('should make identity from the br variant when the gzip one fails', async () => {
  for (const encoding of ['gzip', 'identity']) {
    const reply = await get(t.url, '/api/v2/language/models/free', t.keys.pro, { 'accept-encoding': encoding });
    assert.is(reply.status, 200, encoding);
    assert.is(reply.headers['content-encoding'], undefined, encoding);
    assert.is(contentHash(checkedBody(reply)), damaged.gzip);
  }
  const br = await get(t.url, '/api/v2/language/models/free', t.keys.pro, { 'accept-encoding': 'br' });
  assert.is(br.headers['content-encoding'], 'br', 'the variant that checks out is sent as asked');
  assert.is(contentHash(checkedBody(br)), damaged.gzip);
});

atStart('should answer 503, uncounted, when no acceptable variant checks out', async () => {
  const before = await get(t.url, '/api/v2/language/models/free', t.keys.free, { 'accept-encoding': 'gzip' });
  const refused = await get(t.url, '/api/v2/language/models/free', t.keys.free, { 'accept-encoding': 'br, identity;q=0' });
  assert.is(refused.status, 503);
  assert.match(refused.json().error, /integrity check/);
  assert.ok(Number(refused.headers['retry-after']) > 0);
  const after = await get(t.url, '/api/v2/language/models/free', t.keys.free, { 'accept-encoding': 'gzip' });
  assert.is(Number(after.headers['x-ratelimit-remaining']), Number(before.headers['x-ratelimit-remaining']) - 1, 'only the 200 after it was counted');
});

atStart('should answer 503 for a corrupt fragment or route index, never a 200 or a 500', async () => {
  const measurements = await get(t.url, `/api/v2/language/providers/${PROVIDER}/measurements?prompt_type=medium`, t.keys.commercial);
  assert.is(measurements.status, 503, measurements.text);
  const providers = await get(t.url, '/api/v2/language/providers', t.keys.commercial);
  assert.is(providers.status, 503, providers.text);
  assert.match(providers.json().error, /integrity check/);
});

atStart('should report the build not ready, count each corrupt part once and log it once', async () => {
  await until(() => t.running.snapshots.verification().state !== 'verifying', 'the background check of the build ends');
  const ready = await get(t.url, '/readyz');
  assert.is(ready.status, 503);
  const { details } = ready.json();
  assert.match(details.reason, new RegExp(`build ${t.running.snapshots.current.buildId} is corrupt: 4 stored parts fail their checksum`));
  assert.is(details.verification.state, 'corrupt');
  const metrics = (await get(t.url, '/metrics')).text;
  assert.match(metrics, /^bda_snapshot_corrupt_parts_total 4$/m);
  const partLines = t.errors.filter((line) => line.includes('fails its checksum; not served'));
  assert.is(partLines.length, 4, partLines.join('\n'));
  assert.is(t.errors.filter((line) => line.startsWith('not ready: build')).length, 1, 'the condition is logged once');
  for (const part of [`br variant of body ${damaged.br}`, `gzip variant of body ${damaged.gzip}`, `records fragment of language.provider.measurements commercial prompt_type=medium slug=${PROVIDER}`, 'index file index/language.providers.json']) {
    assert.ok(partLines.some((line) => line.includes(part)), `logged: ${part}`);
  }
});

atStart.run();

const running = suite('corrupt bytes under a running server');
let r: TestServer;
running.before(async () => {
  r = await startTestServer();
});
running.after(() => r.close());

running('should never switch to a build that fails its check, and not check it again until it changes', async () => {
  const before = r.running.snapshots.current;
  const copy = join(r.snapshotDir, 'corrupt-copy');
  cpSync(before.dir, copy, { recursive: true });
  flipInPack(copy, spanOf(entryOf(copy, 'language.models', 'language.models pro prompt_type=medium page=1'), 'gzip'));
  const link = join(r.snapshotDir, 'current');
  symlinkSync(copy, `${link}.tmp`);
  renameSync(`${link}.tmp`, link);
  await r.running.snapshots.check();
  assert.is(r.running.snapshots.current, before, 'kept the build it had');
  assert.equal(
    r.errors.filter((line) => line.startsWith('keeping snapshot')),
    [`keeping snapshot ${before.buildId}: build ${manifestOf(copy).build_id} is corrupt: 1 stored part fails its checksum (gzip variant of body ${entryOf(copy, 'language.models', 'language.models pro prompt_type=medium page=1')[0]}); rebuild it (npm run build -- --force)`],
  );
  await r.running.snapshots.check();
  assert.is(r.errors.filter((line) => line.startsWith('keeping snapshot')).length, 1, 'a rejected build is not checked, nor logged, again');
  const ready = await get(r.url, '/readyz');
  assert.is(ready.status, 200, 'the build it serves is sound');
  const reply = await get(r.url, '/api/v2/language/models?prompt_type=medium', r.keys.pro, { 'accept-encoding': 'gzip' });
  assert.is(reply.status, 200);
  checkedBody(reply);
  // A sound build is switched in as usual.
  await r.rebuild(true);
  await r.running.snapshots.check();
  assert.is.not(r.running.snapshots.current, before);
  r.errors.length = 0;
});

running('should never switch to a build whose manifest fails its checksum', async () => {
  const before = r.running.snapshots.current;
  const copy = join(r.snapshotDir, `${before.buildId}-manifest-rot`);
  cpSync(before.dir, copy, { recursive: true });
  // The manifest holds served bytes too (the empty-page templates): a changed byte is as bad as a flipped bit of the pack.
  const path = join(copy, MANIFEST_FILE);
  const text = readFileSync(path, 'utf8');
  writeFileSync(path, text.replace('"page_size":200', '"page_size":900'));
  const link = join(r.snapshotDir, 'current');
  symlinkSync(copy, `${link}.tmp`);
  renameSync(`${link}.tmp`, link);
  await r.running.snapshots.check();
  assert.is(r.running.snapshots.current, before);
  assert.ok(r.errors.some((line) => line === `keeping snapshot ${before.buildId}: ${path} fails its checksum`), r.errors.join('\n'));
  await r.rebuild(true);
  await r.running.snapshots.check();
  assert.is.not(r.running.snapshots.current, before);
  r.errors.length = 0;
});

running('should check bytes that rot in the served pack when they are first read', async () => {
  const build = r.running.snapshots.current.dir;
  const name = Object.keys(readRouteIndex(build, manifestOf(build), 'language.model')!).find((key) => key.startsWith('language.model pro prompt_type=medium '))!;
  const slug = /slug=([^ ]+)/.exec(name)![1];
  const entry = entryOf(build, 'language.model', name);
  flipInPack(build, spanOf(entry, 'br'));
  const reply = await get(r.url, `/api/v2/language/models/${slug}?prompt_type=medium`, r.keys.pro, { 'accept-encoding': 'br, gzip' });
  assert.is(reply.status, 200);
  assert.is(reply.headers['content-encoding'], 'gzip');
  assert.is(contentHash(checkedBody(reply)), entry[0]);
  const ready = await get(r.url, '/readyz');
  assert.is(ready.status, 503);
  assert.match(ready.json().details.reason, /is corrupt: 1 stored part fails its checksum \(br variant of body/);
  // A fragment that rots is met when a measurements answer is first assembled from it.
  const granted = r.addKey('granted', { tier: 'commercial', org: 'g', grants: [PROVIDER] });
  flipInPack(build, manifestOf(build).fragments[`language.provider.measurements commercial prompt_type=long slug=${PROVIDER}`].index);
  const measurements = await get(r.url, `/api/v2/language/providers/${PROVIDER}/measurements?prompt_type=long`, granted);
  assert.is(measurements.status, 503, measurements.text);
  assert.match((await get(r.url, '/readyz')).json().details.reason, /is corrupt: 2 stored parts fail their checksum/);
  // A rebuild from the same inputs notices the rot and builds again; the server takes it and is ready.
  const rebuilt = await r.rebuild(false);
  assert.ok(rebuilt.built, 'not "up to date": the current build fails its check');
  await r.running.snapshots.check();
  assert.is((await get(r.url, '/readyz')).status, 200);
  const again = await get(r.url, `/api/v2/language/models/${slug}?prompt_type=medium`, r.keys.pro, { 'accept-encoding': 'br' });
  assert.is(again.headers['content-encoding'], 'br');
  assert.is(contentHash(checkedBody(again)), entry[0]);
  r.errors.length = 0;
});

running('should answer 503, never 500, and report not ready when the build folder is removed under it', async () => {
  await r.rebuild(true);
  await r.running.snapshots.check();
  rmSync(r.running.snapshots.current.dir, { recursive: true });
  await r.running.snapshots.check();
  const ready = await get(r.url, '/readyz');
  assert.is(ready.status, 503);
  assert.match(ready.json().details.reason, /cannot be read: cannot read .*manifest\.json: ENOENT/);
  for (const path of ['/api/v2/language/models', '/api/v2/language/providers', '/api/v2/data/media/text-to-image', '/api/v2/critpt/problems', '/api/v2/data/llms/models']) {
    const reply = await get(r.url, path, r.keys.commercial);
    // What the server loaded before the folder went is still served, checked; what it had not, is a 503.
    assert.ok(reply.status === 200 || reply.status === 503, `${path}: ${reply.status}`);
    if (reply.status === 200) checkedBody(reply);
  }
  await r.rebuild(true);
  await r.running.snapshots.check();
  assert.is((await get(r.url, '/readyz')).status, 200, 'ready again once a build that reads is current');
});

running.run();
