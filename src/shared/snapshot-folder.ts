/**
 * The snapshot folder's builds and its `current` link, as the build and a pulling server
 * (src/pull/) both change them: `current` is switched by renaming a new link over it, and old
 * builds are pruned by when they were last made current, keeping a few so that a server still
 * finishing requests on one is never pulled from under it.
 */
import { readdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CURRENT_LINK } from './manifest.ts';
import { fsyncDir } from './state-files.ts';

/**
 * Builds kept besides the current one, by default: the one a server may still be finishing
 * requests on right after a switch. Each build of the sample is about 86 MB.
 */
export const KEEP_PREVIOUS = 1;

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
export function buildFolders(outDir: string): string[] {
  return readdirSync(outDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .map((d) => ({ name: d.name, at: statSync(join(outDir, d.name)).mtimeMs }))
    .sort((a, b) => a.at - b.at || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((b) => b.name);
}

/**
 * The builds pruning removes: all but the current one, the `keep` newest others and those `alsoKeep`
 * names (the build a pulling server still serves while it checks the next).
 */
function prunable(outDir: string, currentId: string, keepPrevious: number, alsoKeep: readonly string[]): string[] {
  const builds = buildFolders(outDir);
  const others = builds.filter((b) => b !== currentId);
  const keep = new Set([currentId, ...alsoKeep, ...(keepPrevious > 0 ? others.slice(-keepPrevious) : [])]);
  return builds.filter((b) => !keep.has(b));
}

/** Folders a build that died left: its temporary build, or a link it never renamed over `current`. */
function leftBehind(outDir: string): string[] {
  return readdirSync(outDir).filter((name) => name.startsWith('.tmp-') || name.startsWith('.current-'));
}

/** Remove the builds past those kept (see prunable), and what dead builds left; the builds removed. */
export function pruneSnapshots(
  outDir: string,
  currentId: string,
  keepPrevious = KEEP_PREVIOUS,
  alsoKeep: readonly string[] = [],
): string[] {
  const removed = prunable(outDir, currentId, keepPrevious, alsoKeep);
  for (const name of [...removed, ...leftBehind(outDir)]) rmSync(join(outDir, name), { recursive: true, force: true });
  return removed;
}

/**
 * The same without holding the event loop, for a serving process: removing a build of the sample
 * (86 MB) in one call held a pulling server's requests 34 to 90 ms (scripts/bench/pull.ts).
 */
export async function pruneSnapshotsAsync(
  outDir: string,
  currentId: string,
  keepPrevious = KEEP_PREVIOUS,
  alsoKeep: readonly string[] = [],
): Promise<string[]> {
  const removed = prunable(outDir, currentId, keepPrevious, alsoKeep);
  for (const name of [...removed, ...leftBehind(outDir)])
    await rm(join(outDir, name), { recursive: true, force: true });
  return removed;
}
