/**
 * Publishing a build: its files cut into content-defined chunks (src/shared/chunks.ts), each
 * stored once under its checksum in `<to>/chunks/`, and a signed `<to>/release.json` naming them,
 * written last. The folder is what a static origin serves: every file but release.json is
 * immutable (a chunk's name is its content), so it can be cached forever and copied with any
 * tool, chunks first and release.json last. A chunk of text (the route index files, the
 * manifest) is stored gzip-compressed when that saves an eighth: the index files' offsets all
 * move when one body changes, and compressed they are a quarter of their size to send again.
 *
 * Every release gets the next version of the folder's last one and an expiry; a copy stays in
 * `<to>/releases/<version>.json`. Chunks no kept release names are removed.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chunkLengths } from '../../src/shared/chunks.ts';
import { MANIFEST_FILE, readManifest } from '../../src/shared/manifest.ts';
import {
  chunkPath,
  RELEASE_FILE,
  RELEASE_FORMAT,
  releaseSize,
  signRelease,
  unsignedRelease,
  type Release,
  type ReleaseChunk,
  type ReleaseFile,
} from '../../src/shared/release.ts';
import { sha256 } from '../../src/shared/sha256.ts';
import type { KeyObject } from 'node:crypto';

const RELEASES_DIR = 'releases';
/** Releases whose chunks stay on the origin: a server part way through pulling one of them still finds its chunks. */
export const RELEASES_KEPT = 3;
/** Days a release is valid by default: a weekly build renews it with a week to spare. */
export const RELEASE_VALID_DAYS = 14;
/** Files of the published folder are for everyone who may pull (the origin serves them as they are). */
const PUBLIC_FILE = 0o644;
const PUBLIC_DIR = 0o755;

export interface ReleaseOptions {
  /** The build folder (`<snapshot>/<build-id>`). */
  buildDir: string;
  /** The published folder. */
  to: string;
  signingKey: KeyObject;
  validDays: number;
  now: Date;
  log: (line: string) => void;
}

export interface Published {
  version: number;
  buildId: string;
  expires: string;
  /** Bytes of the build's files, and of the chunks this release stored anew (compressed as stored). */
  bytes: number;
  newBytes: number;
  chunks: number;
  newChunks: number;
  removedChunks: number;
}

/** The files of a build folder, by their path inside it: the manifest, the pack, the route indexes. */
function buildFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile()) files.push(entry.name);
    else if (entry.isDirectory())
      for (const inner of readdirSync(join(dir, entry.name), { withFileTypes: true }))
        if (inner.isFile()) files.push(`${entry.name}/${inner.name}`);
  }
  // The manifest first: a server reading a release learns the build before it fetches the pack.
  return files
    .filter((f) => f !== RELEASE_FILE)
    .sort((a, b) => (a === MANIFEST_FILE ? -1 : b === MANIFEST_FILE ? 1 : a < b ? -1 : 1));
}

/** Write a file whole under a temporary name and rename it into place: a reader never meets half a chunk. */
function writePublic(path: string, bytes: Buffer | string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, bytes, { mode: PUBLIC_FILE });
  renameSync(tmp, path);
}

/** Store one chunk unless it is there already (in either form); its entry in the release. */
function storeChunk(to: string, bytes: Buffer, stored: { bytes: number; chunks: number }): ReleaseChunk {
  const sum = sha256(bytes, 'hex');
  for (const gzipped of [0, 1] as const)
    if (existsSync(join(to, chunkPath([sum, bytes.length, gzipped])))) return [sum, bytes.length, gzipped];
  const packed = gzipSync(bytes, { level: 9 });
  const gzipped = packed.length < bytes.length * 0.875 ? 1 : 0;
  const chunk: ReleaseChunk = [sum, bytes.length, gzipped];
  const path = join(to, chunkPath(chunk));
  mkdirSync(join(path, '..'), { recursive: true, mode: PUBLIC_DIR });
  writePublic(path, gzipped ? packed : bytes);
  stored.bytes += gzipped ? packed.length : bytes.length;
  stored.chunks += 1;
  return chunk;
}

function fileEntry(to: string, buildDir: string, path: string, stored: { bytes: number; chunks: number }): ReleaseFile {
  const bytes = readFileSync(join(buildDir, path));
  const chunks: ReleaseChunk[] = [];
  let at = 0;
  for (const length of chunkLengths(bytes)) {
    chunks.push(storeChunk(to, bytes.subarray(at, at + length), stored));
    at += length;
  }
  return { path, size: bytes.length, sha256: sha256(bytes, 'hex'), chunks };
}

/** The version of the folder's last release (0 when it has none). */
function lastVersion(to: string): number {
  const path = join(to, RELEASE_FILE);
  return existsSync(path) ? unsignedRelease(readFileSync(path, 'utf8')).version : 0;
}

/** Remove chunks no kept release names, and releases past the kept ones. */
function pruneChunks(to: string): number {
  const dir = join(to, RELEASES_DIR);
  const versions = readdirSync(dir)
    .map((name) => /^(\d+)\.json$/.exec(name)?.[1])
    .filter((v): v is string => v !== undefined)
    .map(Number)
    .sort((a, b) => b - a);
  const kept = versions.slice(0, RELEASES_KEPT);
  const named = new Set<string>();
  for (const version of kept) {
    const release = unsignedRelease(readFileSync(join(dir, `${version}.json`), 'utf8'));
    for (const file of release.files) for (const chunk of file.chunks) named.add(chunkPath(chunk));
  }
  for (const version of versions.slice(RELEASES_KEPT)) rmSync(join(dir, `${version}.json`));
  let removed = 0;
  const chunks = join(to, 'chunks');
  for (const prefix of readdirSync(chunks))
    for (const name of readdirSync(join(chunks, prefix)))
      if (!named.has(`chunks/${prefix}/${name}`)) {
        rmSync(join(chunks, prefix, name), { force: true });
        removed++;
      }
  return removed;
}

/** Publish the build at `buildDir` into `to` as its next release (see the header). */
export function publishRelease(options: ReleaseOptions): Published {
  const { buildDir, to, now } = options;
  const manifest = readManifest(buildDir);
  mkdirSync(join(to, RELEASES_DIR), { recursive: true, mode: PUBLIC_DIR });
  mkdirSync(join(to, 'chunks'), { recursive: true, mode: PUBLIC_DIR });
  const stored = { bytes: 0, chunks: 0 };
  const files = buildFiles(buildDir).map((path) => fileEntry(to, buildDir, path, stored));
  const version = lastVersion(to) + 1;
  const release: Release = {
    release_format: RELEASE_FORMAT,
    snapshot_format: manifest.format,
    build_id: manifest.build_id,
    version,
    published_at: now.toISOString(),
    expires: new Date(now.getTime() + options.validDays * 86_400_000).toISOString(),
    files,
  };
  const signed = signRelease(release, options.signingKey);
  writePublic(join(to, RELEASES_DIR, `${version}.json`), signed);
  writePublic(join(to, RELEASE_FILE), signed);
  const removedChunks = pruneChunks(to);
  const { bytes, chunks } = releaseSize(release);
  options.log(
    `published build ${manifest.build_id} as release ${version} to ${to} (valid until ${release.expires}): ` +
      `${chunks} chunks of ${mb(bytes)}, ${stored.chunks} new (${mb(stored.bytes)} stored)` +
      (removedChunks ? `, ${removedChunks} chunks no kept release names removed` : ''),
  );
  return {
    version,
    buildId: manifest.build_id,
    expires: release.expires,
    bytes,
    newBytes: stored.bytes,
    chunks,
    newChunks: stored.chunks,
    removedChunks,
  };
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
