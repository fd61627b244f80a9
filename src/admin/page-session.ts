/**
 * Signing in to the key-management page and staying signed in: the session cookie (sessions.ts
 * holds the sessions), what it says and when it is `Secure`, and whether a request's cookie still
 * signs in. The cookie holds the session's id, never the admin token: a session ends by itself
 * (idle, or its lifetime over), at sign-out, or once its token is found revoked, and the id then
 * signs in nowhere, sent again or not.
 */
import type { AdminTokenRecord } from '../keys/admin-tokens.ts';
import type { AdminSessions, Session } from './sessions.ts';

export const PAGE_COOKIE = 'bda_admin';

/*
 * Path=/admin keeps it off the public API; HttpOnly off the page's script; SameSite=Strict off any
 * request another site starts. No Max-Age: the browser forgets it when it closes, and the server
 * ends it sooner or later anyway. `Secure` whenever the browser speaks HTTPS (behind a trusted proxy
 * that says so, or a TLS socket), so it never goes out in clear text; over plain HTTP (the listener
 * on loopback, or a proxy the server is not told to trust) a browser would not send a Secure
 * cookie back, and the page could not be used.
 */
function attributes(secure: boolean): string {
  return `Path=/admin; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie of a new session. */
export function sessionCookie(id: string, secure: boolean): string {
  return `${PAGE_COOKIE}=${id}; ${attributes(secure)}`;
}

/** The Set-Cookie that makes the browser forget the cookie. */
export function clearedCookie(secure: boolean): string {
  return `${PAGE_COOKIE}=; ${attributes(secure)}; Max-Age=0`;
}

/** What a page needs of sessions and admin tokens. */
export interface SessionDeps {
  sessions: AdminSessions;
  /** The admin token of this id if it is active (not revoked), else null. */
  activeToken(id: string): Promise<AdminTokenRecord | null>;
}

/**
 * The session and its admin token that a cookie's value signs in as, or null. The token is read
 * afresh each request: once revoked, every session made with it ends here.
 */
export async function signedIn(
  deps: SessionDeps,
  cookie: string | null,
): Promise<{ session: Session; record: AdminTokenRecord } | null> {
  const session = deps.sessions.use(cookie);
  if (session === null) return null;
  const record = await deps.activeToken(session.tokenId);
  if (record !== null) return { session, record };
  deps.sessions.endToken(session.tokenId);
  return null;
}
