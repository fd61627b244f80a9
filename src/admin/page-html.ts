/**
 * The key-management page's HTML, the parts every page shares: escaping, the document around a
 * page, the message boxes, the login page and the short pages for a refusal (403, 404, 405).
 * Pure functions of data to a string; the keys page itself is page-keys-html.ts.
 *
 * Every value from outside (a name, an org, a query parameter, an error's details) goes through
 * `escapeHtml` exactly once, at the point it is placed, in text and in attribute values alike
 * (attributes are always double-quoted). Literal markup is written here and nowhere else.
 */
import { PAGE_CSS, PAGE_SCRIPT } from './page-style.ts';
import { escapeHtml } from './html-escape.ts';
import { errorSentences } from './page-errors.ts';

export { escapeHtml } from './html-escape.ts';

/** An ISO time as `2026-05-01 14:03 UTC` in a <time> element; anything else shown as it is. */
export function formatTime(iso: string): string {
  const shown =
    /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso) && iso.endsWith('Z') ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso;
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(shown)}</time>`;
}

/** A count with thousands separators, the same whatever the server's locale. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function hiddenField(name: string, value: string): string {
  return `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}

/**
 * The whole document: the stylesheet and the script carry the response's nonce, the only ones the
 * policy runs. The empty data: icon keeps the browser from asking the listener for /favicon.ico.
 */
export function renderDocument(page: { title: string; nonce: string; body: string }): string {
  const nonce = escapeHtml(page.nonce);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="data:,">
<title>${escapeHtml(page.title)}</title>
<style nonce="${nonce}">${PAGE_CSS}</style>
</head>
<body>
${page.body}
<script nonce="${nonce}">${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

/** A one-line message after a change (from the redirect's `done`). */
export function flashBox(text: string): string {
  return `<div class="box flash" role="status">${escapeHtml(text)}</div>`;
}

/** A failure: its message and what its details say, in sentences (page-errors.ts). */
export function errorBox(message: string, details: Record<string, unknown> = {}): string {
  const said = errorSentences(details);
  const more = said.length > 0 ? `<p>${said.join(' ')}</p>` : '';
  return `<div class="box error" role="alert"><strong>${escapeHtml(message)}</strong>${more}</div>`;
}

export const LOGIN_REFUSED = 'That token is not valid (or was revoked)';
/** Why a browser whose cookie no longer signs in is asked to: unused too long, signed out, its token revoked. */
export const SESSION_ENDED = 'Your session has ended; sign in again';

/**
 * The login form and nothing about the store: it is all a visitor without a token may see. The
 * input is a password field so the token is not shown on screen, and the browser may offer to keep it.
 */
export function renderLoginPage(nonce: string, error: string | null = null): string {
  const body =
    `<main class="narrow">
<h1>Key management</h1>
<p class="muted">Sign in with an admin token (<code>bdat_...</code>; the keys command makes one:
<code>admin-token create --name NAME</code>).</p>
${error === null ? '' : errorBox(error)}
<form id="login" method="post" action="/admin/login">
<label>Admin token <input type="password" name="token" autocomplete="current-password" required autofocus ` +
    `spellcheck="false"></label>
<button type="submit" class="primary">Sign in</button>
</form>
</main>`;
  return renderDocument({ title: 'Sign in: key management', nonce, body });
}

/** A refusal (a bad form, an unknown page, a wrong method) with the way back. */
export function renderMessagePage(
  nonce: string,
  title: string,
  message: string,
  details: Record<string, unknown> = {},
): string {
  const body = `<main class="narrow">
<h1>${escapeHtml(title)}</h1>
${errorBox(message, details)}
<p><a href="/admin/">Back to key management</a></p>
</main>`;
  return renderDocument({ title: `${title}: key management`, nonce, body });
}
