/**
 * The admin API's routes: each operation (operations.ts) at its path under /admin/api, matched by
 * the public server's Router, with its 404 (naming the operations, and the one a typo meant), its
 * 405, and the path's parameters percent-decoded.
 */
import { HttpError } from '../http/error.ts';
import { nearestRoute } from '../http/nearest-route.ts';
import { paramsOf, Router } from '../http/router.ts';
import { API_PREFIX } from './input.ts';
import { OPERATIONS, type Operation } from './operations.ts';

/** A row of the admin API's route table: an operation at its full path. */
export interface OperationRoute {
  readonly method: string;
  readonly path: string;
  readonly operation: Operation;
}

const OPERATION_ROUTES: readonly OperationRoute[] = OPERATIONS.map((operation) => ({
  method: operation.method,
  path: `${API_PREFIX}${operation.path}`,
  operation,
}));

/** The operations' paths without a parameter (`/admin/api/keys`, not `/admin/api/keys/{id}`), once each. */
const COLLECTIONS = [...new Set(OPERATION_ROUTES.filter((route) => !route.path.includes('{')).map((r) => r.path))];

/** The 404 under /admin/api, naming the operations, and the one meant when a path is a typo away from it. */
function noOperation(path: string): HttpError {
  const nearest = nearestRoute(path, OPERATION_ROUTES, API_PREFIX);
  const operations = `${COLLECTIONS.join(', ')}; see /admin/openapi.json`;
  return new HttpError(404, 'Not found', {
    details: { path, operations, ...(nearest === null ? {} : { did_you_mean: nearest }) },
  });
}

function methodNotAllowed(_method: string, _path: string, routes: readonly OperationRoute[]): HttpError {
  const allowed = routes.map((route) => route.method);
  return new HttpError(405, 'Method not allowed', { details: { allowed }, headers: { Allow: allowed.join(', ') } });
}

/** The admin API's operations in the public server's Router: HEAD is not GET here (no operation answers it). */
export const API_ROUTER = new Router<OperationRoute>(OPERATION_ROUTES, {
  headAsGet: false,
  notFound: noOperation,
  notAllowed: methodNotAllowed,
});

/** The operation's parameters, percent-decoded (a key id or provider slug in the path). */
export function decodedParams(route: OperationRoute, path: string): Record<string, string> {
  const params = paramsOf(route, path);
  for (const [name, segment] of Object.entries(params)) {
    try {
      params[name] = decodeURIComponent(segment);
    } catch {
      throw new HttpError(400, 'Invalid request target', { details: { segment: segment.slice(0, 100) } });
    }
  }
  return params;
}
