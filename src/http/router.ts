/**
 * Match a request to the route table: exact paths first (so `/language/models/free` is never
 * taken for a slug), then `{slug}` patterns by segment. Built once at start-up.
 */
import { HttpError } from './error.ts';
import { nearestRoute } from './nearest-route.ts';
import { ROUTES, type Route } from '../shared/routes.ts';

/** Longest request target (path and query) accepted; longer ones get 414. */
export const MAX_TARGET_LENGTH = 8192;

/** Split the request target and decode the path; 400 for malformed percent-encoding, 414 when too long. */
export function parseTarget(target: string): { path: string; query: string } {
  if (target.length > MAX_TARGET_LENGTH)
    throw new HttpError(414, `Request target longer than ${MAX_TARGET_LENGTH} characters`, {
      details: { limit: MAX_TARGET_LENGTH },
    });
  if (!target.startsWith('/')) return parseTarget(originForm(target));
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? '' : target.slice(q + 1);
  if (!rawPath.includes('%')) return { path: rawPath, query };
  let segments: string[];
  try {
    segments = rawPath.split('/').map(decodeURIComponent);
  } catch {
    throw new HttpError(400, 'Malformed percent-encoding in the request path', { details: { field: 'path' } });
  }
  // An encoded slash is part of a segment, never a separator: no route has such a segment.
  if (segments.some((segment) => segment.includes('/')))
    throw new HttpError(404, `Not found: ${rawPath}`, { details: { path: rawPath } });
  return { path: segments.join('/'), query };
}

/** `http://host:port` at the start of an absolute-form target, any case. */
const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*/i;

/**
 * The path and query of an absolute-form target (`GET http://host/path`, RFC 9112, 3.2.2),
 * which a server must accept though only proxies are sent it. Its authority is ignored: the
 * server answers the same routes whatever name it is reached by, as it does for the Host header.
 */
function originForm(target: string): string {
  const authority = ABSOLUTE_FORM.exec(target);
  if (!authority)
    throw new HttpError(400, 'Request target must be a path starting with /, or an absolute http URL', {
      details: { field: 'target' },
    });
  const rest = target.slice(authority[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

export interface RouteMatch<R = Route> {
  route: R;
  /** The value of the path's last parameter (the public routes have one, `{slug}`); see paramsOf for all. */
  slug?: string;
}

/** What a router needs of a row of its table: a method and a path, `{name}` segments being parameters. */
export interface RouteRow {
  readonly method: string;
  readonly path: string;
}

interface Pattern<R> {
  segments: (string | null)[];
  routes: R[];
}

/** Methods a route answers: GET routes answer HEAD too. */
export function allowedMethods(routes: readonly RouteRow[]): string[] {
  return [...new Set(routes.flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method])))];
}

/** How a router words its misses; the public API's wording unless told otherwise. */
export interface RouterOptions<R extends RouteRow> {
  /** Whether a GET route answers HEAD too (the public API's do; the admin API's answer HEAD 405). */
  headAsGet?: boolean;
  /** The 404 for a path no route has. */
  notFound?: (path: string) => HttpError;
  /** The 405 for a method none of the path's routes answers. */
  notAllowed?: (method: string, path: string, routes: readonly R[]) => HttpError;
}

function publicNotFound(path: string): HttpError {
  const nearest = nearestRoute(path);
  if (nearest)
    return new HttpError(404, `Not found: ${path}; did you mean ${nearest}?`, { details: { path, nearest } });
  return new HttpError(404, `Not found: ${path}`, { details: { path } });
}

function publicNotAllowed(method: string, path: string, routes: readonly RouteRow[]): HttpError {
  const allowed = allowedMethods(routes);
  const allow = allowed.join(', ');
  return new HttpError(405, `Method ${method} is not allowed on ${path}; allowed: ${allow}`, {
    details: { method, allowed },
    headers: { Allow: allow },
  });
}

/**
 * The named parameters of a path its route matched (`/keys/{id}/grants/{provider}` gives `id`
 * and `provider`), raw as they appear in the path. Splits the path again: for tables with more
 * than one parameter (the admin API's), never on the public hot path, which takes `slug`.
 */
export function paramsOf(route: RouteRow, path: string): Record<string, string> {
  const parts = path.split('/');
  const params: Record<string, string> = {};
  route.path.split('/').forEach((segment, i) => {
    if (segment.startsWith('{')) params[segment.slice(1, -1)] = parts[i];
  });
  return params;
}

/**
 * A route table's matcher, for the public routes (the default) and the admin API's operations
 * alike. The per-request work is the same whatever the table: one map lookup, then the patterns
 * of the path's length, segment by segment.
 */
export class Router<R extends RouteRow = Route> {
  private readonly exact = new Map<string, R[]>();
  private readonly patterns: Pattern<R>[] = [];
  /**
   * Segments of the longest pattern: a path is split no further, so a path of thousands of slashes
   * costs what a short one does.
   */
  private readonly longest: number;
  private readonly headAsGet: boolean;
  private readonly notFound: (path: string) => HttpError;
  private readonly notAllowed: (method: string, path: string, routes: readonly R[]) => HttpError;

  constructor(routes: readonly R[] = ROUTES as readonly RouteRow[] as readonly R[], options: RouterOptions<R> = {}) {
    this.headAsGet = options.headAsGet ?? true;
    this.notFound = options.notFound ?? publicNotFound;
    this.notAllowed = options.notAllowed ?? publicNotAllowed;
    for (const route of routes) {
      if (!route.path.includes('{')) {
        this.exact.set(route.path, [...(this.exact.get(route.path) ?? []), route]);
        continue;
      }
      const segments = route.path.split('/').map((s) => (s.startsWith('{') ? null : s));
      const same = this.patterns.find((p) => p.segments.join('/') === segments.join('/'));
      if (same) same.routes.push(route);
      else this.patterns.push({ segments, routes: [route] });
    }
    this.longest = Math.max(0, ...this.patterns.map((p) => p.segments.length));
  }

  /** Routes at a path, with the slug it carries; null when no route has that path. */
  private find(path: string): { routes: R[]; slug?: string } | null {
    const exact = this.exact.get(path);
    if (exact) return { routes: exact };
    const parts = path.split('/', this.longest + 1);
    for (const { segments, routes } of this.patterns) {
      if (segments.length !== parts.length) continue;
      let slug: string | undefined;
      const fits = segments.every((s, i) => {
        if (s !== null) return s === parts[i];
        slug = parts[i];
        return slug.length > 0;
      });
      if (fits) return { routes, slug };
    }
    return null;
  }

  /** The route answering `method path`; 404 when no route has the path, 405 with Allow when the method is wrong. */
  match(method: string, path: string): RouteMatch<R> {
    const found = this.find(path);
    if (!found) throw this.notFound(path);
    const wanted = this.headAsGet && method === 'HEAD' ? 'GET' : method;
    const route = found.routes.find((r) => r.method === wanted);
    if (!route) throw this.notAllowed(method, path, found.routes);
    return { route, slug: found.slug };
  }
}
