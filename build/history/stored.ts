/**
 * The history as a build stores it: JSON, gzip-compressed in the build's pack like a fragment,
 * its span and checksum in the manifest (`history`). Read back from the build it continues, and
 * only when its bytes pass their checksum.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { checksumOf, PACK_FILE, type Manifest } from '../../src/shared/manifest.ts';
import type { BuildContext } from '../shape/route-builder.ts';
import { extendHistory, HISTORY_FORMAT, servedStates, type BuildRecord, type History } from './history.ts';

/** The history's bytes as the build stores them (one JSON text, the same for the same sequence of builds). */
export function historyBytes(history: History): Buffer {
  return Buffer.from(JSON.stringify(history));
}

/**
 * The history the build in `dir` carries; null when it carries none (a build made before
 * histories were). Throws, saying why, when it cannot be read: bytes that fail their checksum,
 * or a history format this build does not know.
 */
export function readStoredHistory(dir: string, manifest: Manifest): History | null {
  if (!manifest.history) return null;
  const [offset, length, sum] = manifest.history;
  const fd = openSync(join(dir, PACK_FILE), 'r');
  const stored = Buffer.alloc(length);
  try {
    if (readSync(fd, stored, 0, length, offset) !== length || checksumOf(stored) !== sum)
      throw new Error(`the history of build ${manifest.build_id} fails its checksum`);
  } finally {
    closeSync(fd);
  }
  const history = JSON.parse(gunzipSync(stored).toString('utf8')) as History;
  if (history.format !== HISTORY_FORMAT)
    throw new Error(`the history of build ${manifest.build_id} is of format ${history.format}, not ${HISTORY_FORMAT}`);
  return history;
}

/**
 * The history the next build continues: the current build's, or null when there is none or it
 * cannot be read, which the log says (a new history then starts at the next build).
 */
export function continuedHistory(
  current: { dir: string; manifest: Manifest } | null,
  log: (line: string) => void,
): History | null {
  if (!current) return null;
  try {
    const history = readStoredHistory(current.dir, current.manifest);
    if (!history) log(`build ${current.manifest.build_id} carries no history of changes: one starts at this build`);
    return history;
  } catch (error) {
    log(`warning: ${(error as Error).message}: a new history of changes starts at this build`);
    return null;
  }
}

/**
 * The history the build of `ctx` carries, and its own record: the current build's history
 * continued (continuedHistory), the lists `ctx` shapes added, folded past `retention` builds. A
 * build writes it; `--check` says what it would record.
 */
export function nextHistory(
  current: { dir: string; manifest: Manifest } | null,
  ctx: BuildContext & { buildId: string },
  retention: number,
  log: (line: string) => void,
): { history: History; record: BuildRecord } {
  const build = { buildId: ctx.buildId, asOf: new Date(ctx.asOf), states: servedStates(ctx) };
  return extendHistory(continuedHistory(current, log), build, retention);
}
