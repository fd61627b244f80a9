/**
 * The key-management page at /admin/ on the admin listener: a login form, then the keys with a
 * form for every change. The listener hands over every request under /admin/ that is not the JSON
 * API (isPagePath) with its form already parsed; this answers it whole.
 *
 * The page is a client of the admin operations (operations.ts), in-process: it reads and changes
 * the keys only through `runOperation`, with the signed-in token as the caller, so the page and
 * the API check the same things, refuse with the same messages and write the same audit trail.
 *
 * Sign-in makes a session (sessions.ts) and puts its id, never the token, in an HttpOnly,
 * SameSite=Strict cookie (page-session.ts); every request checks the session and its token again,
 * so a token revoked meanwhile signs its pages out at the next click, and sign-out ends the session
 * on the server. Every POST must come from this page's origin (page-csrf.ts) and every change carry
 * the form token of its session. A new key's value is only ever in the body of the answer that
 * made it: never a URL, a redirect or a cookie.
 */
import { randomBytes } from 'node:crypto';
import type { PublicKeyRecord } from '../keys/record.ts';
import { HttpError } from '../http/error.ts';
import { httpErrorOf } from './input.ts';
import { operationById, runOperation, type AdminContext, type Caller } from './operations.ts';
import { csrfToken, csrfValid, fromThisPage } from './page-csrf.ts';
import { actionCall, createCall, doneMessage, type FormCall } from './page-forms.ts';
import { LOGIN_REFUSED, renderLoginPage, renderMessagePage, SESSION_ENDED } from './page-html.ts';
import { renderKeysPage, type KeysPage } from './page-keys-html.ts';
import { flashOfQuery, viewOfForm, viewOfQuery, viewUrl, type PageView } from './page-view.ts';
import { methodsOf, routeOf, type Route } from './page-routes.ts';
import { readStore } from './page-store.ts';
import { ADMIN_TOKEN_PATTERN, type AdminTokenRecord } from '../keys/admin-tokens.ts';
import { clearedCookie, sessionCookie, signedIn, type SessionDeps } from './page-session.ts';

export { PAGE_COOKIE } from './page-session.ts';

export interface PageDeps extends SessionDeps {
  context: AdminContext;
  /** The active admin token a presented token matches, or null (constant-time compare inside). */
  authenticate(token: string): Promise<AdminTokenRecord | null>;
  /** A random per-process secret for CSRF tokens. */
  csrfSecret: Buffer;
}

export interface PageRequest {
  /** 'GET', 'HEAD' or 'POST'; anything else is answered 405. */
  method: string;
  /** e.g. '/admin/', '/admin/login', '/admin/ui/keys/key_0123456789ab/revoke' */
  path: string;
  query: URLSearchParams;
  /** The parsed application/x-www-form-urlencoded body of a POST (the listener enforces size and type), else null. */
  form: URLSearchParams | null;
  /** The value of the `bda_admin` cookie (a session id), if sent. */
  cookie: string | null;
  /** The client's address (for the audit trail's `from`; src/http/forwarded.ts). */
  from: string;
  /** Whether the browser speaks HTTPS (a TLS socket, or a trusted proxy's X-Forwarded-Proto): the cookie is Secure. */
  secure: boolean;
  /** The request's Origin and Sec-Fetch-Site headers, if any (CSRF defence in depth). */
  origin: string | undefined;
  fetchSite: string | undefined;
  /** The request's Host header, to compare with Origin. */
  host: string | undefined;
}

export interface PageAnswer {
  status: number;
  headers: Record<string, string | number | string[]>;
  body: string;
}

const FORM_REFUSED = 'The form has expired or did not come from this page; reload and try again';

/**
 * The headers of every answer: the policy runs only the nonce'd stylesheet and script, and posts
 * only to this origin.
 */
export function pageHeaders(
  nonce: string,
  extra: Record<string, string | number | string[]> = {},
): Record<string, string | number | string[]> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy':
      `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src data:; ` +
      `form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    ...extra,
  };
}

function html(
  status: number,
  nonce: string,
  body: string,
  extra: Record<string, string | number | string[]> = {},
): PageAnswer {
  return { status, headers: pageHeaders(nonce, extra), body };
}

/** 303: the browser follows with a GET, so reloading the page it lands on repeats nothing. */
function redirect(nonce: string, location: string, extra: Record<string, string | string[]> = {}): PageAnswer {
  return html(303, nonce, '', { Location: location, ...extra });
}

/** What every signed-in request works with. */
interface SignedIn {
  nonce: string;
  record: AdminTokenRecord;
  caller: Caller;
  csrf: string;
}

/** What the page shows besides the store's contents. */
type Extras = Partial<Pick<KeysPage, 'flash' | 'issued' | 'createValues'>> & { failure?: HttpError };

export async function servePage(deps: PageDeps, request: PageRequest): Promise<PageAnswer> {
  const nonce = randomBytes(16).toString('base64');
  try {
    return await answer(deps, request, nonce);
  } catch (error) {
    // A failure outside an operation (the token store unreadable when the cookie is checked): a
    // page saying so, not the API's JSON.
    const known = httpErrorOf(error);
    if (!known) throw error;
    return html(
      known.status,
      nonce,
      renderMessagePage(nonce, 'Key management', known.message, known.details),
      known.headers,
    );
  }
}

async function answer(deps: PageDeps, request: PageRequest, nonce: string): Promise<PageAnswer> {
  const route = routeOf(request.path);
  if (route === null)
    return html(
      404,
      nonce,
      renderMessagePage(nonce, 'Not found', 'There is no such page: the key-management page is /admin/.'),
    );
  const allowed = methodsOf(route);
  if (!allowed.includes(request.method))
    return html(
      405,
      nonce,
      renderMessagePage(nonce, 'Method not allowed', `This address answers ${allowed.join(' and ')} only.`),
      { Allow: allowed.join(', ') },
    );
  if (request.method === 'POST' && !fromThisPage(request))
    return html(403, nonce, renderMessagePage(nonce, 'Refused', FORM_REFUSED));
  if (route.kind === 'login') return signIn(deps, request, nonce);

  const found = await signedIn(deps, request.cookie);
  if (found === null) {
    // A cookie that no longer signs in (its session ended) is cleared, so the browser stops sending it.
    if (request.cookie === null) return route.kind === 'logout' ? redirect(nonce, '/admin/') : loginPage(nonce);
    const clear = { 'Set-Cookie': clearedCookie(request.secure) };
    if (route.kind === 'logout') return redirect(nonce, '/admin/', clear);
    return loginPage(nonce, SESSION_ENDED, clear);
  }
  const { session, record } = found;
  // The form token is the session's: forms of a session that ended (signed out elsewhere) are refused.
  const csrf = csrfToken(deps.csrfSecret, session.digest);
  const signedInAs: SignedIn = {
    nonce,
    record,
    caller: { tokenId: record.id, tokenName: record.name, from: request.from },
    csrf,
  };
  if (route.kind === 'page')
    return showPage(deps, signedInAs, viewOfQuery(request.query), { flash: flashOfQuery(request.query) });

  const form = request.form ?? new URLSearchParams();
  if (!csrfValid(deps.csrfSecret, session.digest, form.get('csrf')))
    return html(403, nonce, renderMessagePage(nonce, 'Refused', FORM_REFUSED));
  if (route.kind === 'logout') {
    deps.sessions.end(request.cookie);
    return redirect(nonce, '/admin/', { 'Set-Cookie': clearedCookie(request.secure) });
  }
  return change(deps, signedInAs, route, form);
}

/** 401: the login form, with why the visitor is asked to sign in when there is a reason to give. */
function loginPage(nonce: string, message: string | null = null, extra: Record<string, string> = {}): PageAnswer {
  return html(401, nonce, renderLoginPage(nonce, message), extra);
}

async function signIn(deps: PageDeps, request: PageRequest, nonce: string): Promise<PageAnswer> {
  // A pasted token often brings a space or a line end with it.
  const token = request.form?.get('token')?.trim() ?? '';
  const record = ADMIN_TOKEN_PATTERN.test(token) ? await deps.authenticate(token) : null;
  if (record === null) return loginPage(nonce, LOGIN_REFUSED);
  // A session the browser held before is ended, not left to idle out: one sign-in, one session.
  deps.sessions.end(request.cookie);
  return redirect(nonce, '/admin/', { 'Set-Cookie': sessionCookie(deps.sessions.open(record.id), request.secure) });
}

/**
 * Run a form's operation: a change goes back to the page (303) with a message; a new key's value is
 * shown at once, in this answer only.
 */
async function change(
  deps: PageDeps,
  session: SignedIn,
  route: Extract<Route, { kind: 'create' | 'action' }>,
  form: URLSearchParams,
): Promise<PageAnswer> {
  const view = viewOfForm(form);
  let call: FormCall;
  let body: unknown;
  try {
    call = route.kind === 'create' ? createCall(form) : actionCall(route.action, route.id, form);
    body = (
      await runOperation(operationById(call.operation), deps.context, {
        params: call.params,
        query: new URLSearchParams(),
        body: call.body,
        caller: session.caller,
      })
    ).body;
  } catch (error) {
    const failure = httpErrorOf(error);
    if (!failure) throw error;
    return showPage(deps, session, view, { failure, createValues: route.kind === 'create' ? form : null });
  }
  if (route.kind === 'create' || route.action === 'regenerate') {
    const issued = body as { key: string; record: PublicKeyRecord };
    return showPage(deps, session, view, {
      issued: { key: issued.key, record: issued.record, regenerated: route.kind !== 'create' },
    });
  }
  const changed = (body as { changed?: boolean }).changed !== false;
  return redirect(session.nonce, viewUrl(view, doneMessage(route.action, call, changed)));
}

/**
 * The keys page for a view. A store that cannot be read still gets the page, saying so (and a new
 * key is still shown: it exists).
 */
async function showPage(deps: PageDeps, session: SignedIn, view: PageView, extras: Extras): Promise<PageAnswer> {
  const read = await readStore(deps.context, session.caller, view);
  const stored = read instanceof HttpError ? null : read;
  const failures = [extras.failure, read instanceof HttpError ? read : undefined].filter(
    (f): f is HttpError => f !== undefined,
  );
  const status = extras.failure?.status ?? (stored === null && !extras.issued ? (read as HttpError).status : 200);
  const page: KeysPage = {
    nonce: session.nonce,
    csrf: session.csrf,
    tokenName: session.record.name,
    view,
    store: stored,
    limits: deps.context.limits,
    providers: [...deps.context.served().slugs].sort(),
    flash: extras.flash ?? null,
    errors: failures.map((f) => ({ message: f.message, details: f.details })),
    issued: extras.issued ?? null,
    createValues: extras.createValues ?? null,
  };
  return html(status, session.nonce, renderKeysPage(page), Object.assign({}, ...failures.map((f) => f.headers)));
}
