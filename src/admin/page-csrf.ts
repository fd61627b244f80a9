/**
 * The key-management page's defences against a foreign site's form. The cookie is already
 * SameSite=Strict, so a cross-site POST arrives without it; these hold where that fails (an old
 * browser, a sibling origin on the same site): every POST must come from the page's own origin,
 * and every change must carry the form token only a page rendered for that admin token holds.
 *
 * The form token is an HMAC of the admin token's id under a secret drawn at each start: it needs
 * no storage, it is the same for every page of one token (any open tab keeps working), and it
 * stops working when the listener restarts (the page says the form expired).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function csrfToken(secret: Buffer, tokenId: string): string {
  return createHmac('sha256', secret).update(`csrf ${tokenId}`).digest('base64url');
}

/** Whether a form's `csrf` field is the token of this admin token, compared in constant time. */
export function csrfValid(secret: Buffer, tokenId: string, presented: string | null | undefined): boolean {
  if (typeof presented !== 'string' || presented === '') return false;
  const expected = Buffer.from(csrfToken(secret, tokenId));
  const given = Buffer.from(presented);
  // timingSafeEqual throws on buffers of different lengths; the length of a token is no secret.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Whether a POST came from a page of this listener. Browsers send `Sec-Fetch-Site` and, on a
 * POST, `Origin`; a client that sends neither (curl) is no browser a foreign page could drive,
 * and still needs the form token. `same-site` is refused too: another port of the same host
 * (the public API) is same-site, and no page there has reason to post here. The listener is
 * plain HTTP (loopback), so its own origin is `http://` and the Host header.
 *
 * `Origin: null` tells nothing: a browser sends it on every form post from a page whose
 * Referrer-Policy is no-referrer, as this page's is. Then Sec-Fetch-Site (refused above when
 * cross-site) and the form token decide.
 */
export function fromThisPage(request: {
  origin: string | undefined;
  fetchSite: string | undefined;
  host: string | undefined;
}): boolean {
  const site = request.fetchSite?.toLowerCase();
  if (site === 'cross-site' || site === 'same-site') return false;
  if (request.origin === undefined || request.origin === 'null') return true;
  return request.host !== undefined && request.origin.toLowerCase() === `http://${request.host.toLowerCase()}`;
}
