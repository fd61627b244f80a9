/**
 * The route index files of a snapshot (`index/<route id>.json`): one per route, each entry name
 * -> its body's hash, identity length, gzip and br spans and their checksums. The manifest holds
 * each file's checksum, which this returns.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  checksumOf,
  INDEX_DIR,
  indexEntry,
  indexFile,
  type CheckedSpan,
  type RouteIndex,
} from '../../src/shared/manifest.ts';
import { fsyncDir } from '../../src/shared/state-files.ts';

/** One index file per route: key -> [hash, spans..., checksums]; returns the checksum of each route's file. */
export function writeRouteIndexes(
  dir: string,
  entries: Record<string, string>,
  bodies: Record<string, [number, CheckedSpan, CheckedSpan]>,
): Record<string, string> {
  const byRoute = new Map<string, RouteIndex>();
  for (const [key, hash] of Object.entries(entries)) {
    const routeId = key.slice(0, key.indexOf(' '));
    let index = byRoute.get(routeId);
    if (!index) byRoute.set(routeId, (index = {}));
    const [identityLength, gz, br] = bodies[hash];
    index[key] = indexEntry(hash, identityLength, gz, br);
  }
  mkdirSync(join(dir, INDEX_DIR));
  const sums: Record<string, string> = {};
  for (const [routeId, index] of byRoute) {
    const bytes = Buffer.from(JSON.stringify(index));
    writeFileSync(join(dir, indexFile(routeId)), bytes, { mode: 0o644 });
    sums[routeId] = checksumOf(bytes);
  }
  fsyncDir(join(dir, INDEX_DIR));
  return sums;
}
