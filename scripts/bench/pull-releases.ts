/**
 * The releases of the pull bench (scripts/bench/pull.ts): the sample and the changed data built,
 * published in turn into one folder with a signing key of the bench's own, each release's signed
 * envelope kept, and what the origin serves: one of those envelopes at a time.
 *
 * Release 1 is data/ built into a snapshot folder; release 2 a copy of data/ with one model's one
 * evaluation score changed, built into the same folder, as a rebuild would be. The chunks release
 * 2 stored anew and their stored bytes against bodies.pack's size, by file, are the delta.
 *
 * A full pull needs a build none of whose chunks the server holds (it keeps the build it serves
 * and one before): builds B, C and D, the changed data compressed at gzip/brotli levels 6, 5 and
 * 7 (C and D forced: a build over a previous one copies its compressed bodies whatever the
 * levels), are published in turn as releases 3, 4, 5... before the rounds begin, so no cutting
 * or hashing competes with the load, and each release's signed envelope is kept. nginx's root is
 * a folder of its own: chunks/ a link to the published folder's, release.json one of the kept
 * envelopes, written in place to offer the next release, which the server (--snapshot-poll 1)
 * takes within about a second. The published folder keeps the chunks of its last three
 * releases, which are always B, C and D.
 */
import { cpSync, mkdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_BUILD_OPTIONS } from '../../build/build-options.ts';
import { runBuild } from '../../build/build.ts';
import type { CompressionLevels } from '../../build/pack/pack.ts';
import { publishRelease, RELEASE_VALID_DAYS, type Published } from '../../build/publish/release.ts';
import { PACK_FILE } from '../../src/shared/manifest.ts';
import {
  chunkPath,
  newSigningKey,
  RELEASE_FILE,
  signingKeyOf,
  unsignedRelease,
  type Release,
} from '../../src/shared/release.ts';
import { ROOT } from '../processes.ts';
import { emit, mb, round2 } from './pull-figures.ts';

export interface Built {
  name: string;
  buildDir: string;
  buildId: string;
  packBytes: number;
}

/** A release as published, with the seconds publishing it took. */
export type Publish = Published & { seconds: number };

/** Levels of the builds the full pulls cycle through: every compressed byte differs from one to the next. */
const CYCLE_LEVELS: [string, CompressionLevels][] = [
  ['C', { gzip: 5, brotli: 5 }],
  ['D', { gzip: 7, brotli: 7 }],
];

export async function build(name: string, dataDir: string, outDir: string, levels: CompressionLevels, force: boolean) {
  const summary = await runBuild({ ...DEFAULT_BUILD_OPTIONS, dataDir, outDir, levels, force, log: () => {} });
  const packBytes = statSync(join(summary.snapshotDir, PACK_FILE)).size;
  emit({
    measure: 'build',
    build: name,
    build_id: summary.buildId,
    levels,
    seconds: summary.seconds,
    pack_mb: mb(packBytes),
  });
  return { name, buildDir: summary.snapshotDir, buildId: summary.buildId, packBytes } satisfies Built;
}

/** A copy of data/ in `work`, one model's one evaluation score moved by 0.01 (the model in the middle of the list). */
export function changedData(work: string): string {
  const dir = join(work, 'data-changed');
  cpSync(join(ROOT, 'data'), dir, { recursive: true });
  const file = join(dir, 'language-models.json');
  const models = JSON.parse(readFileSync(file, 'utf8')) as {
    slug: string;
    evaluations: Record<string, number | null>;
  }[];
  const model = models[Math.floor(models.length / 2)];
  const [evaluation, from] = Object.entries(model.evaluations).find(
    (e): e is [string, number] => typeof e[1] === 'number' && e[1] > 0 && e[1] < 0.98,
  )!;
  const to = Math.round((from + 0.01) * 1e4) / 1e4;
  model.evaluations[evaluation] = to;
  writeFileSync(file, `${JSON.stringify(models, null, 2)}\n`);
  emit({ measure: 'data_change', model: model.slug, evaluation, from, to });
  return dir;
}

/** The published folder, the signing key and the kept envelopes; the origin's root once made. */
export interface Releases {
  /** The folder every release is published to. */
  published: string;
  /** The public half of the signing key, for the server's --snapshot-key. */
  publicKey: string;
  publish(built: Built): Publish;
  /** A kept release's payload, unsigned. */
  release(version: number): Release;
  /** Make the origin's root (chunks/ linked to the published folder's), offering nothing yet; its path. */
  originRoot(): string;
  /** What the origin offers: one kept envelope as its release.json, replaced whole. */
  offer(version: number): void;
}

/** Releases published in `work`, signed with a key made here. */
export function releases(work: string): Releases {
  const published = join(work, 'published');
  const www = join(work, 'www');
  const signing = newSigningKey();
  const signingKey = signingKeyOf(signing.privatePem);
  /** Each release's signed envelope, and the build it names, by version. */
  const envelopes = new Map<number, { text: string; built: Built }>();

  function publish(built: Built): Publish {
    const started = performance.now();
    const done = publishRelease({
      buildDir: built.buildDir,
      to: published,
      signingKey,
      validDays: RELEASE_VALID_DAYS,
      now: new Date(),
      log: () => {},
    });
    const publishSeconds = (performance.now() - started) / 1000;
    envelopes.set(done.version, { text: readFileSync(join(published, RELEASE_FILE), 'utf8'), built });
    emit({
      measure: 'publish',
      release: done.version,
      build: built.name,
      seconds: round2(publishSeconds),
      chunks: done.chunks,
      build_mb: mb(done.bytes),
      new_chunks: done.newChunks,
      new_stored_mb: mb(done.newBytes),
      removed_chunks: done.removedChunks,
    });
    return { ...done, seconds: publishSeconds };
  }

  return {
    published,
    publicKey: signing.publicText,
    publish,
    release: (version) => unsignedRelease(envelopes.get(version)!.text),
    originRoot: () => {
      mkdirSync(www);
      symlinkSync(join(published, 'chunks'), join(www, 'chunks'));
      return www;
    },
    offer: (version) => {
      const tmp = join(www, `.${RELEASE_FILE}.tmp`);
      writeFileSync(tmp, envelopes.get(version)!.text);
      renameSync(tmp, join(www, RELEASE_FILE));
    },
  };
}

/** Stored bytes of the chunks `release` names that `before` does not, by file (index files together). */
function newBytesByFile(published: string, release: Release, before: Release): Record<string, number> {
  const seen = new Set(before.files.flatMap((f) => f.chunks.map(([sum]) => sum)));
  const bytes: Record<string, number> = {};
  for (const file of release.files) {
    const group = file.path.startsWith('index/') ? 'index/*' : file.path;
    for (const chunk of file.chunks) {
      if (seen.has(chunk[0])) continue;
      seen.add(chunk[0]);
      bytes[group] = (bytes[group] ?? 0) + statSync(join(published, chunkPath(chunk))).size;
    }
  }
  return bytes;
}

/**
 * The delta's line: what `second` (of `changed`, built over `first`'s build) stored anew, against
 * bodies.pack (whose share the target bounds) and against the whole build, by file.
 */
export function deltaFigures(
  r: Releases,
  first: Publish,
  second: Publish,
  changed: Built,
  targetShare: number,
): Record<string, unknown> {
  const byFile = newBytesByFile(r.published, r.release(second.version), r.release(first.version));
  return {
    measure: 'delta',
    chunks: second.chunks,
    new_chunks: second.newChunks,
    new_stored_bytes: second.newBytes,
    pack_bytes: changed.packBytes,
    share_of_pack: Math.round((second.newBytes / changed.packBytes) * 10_000) / 10_000,
    share_of_build: Math.round((second.newBytes / second.bytes) * 10_000) / 10_000,
    target_share: targetShare,
    new_stored_mb_by_file: Object.fromEntries(Object.entries(byFile).map(([k, v]) => [k, mb(v)])),
    publish_seconds: [round2(first.seconds), round2(second.seconds)],
  };
}

/**
 * Builds C and D of the changed data (`b` is its build B), then publishes release 3 (C, the later
 * full pull) and one a round after it: D, B, C, D, B...
 */
export async function publishCycle(r: Releases, work: string, b: Built, changed: string, rounds: number) {
  const cycle: Built[] = [b];
  for (const [name, levels] of CYCLE_LEVELS) {
    const label = `${name} (levels ${levels.gzip}/${levels.brotli})`;
    cycle.push(await build(label, changed, join(work, `snapshot-${name}`), levels, true));
  }
  for (let version = 3; version <= 3 + rounds; version++) r.publish(cycle[(version - 2) % cycle.length]);
}
