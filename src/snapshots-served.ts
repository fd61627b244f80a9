/**
 * The builds a server answers from, opened at start: the snapshot store (src/snapshot/store.ts)
 * on the snapshot folder and, with --snapshot-from, the puller that fills that folder from an
 * origin (src/pull/). Without a build to serve, the puller's first pull comes before the store
 * opens; then the store follows `current` and the puller polls.
 */
import { basename } from 'node:path';
import type { ServerOptions } from './config.ts';
import type { Clock } from './lib/clock.ts';
import type { Conditions } from './lib/conditions.ts';
import { SnapshotPuller } from './pull/puller.ts';
import { SnapshotStore } from './snapshot/store.ts';

export interface ServedSnapshots {
  snapshots: SnapshotStore;
  puller: SnapshotPuller | null;
}

export interface SnapshotParts {
  clock: Clock;
  log: (line: string) => void;
  logError: (line: string) => void;
  conditions: Conditions;
  warnings: Conditions;
  quiet: () => boolean;
}

/**
 * Open the snapshot folder (pulling its first build when it has none and an origin is given);
 * throws when nothing can be served.
 */
export async function openSnapshots(options: ServerOptions, parts: SnapshotParts): Promise<ServedSnapshots> {
  const { clock, log, logError, conditions, warnings, quiet } = parts;
  const snapshots = new SnapshotStore({
    root: options.snapshotDir,
    cacheBytes: options.cacheBytes,
    log,
    logError,
    conditions,
    quiet,
  });
  let opened = false;
  const puller =
    options.snapshotFrom &&
    new SnapshotPuller({
      ...options.snapshotFrom,
      root: options.snapshotDir,
      log,
      warnings,
      now: () => clock.now(),
      // Before the first build is served there is none to keep.
      serving: () => (opened ? basename(snapshots.current.dir) : null),
      quiet,
    });
  try {
    await puller?.initial();
    await snapshots.start();
    opened = true;
  } catch (error) {
    await puller?.stop();
    throw error;
  }
  snapshots.follow();
  puller?.start();
  return { snapshots, puller: puller || null };
}
