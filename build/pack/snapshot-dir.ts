/**
 * The snapshot folder: `<out>/<build-id>/` per build and `<out>/current`, a symbolic link
 * switched atomically (rename over the old link) only after a complete, verified write.
 * A lock file keeps two builds from writing at once; old builds are pruned, keeping a few so
 * that a server still finishing requests on one is never pulled from under it.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import { join } from 'node:path';
import { takePidLock } from '../../src/shared/pid-lock.ts';
import { CURRENT_LINK, readManifest, type Manifest } from '../../src/shared/manifest.ts';
import { corruptionSummary, verifyBuildSync } from '../../src/shared/verify-build.ts';
import { fsyncDir } from '../../src/shared/state-files.ts';
import { buildIdOf } from '../../src/shared/build-id.ts';

export { CURRENT_LINK };

const LOCK_FILE = '.build.lock';
/**
 * Builds kept besides the current one, by default: the one a server may still be finishing
 * requests on right after a switch. Each build of the sample is about 86 MB.
 */
export const KEEP_PREVIOUS = 1;

/** The manifest of `<out>/current`, or null when there is none or it cannot be read. */
export function readCurrentManifest(outDir: string): { dir: string; manifest: Manifest } | null {
  try {
    const dir = join(outDir, readlinkSync(join(outDir, CURRENT_LINK)));
    return { dir, manifest: readManifest(dir) };
  } catch {
    // No current snapshot, or a broken one (its manifest unreadable, of another format, or failing
    // its checksum): the build simply starts from nothing.
    return null;
  }
}

/** Take the build lock (taken over from a build that died); throws naming the lock file when a live build holds it. */
export function lockSnapshots(outDir: string): () => void {
  mkdirSync(outDir, { recursive: true });
  const lock = join(outDir, LOCK_FILE);
  const taken = takePidLock(lock, 0o644);
  if (typeof taken === 'function') return taken;
  throw new Error(`another build (pid ${taken.holder}) is writing ${outDir}; remove ${lock} if it is not running`);
}

/** That id, or with -2, -3 ... after it when a folder of that name is there already (a --force rebuild). */
export function newBuildId(outDir: string, builtAt: Date, inputDigest: string): string {
  const base = buildIdOf(builtAt, inputDigest);
  let id = base;
  for (let n = 2; existsSync(join(outDir, id)) || existsSync(join(outDir, `.tmp-${id}`)); n++) id = `${base}-${n}`;
  return id;
}

/**
 * Check the written snapshot by reading it back as a server would: the manifest parses, the
 * indexes hold every entry, and every stored part passes its checksum.
 */
export function verifySnapshot(dir: string): void {
  const manifest = readManifest(dir);
  let entries = 0;
  const corrupt = verifyBuildSync(dir, manifest, { index: (_, index) => (entries += Object.keys(index).length) });
  if (corrupt.length > 0)
    throw new Error(
      `snapshot ${dir} read back differs from what was written: ${corruptionSummary(manifest.build_id, corrupt)}`,
    );
  if (entries !== manifest.entry_count)
    throw new Error(
      `snapshot ${dir} is inconsistent: ${entries} entries in the indexes, ${manifest.entry_count} in the manifest`,
    );
}

/** Move the finished build into place and point `current` at it, atomically. */
export function publishSnapshot(outDir: string, tmpDir: string, buildId: string): void {
  fsyncDir(tmpDir);
  renameSync(tmpDir, join(outDir, buildId));
  switchCurrent(outDir, buildId);
}

/**
 * Point `current` at a build already in place, atomically (rename over the old link). The build
 * folder's modification time becomes now: build ids carry the data's time, not the build's, so
 * pruning tells the builds last made current by this time instead.
 */
export function switchCurrent(outDir: string, buildId: string): void {
  // Later than every other build's, even within one millisecond of the last switch.
  const latest = Math.max(0, ...buildFolders(outDir).map((name) => statSync(join(outDir, name)).mtimeMs));
  const at = new Date(Math.max(Date.now(), Math.floor(latest) + 1));
  utimesSync(join(outDir, buildId), at, at);
  const link = join(outDir, `.current-${buildId}`);
  symlinkSync(buildId, link);
  renameSync(link, join(outDir, CURRENT_LINK));
  fsyncDir(outDir);
}

/** The builds of a snapshot folder, the one made current longest ago first. */
function buildFolders(outDir: string): string[] {
  return readdirSync(outDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .map((d) => ({ name: d.name, at: statSync(join(outDir, d.name)).mtimeMs }))
    .sort((a, b) => a.at - b.at || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((b) => b.name);
}

/**
 * A kept build made from these very inputs (same digest of data, options and build code), newest
 * first: switching back to it gives the same bytes a rebuild would write, without writing them.
 * Only a build whose every part passes its checksum: a corrupt one is built again instead.
 */
export function findIdenticalBuild(outDir: string, inputDigest: string): string | null {
  for (const name of buildFolders(outDir).reverse()) {
    try {
      const manifest = readManifest(join(outDir, name));
      if (manifest.input_digest === inputDigest && verifyBuildSync(join(outDir, name), manifest).length === 0)
        return name;
    } catch {
      // A folder without a readable manifest or pack is no build to reuse; pruning removes it in time.
    }
  }
  return null;
}

/** Remove all but the current build and the `keep` newest others, and temporary folders of dead builds. */
export function pruneSnapshots(outDir: string, currentId: string, keepPrevious = KEEP_PREVIOUS): string[] {
  const builds = buildFolders(outDir);
  const others = builds.filter((b) => b !== currentId);
  const keep = new Set([currentId, ...(keepPrevious > 0 ? others.slice(-keepPrevious) : [])]);
  const removed = builds.filter((b) => !keep.has(b));
  for (const name of removed) rmSync(join(outDir, name), { recursive: true, force: true });
  for (const name of readdirSync(outDir)) {
    if (name.startsWith('.tmp-') || name.startsWith('.current-'))
      rmSync(join(outDir, name), { recursive: true, force: true });
  }
  return removed;
}
