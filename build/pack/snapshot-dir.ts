/**
 * The snapshot folder: `<out>/<build-id>/` per build and `<out>/current`, a symbolic link
 * switched atomically (rename over the old link) only after a complete, verified write.
 * A lock file keeps two builds from writing at once; switching and pruning are
 * src/shared/snapshot-folder.ts's, which a pulling server shares.
 */
import { existsSync, mkdirSync, readlinkSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { takePidLock } from '../../src/shared/pid-lock.ts';
import { CURRENT_LINK, readManifest, type Manifest } from '../../src/shared/manifest.ts';
import { corruptionSummary, verifyBuildSync } from '../../src/shared/verify-build.ts';
import { fsyncDir } from '../../src/shared/state-files.ts';
import { buildIdOf } from '../../src/shared/build-id.ts';
import { buildFolders, KEEP_PREVIOUS, pruneSnapshots, switchCurrent } from '../../src/shared/snapshot-folder.ts';

export { CURRENT_LINK, KEEP_PREVIOUS, pruneSnapshots, switchCurrent };

const LOCK_FILE = '.build.lock';

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
