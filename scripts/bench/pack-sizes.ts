/**
 * Where a snapshot's bytes go, per route and per encoding, read from its manifest and route
 * indexes (format 2: gzip and br stored, identity only as a length; fragments gzip-compressed).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  historyOf,
  historyPartsBytes,
  indexFile,
  MANIFEST_FILE,
  PACK_FILE,
  spanOf,
  type Manifest,
  type RouteIndex,
} from '../../src/shared/manifest.ts';

export interface RouteBytes {
  route: string;
  /** Distinct bodies first referenced by this route (a body shared with an earlier route counts there). */
  bodies: number;
  /** What those bodies weigh as JSON; not stored. */
  identityBytes: number;
  gzipBytes: number;
  brBytes: number;
  /** The route's compressed fragments: measurement records and their index; the history's parts. */
  fragmentBytes: number;
}

export interface PackSizes {
  routes: RouteBytes[];
  total: Omit<RouteBytes, 'route'>;
  packFileBytes: number;
}

/** The route id a entry name belongs to: its first word. */
const routeOf = (key: string) => key.slice(0, key.indexOf(' '));

export function readPackSizes(snapshotDir: string): PackSizes {
  const manifest = JSON.parse(readFileSync(join(snapshotDir, MANIFEST_FILE), 'utf8')) as Manifest;
  const byRoute = new Map<string, RouteBytes>();
  const routeBytes = (route: string) => {
    let bytes = byRoute.get(route);
    if (!bytes)
      byRoute.set(route, (bytes = { route, bodies: 0, identityBytes: 0, gzipBytes: 0, brBytes: 0, fragmentBytes: 0 }));
    return bytes;
  };
  // Identical bodies are stored once; count each where it is first met so the totals add up to the pack.
  const seen = new Set<string>();
  for (const routeId of manifest.indexes) {
    const index = JSON.parse(readFileSync(join(snapshotDir, indexFile(routeId)), 'utf8')) as RouteIndex;
    const bytes = routeBytes(routeId);
    for (const entry of Object.values(index)) {
      if (seen.has(entry[0])) continue;
      seen.add(entry[0]);
      bytes.bodies += 1;
      bytes.identityBytes += entry[1];
      bytes.gzipBytes += spanOf(entry, 'gzip')[1];
      bytes.brBytes += spanOf(entry, 'br')[1];
    }
  }
  for (const [key, { data, index }] of Object.entries(manifest.fragments))
    routeBytes(routeOf(key)).fragmentBytes += data[1] + index[1];
  // The history's parts (brotli-compressed), which the changes and model history routes are joined from.
  const history = historyOf(manifest);
  if (history) routeBytes('history').fragmentBytes += historyPartsBytes(history);
  const routes = [...byRoute.values()].sort(
    (a, b) => b.gzipBytes + b.brBytes + b.fragmentBytes - (a.gzipBytes + a.brBytes + a.fragmentBytes),
  );
  const total = { bodies: 0, identityBytes: 0, gzipBytes: 0, brBytes: 0, fragmentBytes: 0 };
  for (const r of routes) for (const field of Object.keys(total) as (keyof typeof total)[]) total[field] += r[field];
  return { routes, total, packFileBytes: statSync(join(snapshotDir, PACK_FILE)).size };
}
