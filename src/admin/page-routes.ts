/**
 * The paths the key-management page answers (src/admin/page.ts): the page itself, sign-in and
 * sign-out, and its forms' targets under /admin/ui/; anything else under /admin/ui/ is its 404.
 */
import { KEY_ACTIONS, type KeyAction } from './page-forms.ts';

export type Route =
  | { kind: 'page' }
  | { kind: 'login' }
  | { kind: 'logout' }
  | { kind: 'create' }
  | { kind: 'action'; id: string; action: KeyAction };

const FIXED_ROUTES: Record<string, Route> = {
  '/admin/': { kind: 'page' },
  '/admin/login': { kind: 'login' },
  '/admin/logout': { kind: 'logout' },
  '/admin/ui/keys': { kind: 'create' },
};
const ACTION_PATH = /^\/admin\/ui\/keys\/([^/]+)\/([a-z]+)$/;

/** Every path the page answers (its forms' targets under /admin/ui/, unknown ones a 404 page). */
export function isPagePath(path: string): boolean {
  return Object.hasOwn(FIXED_ROUTES, path) || path.startsWith('/admin/ui/');
}

/** The page a path names, or null (404). The key id is checked by the operation, which says what is wrong with it. */
export function routeOf(path: string): Route | null {
  const fixed = FIXED_ROUTES[path];
  if (fixed !== undefined) return fixed;
  const match = ACTION_PATH.exec(path);
  if (match === null || !(KEY_ACTIONS as readonly string[]).includes(match[2])) return null;
  return { kind: 'action', id: match[1], action: match[2] as KeyAction };
}

export function methodsOf(route: Route): string[] {
  return route.kind === 'page' ? ['GET', 'HEAD'] : ['POST'];
}
