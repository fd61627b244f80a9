/**
 * The key-management page's defences against a foreign site's form. The cookie is already
 * SameSite=Strict, so a cross-site POST arrives without it; these hold where that fails (an old
 * browser, a sibling origin on the same site): every POST must come from the page's own origin,
 * and every change must carry the form token only a page rendered for that admin token holds.
 *
 * The form token is an HMAC of the session (sessions.ts: its id's digest, never the id) under a
 * secret drawn at each start: it needs no storage, it is the same for every page of one session
 * (any open tab keeps working), and it stops working when the session ends or the listener
 * restarts (the page says the form expired).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function csrfToken(secret: Buffer, session: string): string {
  return createHmac('sha256', secret).update(`csrf ${session}`).digest('base64url');
}

/** Whether a form's `csrf` field is the token of this session, compared in constant time. */
export function csrfValid(secret: Buffer, session: string, presented: string | null | undefined): boolean {
  if (typeof presented !== 'string' || presented === '') return false;
  const expected = Buffer.from(csrfToken(secret, session));
  const given = Buffer.from(presented);
  // timingSafeEqual throws on buffers of different lengths; the length of a token is no secret.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Whether a POST came from a page of this listener. Browsers send `Sec-Fetch-Site` and, on a
 * POST, `Origin`; a client that sends neither (curl) is no browser a foreign page could drive,
 * and still needs the form token. `same-site` is refused too: another port of the same host
 * (the public API) is same-site, and no page there has reason to post here. The listener's own
 * origin is `http://` and the Host header; `https://` too when the browser speaks HTTPS (`secure`:
 * behind a trusted proxy that says so, src/http/forwarded.ts). `http://` stays accepted then: a
 * proxy that rewrites the Origin's scheme (docs/operating.md's nginx block does, for servers not
 * told to trust it) sends that; the SameSite=Strict cookie, Sec-Fetch-Site and the form token hold
 * against a plain-HTTP page of the same host.
 *
 * `Origin: null` tells nothing: a browser sends it on every form post from a page whose
 * Referrer-Policy is no-referrer, as this page's is. Then Sec-Fetch-Site (refused above when
 * cross-site) and the form token decide.
 */
export function fromThisPage(request: {
  origin: string | undefined;
  fetchSite: string | undefined;
  host: string | undefined;
  secure?: boolean;
}): boolean {
  const site = request.fetchSite?.toLowerCase();
  if (site === 'cross-site' || site === 'same-site') return false;
  if (request.origin === undefined || request.origin === 'null') return true;
  if (request.host === undefined) return false;
  const origin = request.origin.toLowerCase();
  const host = request.host.toLowerCase();
  return origin === `http://${host}` || (request.secure === true && origin === `https://${host}`);
}
