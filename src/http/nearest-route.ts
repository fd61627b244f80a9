/**
 * The route a mistyped path most likely meant, for the 404 under /api/v2: a trailing slash, the
 * wrong case, or a segment a letter or two off (an arena name). Computed on the error path only.
 */
import { ROUTES, type Route } from '../shared/routes.ts';

/** Edits allowed in the one segment that differs; more is a different path, not a typo. */
const MAX_EDITS = 2;

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}

/** How far `path` is from the route's template (the slug takes the path's segment), or null when too far. */
function distance(route: Route, parts: readonly string[]): { edits: number; path: string } | null {
  const template = route.path.split('/');
  if (template.length !== parts.length) return null;
  let edits = 0;
  let differing = 0;
  const filled = template.map((segment, i) => {
    if (segment === '{slug}') return parts[i];
    if (segment === parts[i]) return segment;
    differing++;
    edits += segment.toLowerCase() === parts[i].toLowerCase() ? 0 : editDistance(segment, parts[i].toLowerCase());
    return segment;
  });
  if (differing > 1 && edits > 0) return null; // case alone may differ anywhere, a typo in one segment
  return edits <= MAX_EDITS ? { edits, path: filled.join('/') } : null;
}

/** The path of the nearest route to a path no route has, or null when none is near. */
export function nearestRoute(path: string, routes: readonly Route[] = ROUTES): string | null {
  if (!path.toLowerCase().startsWith('/api/v2')) return null;
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  const parts = trimmed.split('/');
  let best: { edits: number; path: string } | null = null;
  for (const route of routes) {
    const near = distance(route, parts);
    if (near && (!best || near.edits < best.edits)) best = near;
  }
  return best && best.path !== path ? best.path : null;
}
