import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HeldChunks, heldReleases, holdingFrom, servedFolder, readChunk } from '../../../../src/pull/held-chunks.ts';
import { chunkLengths } from '../../../../src/shared/chunks.ts';
import {
  newSigningKey,
  RELEASE_FILE,
  RELEASE_FORMAT,
  signingKeyOf,
  signRelease,
  type Release,
  type ReleaseChunk,
  type ReleaseFile,
} from '../../../../src/shared/release.ts';
import { sha256 } from '../../../../src/shared/sha256.ts';
import { seededRandom } from '../../../helpers/random.ts';

const next = seededRandom(7);

function randomBytes(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(next() * 256);
  return bytes;
}

/** A file of a release: its bytes cut into chunks as the publisher cuts them. */
function releaseFile(path: string, bytes: Buffer): ReleaseFile {
  const chunks: ReleaseChunk[] = [];
  let offset = 0;
  for (const length of chunkLengths(bytes)) {
    chunks.push([sha256(bytes.subarray(offset, offset + length), 'hex'), length, 0]);
    offset += length;
  }
  return { path, size: bytes.length, sha256: sha256(bytes, 'hex'), chunks };
}

function aRelease(files: ReleaseFile[], over: Partial<Release> = {}): Release {
  return {
    release_format: RELEASE_FORMAT,
    snapshot_format: 1,
    build_id: 'b1',
    version: 1,
    published_at: '2026-11-27T10:00:00.000Z',
    expires: '2026-12-11T10:00:00.000Z',
    files,
    ...over,
  };
}

/** A tmp folder for `test`, removed after. */
async function inTmp(test: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'held-chunks-'));
  try {
    await test(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A build folder under `dir` holding `bodies.pack` and `index/r.json`; its release and the files' bytes. */
function aBuild(dir: string) {
  const pack = randomBytes(400_000);
  const index = Buffer.from(JSON.stringify({ route: 'r', entries: [1, 2, 3] }));
  mkdirSync(join(dir, 'index'), { recursive: true });
  writeFileSync(join(dir, 'bodies.pack'), pack);
  writeFileSync(join(dir, 'index', 'r.json'), index);
  const release = aRelease([releaseFile('bodies.pack', pack), releaseFile('index/r.json', index)]);
  return { pack, index, release };
}

/** Each chunk of a release file and its bytes. */
function pieces(file: ReleaseFile, bytes: Buffer): Array<[ReleaseChunk, Buffer]> {
  let offset = 0;
  return file.chunks.map((chunk) => {
    offset += chunk[1];
    return [chunk, bytes.subarray(offset - chunk[1], offset)];
  });
}

const held = suite('HeldChunks');

held("should read back every chunk of a release's files, from where it lies in its file", async () => {
  await inTmp(async (dir) => {
    const { pack, index, release } = aBuild(dir);
    const chunks = new HeldChunks();
    chunks.add(release, dir);
    assert.ok(release.files[0].chunks.length > 3, 'the pack is cut in several chunks');
    for (const [file, bytes] of [
      [release.files[0], pack],
      [release.files[1], index],
    ] as const)
      for (const [[sum, length], expected] of pieces(file, bytes))
        assert.equal(await chunks.read(sum, length), expected);
  });
});

held('should not hold a chunk it was never told of, or one asked for at another length', async () => {
  await inTmp(async (dir) => {
    const { release } = aBuild(dir);
    const chunks = new HeldChunks();
    assert.is(await chunks.read(release.files[0].chunks[0][0], release.files[0].chunks[0][1]), null, 'nothing added');
    chunks.add(release, dir);
    assert.is(await chunks.read('0'.repeat(64), 10), null);
    const [sum, length] = release.files[0].chunks[0];
    assert.is(await chunks.read(sum, length - 1), null);
  });
});

held('should not give the bytes of a chunk changed on disk since, only those of the others', async () => {
  await inTmp(async (dir) => {
    const { pack, release } = aBuild(dir);
    const chunks = new HeldChunks();
    chunks.add(release, dir);
    const [first, second] = pieces(release.files[0], pack);
    const flipped = Buffer.from(pack);
    flipped[first[0][1] + 5] ^= 1; // a byte of the second chunk
    writeFileSync(join(dir, 'bodies.pack'), flipped);
    assert.is(await chunks.read(second[0][0], second[0][1]), null);
    assert.equal(await chunks.read(first[0][0], first[0][1]), first[1]);
  });
});

held('should not hold a chunk whose file is gone or too short now', async () => {
  await inTmp(async (dir) => {
    const { pack, release } = aBuild(dir);
    const chunks = new HeldChunks();
    chunks.add(release, dir);
    const [first, second] = pieces(release.files[0], pack);
    writeFileSync(join(dir, 'bodies.pack'), pack.subarray(0, first[0][1] + 10));
    assert.is(await chunks.read(second[0][0], second[0][1]), null, 'short');
    assert.equal(await chunks.read(first[0][0], first[0][1]), first[1]);
    rmSync(join(dir, 'bodies.pack'));
    assert.is(await chunks.read(first[0][0], first[0][1]), null, 'gone');
  });
});

held('should keep the first place a chunk was added at', async () => {
  await inTmp(async (dir) => {
    const bytes = randomBytes(1000);
    const file = releaseFile('a.bin', bytes);
    mkdirSync(join(dir, 'one'));
    mkdirSync(join(dir, 'two'));
    writeFileSync(join(dir, 'one', 'a.bin'), bytes);
    writeFileSync(join(dir, 'two', 'a.bin'), bytes);
    const chunks = new HeldChunks();
    chunks.add(aRelease([file]), join(dir, 'one'));
    chunks.add(aRelease([file]), join(dir, 'two'));
    rmSync(join(dir, 'two', 'a.bin'));
    assert.equal(await chunks.read(file.chunks[0][0], 1000), bytes);
  });
});

const read = suite('readChunk');

read('should read the bytes at an offset only when they have the checksum', async () => {
  await inTmp(async (dir) => {
    const path = join(dir, 'f');
    writeFileSync(path, 'hello, world');
    assert.equal(await readChunk(path, 7, 5, sha256('world', 'hex')), Buffer.from('world'));
    assert.is(await readChunk(path, 7, 5, sha256('World', 'hex')), null);
    assert.is(await readChunk(path, 7, 6, sha256('world', 'hex')), null, 'past the end');
    assert.is(await readChunk(join(dir, 'missing'), 0, 5, sha256('hello', 'hex')), null);
    assert.is(await readChunk(dir, 0, 5, sha256('hello', 'hex')), null, 'a folder');
  });
});

const releases = suite('heldReleases');

releases('should read the release of each build folder that has one, and skip the rest', async () => {
  await inTmp(async (root) => {
    const key = signingKeyOf(newSigningKey().privatePem);
    const b1 = aRelease([releaseFile('manifest.json', Buffer.from('{}'))], { build_id: 'b1', version: 1 });
    const b2 = aRelease([releaseFile('manifest.json', Buffer.from('{"a":1}'))], { build_id: 'b2', version: 2 });
    for (const [folder, release] of [
      ['b1', b1],
      ['b2', b2],
      ['.pull-b3', b1],
    ] as const) {
      mkdirSync(join(root, folder));
      writeFileSync(join(root, folder, RELEASE_FILE), signRelease(release, key));
    }
    mkdirSync(join(root, 'made-here'));
    writeFileSync(join(root, 'made-here', 'manifest.json'), '{}');
    mkdirSync(join(root, 'broken'));
    writeFileSync(join(root, 'broken', RELEASE_FILE), '{"payload":');
    writeFileSync(join(root, RELEASE_FILE), signRelease(b1, key));
    writeFileSync(join(root, 'current'), 'b2');
    const found = await heldReleases(root);
    assert.equal([...found.keys()].sort(), ['b1', 'b2']);
    assert.equal(found.get('b1'), b1);
    assert.equal(found.get('b2'), b2);
  });
});

releases('should find none in a folder that does not exist', async () => {
  await inTmp(async (root) => {
    assert.equal(await heldReleases(join(root, 'missing')), new Map());
  });
});

const holding = suite('holdingFrom');

/** What a server holds, as the puller reads it from its snapshot folder. */
const holdingOf = async (root: string) => holdingFrom(await heldReleases(root), await servedFolder(root));

holding(
  "should name the served build's release and the highest version held, or none for a build made here",
  async () => {
    await inTmp(async (root) => {
      const key = signingKeyOf(newSigningKey().privatePem);
      const older = aRelease([releaseFile('manifest.json', Buffer.from('{}'))], { build_id: 'b1', version: 3 });
      const newer = aRelease([releaseFile('manifest.json', Buffer.from('{"a":1}'))], { build_id: 'b2', version: 5 });
      assert.equal(await holdingOf(root), { current: null, highest: 0 }, 'an empty folder holds nothing');
      for (const release of [older, newer]) {
        mkdirSync(join(root, release.build_id));
        writeFileSync(join(root, release.build_id, RELEASE_FILE), signRelease(release, key));
      }
      symlinkSync('b1', join(root, 'current'));
      assert.equal(await holdingOf(root), { current: older, highest: 5 }, 'a rolled-back current keeps the highest');
      mkdirSync(join(root, 'made-here'));
      rmSync(join(root, 'current'));
      symlinkSync('made-here', join(root, 'current'));
      assert.equal(await holdingOf(root), { current: null, highest: 5 });
    });
  },
);

held.run();
read.run();
releases.run();
holding.run();
