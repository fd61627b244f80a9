/**
 * The route a mistyped path most likely meant, for the 404 under /api/v2: a trailing slash, the
 * wrong case, or a segment a letter or two off (an arena name). Computed on the error path only,
 * which anyone can reach without a key, so its work is bounded whatever the path: a segment is
 * compared only when its length is within MAX_EDITS of the template segment's (an edit distance
 * is at least the difference in length), so no comparison is longer than the route table's own
 * segments, and the comparisons of one request share a budget of cells. The admin listener asks
 * the same of its operations, under /admin/api.
 */
import { editDistance } from '../shared/closest-name.ts';
import { ROUTES } from '../shared/routes.ts';

/** All the search needs of a route: its path, `{name}` segments being parameters (any value fits). */
type Route = { readonly path: string };

/** Edits allowed in the one segment that differs; more is a different path, not a typo. */
const MAX_EDITS = 2;
/**
 * Cells of edit-distance tables one request may fill; ample for the route table (about 50 000 in
 * the worst case of its own segments).
 */
export const COMPARISON_BUDGET = 50_000;

/** What one request may still spend on comparisons. */
interface Budget {
  cells: number;
}

/**
 * The edit distance of a and b, b taken in lower case, or MAX_EDITS + 1 when it is larger or the
 * budget cannot pay for the table. b is lowercased only after the length check, so a long
 * segment is never copied.
 */
function boundedDistance(a: string, rawB: string, budget: Budget): number {
  const far = MAX_EDITS + 1;
  if (Math.abs(a.length - rawB.length) > MAX_EDITS) return far;
  const cells = a.length * rawB.length;
  if (cells > budget.cells) return far;
  budget.cells -= cells;
  return editDistance(a, rawB.toLowerCase());
}

/** Whether two segments differ by case alone (lowercased only when their lengths agree). */
function sameButCase(segment: string, part: string): boolean {
  return segment.length === part.length && segment.toLowerCase() === part.toLowerCase();
}

/** How far `path` is from the route's template (the slug takes the path's segment), or null when too far. */
function distance(route: Route, parts: readonly string[], budget: Budget): { edits: number; path: string } | null {
  const template = route.path.split('/');
  if (template.length !== parts.length) return null;
  let edits = 0;
  let differing = 0;
  for (let i = 0; i < template.length; i++) {
    const segment = template[i];
    if (segment.startsWith('{') || segment === parts[i]) continue;
    differing++;
    if (sameButCase(segment, parts[i])) continue;
    // Case alone may differ anywhere, a typo in one segment only.
    if (differing > 1 || edits > 0) return null;
    edits = boundedDistance(segment, parts[i], budget);
    if (edits > MAX_EDITS) return null;
  }
  if (differing > 1 && edits > 0) return null;
  const filled = template.map((segment, i) => (segment.startsWith('{') ? parts[i] : segment));
  return { edits, path: filled.join('/') };
}

/**
 * A path without its trailing slashes (a loop: the regex /\/+$/ is quadratic on a long run of
 * slashes not at the end).
 */
function trimSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path[end - 1] === '/') end--;
  return path.slice(0, end);
}

/**
 * The path of the nearest route to a path no route has, or null when none is near. Only paths
 * under `prefix` are searched (the public API's /api/v2, the admin listener's /admin/api).
 */
export function nearestRoute(path: string, routes: readonly Route[] = ROUTES, prefix = '/api/v2'): string | null {
  if (path.slice(0, prefix.length).toLowerCase() !== prefix) return null;
  // Split no further than the longest template: a path with more segments matches none.
  const longest = Math.max(...routes.map((route) => route.path.split('/').length));
  const parts = trimSlashes(path).split('/', longest + 1);
  const budget: Budget = { cells: COMPARISON_BUDGET };
  let best: { edits: number; path: string } | null = null;
  for (const route of routes) {
    const near = distance(route, parts, budget);
    if (near && (!best || near.edits < best.edits)) best = near;
  }
  return best && best.path !== path ? best.path : null;
}
