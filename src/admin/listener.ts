/**
 * The admin listener: a node:http server of its own, off by default and on loopback unless the
 * operator says otherwise, never the public port (the public router has no admin path, so the
 * public port answers them 404). Every request is authenticated by an admin token: the JSON API
 * (`/admin/api/...`) and its OpenAPI document by `Authorization: Bearer`, the key-management
 * page (page.ts) by the session its login form makes (sessions.ts). Without a valid token or
 * session: 401, and nothing about the store. The client's address (the audit trail's `from`) is
 * the socket's peer, or behind trusted proxies (--trust-proxy) the client they name.
 *
 * It is built of the public server's toolkit (src/http/): its API paths are matched by the
 * route table's Router, bodies read by the one bounded reader (ADMIN_BODY_LIMIT, within a
 * budget of its own) and checked before they are parsed, so a hostile body costs nothing, and
 * every failure is an HttpError answered by one error path as the public API's
 * `{error, details}`. Nothing here logs a token, a key or a body.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { BodyBudget } from '../http/body-budget.ts';
import { answerOf, HttpError } from '../http/error.ts';
import { Unavailable } from '../lib/unavailable.ts';
import { checkJsonLimits } from '../http/json-limits.ts';
import { PUBLIC_REFUSALS, readBody, type BodyLimits, type BodyRefusals } from '../http/read-body.ts';
import { ADMIN_TOKEN_PATTERN, matchToken, type AdminTokenRecord } from '../keys/admin-tokens.ts';
import { ADMIN_BODY_LIMIT, API_PREFIX, checkQuery, httpErrorOf } from './input.ts';
import { JsonPieces } from './operation.ts';
import { runOperation, type AdminContext } from './operations.ts';
import { API_ROUTER, decodedParams } from './api-routes.ts';
import { sendError, sendJson, sendPieces, sendRedirect } from './send.ts';
import { adminOpenApi } from './openapi.ts';
import { PAGE_COOKIE, servePage } from './page.ts';
import { isPagePath } from './page-routes.ts';
import { AdminSessions, type SessionLimits } from './sessions.ts';
import { proxiesOf } from '../http/forwarded.ts';
import type { AddressSet } from '../lib/address-set.ts';

const JSON_LIMITS = { depth: 8, values: 20_000 };

/**
 * Bodies in memory at once: 64 at the limit on the listener, 16 from one address. The listener
 * is for operators, who send a body at a time; these only stop a flood from taking the process.
 */
const ADMIN_BODY_BUDGET = { totalBytes: 64 * ADMIN_BODY_LIMIT, perScopeBytes: 16 * ADMIN_BODY_LIMIT };
/** A body at the limit arrives in a few seconds on any link an operator uses; one trickled longer is cut (408). */
const ADMIN_BODY_LIMITS: BodyLimits = { maxBytes: ADMIN_BODY_LIMIT, minBytesPerSecond: 1024, graceMs: 5_000 };
/** The public refusals, but the admin API's own wording of a body too large (its answer since it began). */
const ADMIN_REFUSALS: BodyRefusals = {
  ...PUBLIC_REFUSALS,
  tooLarge: (maxBytes) => new HttpError(413, 'Body too large', { details: { limit_bytes: maxBytes } }),
};

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

/** The `name=value` of one cookie, if sent. */
function cookie(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

/** A client that went away before its request was read: there is no one to answer, and it is no bug. */
function clientGone(req: IncomingMessage): boolean {
  return req.readableAborted || req.socket.destroyed;
}

export interface AdminListenerOptions {
  context: AdminContext;
  /** Called with the text of a failure that is a bug (a 500), never with a token or a body. */
  logError: (line: string) => void;
  /** How long the page's sessions last, and how many at once (sessions.ts). */
  sessions: SessionLimits;
  /** The reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are read; null: none. */
  trustProxy: AddressSet | null;
}

export function createAdminListener({ context, logError, sessions, trustProxy }: AdminListenerOptions): Server {
  const csrfSecret = randomBytes(32);
  const bodies = new BodyBudget(ADMIN_BODY_BUDGET);
  const { clientOf, overHttps } = proxiesOf(trustProxy);
  const pageDeps = {
    context,
    csrfSecret,
    sessions: new AdminSessions(context.clock, sessions),
    authenticate: async (token: string): Promise<AdminTokenRecord | null> =>
      ADMIN_TOKEN_PATTERN.test(token) ? matchToken(await context.keys.tokens.list(), token) : null,
    activeToken: async (id: string): Promise<AdminTokenRecord | null> =>
      (await context.keys.tokens.list()).find((t) => t.id === id && t.revoked_at === null) ?? null,
  };
  const { authenticate } = pageDeps;

  async function bearer(req: IncomingMessage): Promise<AdminTokenRecord> {
    const match = /^Bearer +(\S+)$/i.exec(req.headers.authorization ?? '');
    const record = match ? await authenticate(match[1]) : null;
    if (record) return record;
    throw new HttpError(401, 'Unauthorized', {
      details: {
        reason:
          'an admin token is required: Authorization: Bearer bdat_... (made by the keys command: admin-token create)',
      },
      headers: { 'WWW-Authenticate': 'Bearer realm="admin"' },
    });
  }

  /** A body of at most ADMIN_BODY_LIMIT bytes, read by the public server's reader within the listener's budget. */
  function bodyOf(req: IncomingMessage, res: ServerResponse): Promise<Buffer> {
    return readBody(req, res, bodies, clientOf(req), ADMIN_BODY_LIMITS, ADMIN_REFUSALS);
  }

  /** The JSON body of an API call: absent (no bytes) is undefined, anything else must be bounded, well-formed JSON. */
  async function jsonBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const bytes = await bodyOf(req, res);
    if (bytes.length === 0) return undefined;
    if (mediaType(req) !== 'application/json') {
      throw new HttpError(415, 'Unsupported media type', { details: { expected: 'application/json' } });
    }
    checkJsonLimits(bytes, JSON_LIMITS);
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      throw new HttpError(400, 'Invalid JSON body', { cause: error });
    }
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const token = await bearer(req);
    const { route } = API_ROUTER.match(req.method ?? '', path);
    const params = decodedParams(route, path);
    checkQuery(route.operation.query, query);
    const body = await jsonBody(req, res);
    if (body !== undefined && !route.operation.body) {
      throw new HttpError(400, 'Invalid body', { details: { expected: 'no body' } });
    }
    const caller = { tokenId: token.id, tokenName: token.name, from: clientOf(req) };
    const answer = await runOperation(route.operation, context, {
      pieces: true,
      params,
      query,
      body: body ?? {},
      caller,
    });
    if (answer.body instanceof JsonPieces) return sendPieces(res, answer.status, answer.body);
    sendJson(res, answer.status, answer.body);
  }

  async function page(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    let form: URLSearchParams | null = null;
    if (req.method === 'POST') {
      const bytes = await bodyOf(req, res);
      if (mediaType(req) !== 'application/x-www-form-urlencoded') {
        throw new HttpError(415, 'Unsupported media type', {
          details: { expected: 'application/x-www-form-urlencoded' },
        });
      }
      form = new URLSearchParams(bytes.toString('utf8'));
    }
    const answer = await servePage(pageDeps, {
      method: req.method ?? '',
      path,
      query,
      form,
      cookie: cookie(req, PAGE_COOKIE),
      from: clientOf(req),
      secure: overHttps(req),
      origin: req.headers.origin,
      fetchSite: req.headers['sec-fetch-site'] as string | undefined,
      host: req.headers.host,
    });
    res.writeHead(answer.status, { 'Content-Length': Buffer.byteLength(answer.body), ...answer.headers });
    res.end(answer.body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://admin.invalid');
    } catch (error) {
      throw new HttpError(400, 'Invalid request target', { cause: error });
    }
    const path = url.pathname;
    if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) return api(req, res, path, url.searchParams);
    if (path === '/admin/openapi.json') {
      await bearer(req);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new HttpError(405, 'Method not allowed', {
          details: { allowed: ['GET'] },
          headers: { Allow: 'GET, HEAD' },
        });
      }
      return sendJson(res, 200, adminOpenApi());
    }
    if (path === '/admin' || path === '/') {
      return sendRedirect(res, '/admin/');
    }
    if (isPagePath(path)) return page(req, res, path, url.searchParams);
    throw new HttpError(404, 'Not found', {
      details: { path, see: '/admin/ (the key-management page), /admin/api/keys, /admin/openapi.json' },
    });
  }

  /**
   * The one error path: every failure, whatever part threw it, is an HttpError (httpErrorOf maps
   * the key store's refusals) answered as the public API's `{error, details}`; anything else is a
   * bug, logged and answered 500, and the listener lives on.
   */
  function fail(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    const known = httpErrorOf(error);
    if (!known && !(error instanceof Unavailable) && clientGone(req)) return;
    const answer = answerOf(known ?? error, (bug) => {
      const path = new URL(req.url ?? '/', 'http://admin.invalid').pathname;
      logError(`admin listener: ${req.method} ${path} failed: ${(bug as Error)?.stack ?? String(bug)}`);
    });
    if (res.headersSent) return void res.destroy();
    sendError(res, answer);
    // A body refused before it was read is not read: the connection cannot carry another request.
    if (known?.status === 413) res.once('finish', () => req.socket.destroy());
  }

  return createServer({ requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 }, (req, res) => {
    handle(req, res).catch((error: unknown) => fail(req, res, error));
  });
}
