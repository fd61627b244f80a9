/**
 * The admin listener: a node:http server of its own, off by default and on loopback unless the
 * operator says otherwise, never the public port (the public router has no admin path, so the
 * public port answers them 404). Every request is authenticated by an admin token: the JSON API
 * (`/admin/api/...`) and its OpenAPI document by `Authorization: Bearer`, the key-management
 * page (page.ts) by the cookie its login form sets. Without a valid token: 401, and nothing about
 * the store.
 *
 * Bodies are bounded (ADMIN_BODY_LIMIT) and checked before they are parsed, so a hostile body
 * costs nothing; every failure is the public API's `{error, details}`; nothing here logs a
 * token, a key or a body.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { HttpError } from '../http/error.ts';
import { checkJsonLimits } from '../http/json-limits.ts';
import { ADMIN_TOKEN_PATTERN, matchToken, type AdminTokenRecord } from '../keys/admin-tokens.ts';
import { ADMIN_BODY_LIMIT, AdminError, adminErrorOf, API_PREFIX, checkQuery } from './input.ts';
import { JsonPieces } from './operation.ts';
import { OPERATIONS, runOperation, type AdminContext, type Operation } from './operations.ts';
import { adminOpenApi } from './openapi.ts';
import { isPagePath, PAGE_COOKIE, servePage } from './page.ts';

const JSON_LIMITS = { depth: 8, values: 20_000 };

const COMMON_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...COMMON_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** An answer made as it is sent (chunked), its pieces taken as fast as the client reads them; a client gone stops it. */
async function sendPieces(res: ServerResponse, status: number, body: JsonPieces): Promise<void> {
  res.writeHead(status, { ...COMMON_HEADERS, 'Content-Type': 'application/json; charset=utf-8' });
  for await (const text of body.texts) {
    if (!res.write(text)) await drained(res);
    if (res.destroyed) return;
  }
  res.end();
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function sendError(res: ServerResponse, error: AdminError): void {
  sendJson(res, error.status, { error: error.message, details: error.details }, error.headers);
}

/** A body of at most ADMIN_BODY_LIMIT bytes; a larger one is refused as soon as it is known to be larger. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > ADMIN_BODY_LIMIT) return Promise.reject(new AdminError(413, 'Body too large', { limit_bytes: ADMIN_BODY_LIMIT }));
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > ADMIN_BODY_LIMIT) {
        req.removeAllListeners('data');
        req.resume();
        reject(new AdminError(413, 'Body too large', { limit_bytes: ADMIN_BODY_LIMIT }));
      } else parts.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

/** The JSON body of an API call: absent (no bytes) is undefined, anything else must be bounded, well-formed JSON. */
async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const bytes = await readBody(req);
  if (bytes.length === 0) return undefined;
  if (mediaType(req) !== 'application/json') throw new AdminError(415, 'Unsupported media type', { expected: 'application/json' });
  try {
    checkJsonLimits(bytes, JSON_LIMITS);
  } catch (error) {
    if (error instanceof HttpError) throw new AdminError(error.status, error.message, error.details);
    throw error;
  }
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new AdminError(400, 'Invalid JSON body', {});
  }
}

/** The `name=value` of one cookie, if sent. */
function cookie(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new AdminError(400, 'Invalid request target', { segment: segment.slice(0, 100) });
  }
}

/** An operation whose path pattern matches, with its parameters; `allowed` lists the methods of paths that match. */
function matchOperation(method: string, path: string): { operation: Operation; params: Record<string, string> } | { allowed: string[] } {
  const allowed: string[] = [];
  const parts = path.split('/');
  for (const operation of OPERATIONS) {
    const pattern = operation.path.split('/');
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((segment, i) => {
      if (segment.startsWith('{')) {
        params[segment.slice(1, -1)] = decodedSegment(parts[i]);
        return parts[i].length > 0;
      }
      return segment === parts[i];
    });
    if (!matches) continue;
    if (operation.method === method) return { operation, params };
    allowed.push(operation.method);
  }
  return { allowed };
}

export interface AdminListenerOptions {
  context: AdminContext;
  /** Called with the text of a failure that is a bug (a 500), never with a token or a body. */
  logError: (line: string) => void;
}

export function createAdminListener({ context, logError }: AdminListenerOptions): Server {
  const csrfSecret = randomBytes(32);
  const authenticate = async (token: string): Promise<AdminTokenRecord | null> => (ADMIN_TOKEN_PATTERN.test(token) ? matchToken(await context.keys.tokens.list(), token) : null);

  async function bearer(req: IncomingMessage): Promise<AdminTokenRecord> {
    const match = /^Bearer +(\S+)$/i.exec(req.headers.authorization ?? '');
    const record = match ? await authenticate(match[1]) : null;
    if (!record) throw new AdminError(401, 'Unauthorized', { reason: 'an admin token is required: Authorization: Bearer bdat_... (made by the keys command: admin-token create)' }, { 'WWW-Authenticate': 'Bearer realm="admin"' });
    return record;
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const token = await bearer(req);
    const found = matchOperation(req.method ?? '', path.slice(API_PREFIX.length));
    if ('allowed' in found) {
      if (found.allowed.length === 0) throw new AdminError(404, 'Not found', { path, operations: `${API_PREFIX}/keys, ${API_PREFIX}/usage, ${API_PREFIX}/audit; see /admin/openapi.json` });
      throw new AdminError(405, 'Method not allowed', { allowed: found.allowed }, { Allow: found.allowed.join(', ') });
    }
    checkQuery(found.operation.query, query);
    const body = await jsonBody(req);
    if (body !== undefined && !found.operation.body) throw new AdminError(400, 'Invalid body', { expected: 'no body' });
    const answer = await runOperation(found.operation, context, { pieces: true, params: found.params, query, body: body ?? {}, caller: { tokenId: token.id, tokenName: token.name, from: req.socket.remoteAddress ?? 'unknown' } });
    if (answer.body instanceof JsonPieces) return sendPieces(res, answer.status, answer.body);
    sendJson(res, answer.status, answer.body);
  }

  async function page(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    let form: URLSearchParams | null = null;
    if (req.method === 'POST') {
      const bytes = await readBody(req);
      if (mediaType(req) !== 'application/x-www-form-urlencoded') throw new AdminError(415, 'Unsupported media type', { expected: 'application/x-www-form-urlencoded' });
      form = new URLSearchParams(bytes.toString('utf8'));
    }
    const answer = await servePage(
      { context, authenticate, csrfSecret },
      { method: req.method ?? '', path, query, form, cookieToken: cookie(req, PAGE_COOKIE), from: req.socket.remoteAddress ?? 'unknown', origin: req.headers.origin, fetchSite: req.headers['sec-fetch-site'] as string | undefined, host: req.headers.host },
    );
    res.writeHead(answer.status, { 'Content-Length': Buffer.byteLength(answer.body), ...answer.headers });
    res.end(answer.body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://admin.invalid');
    } catch {
      throw new AdminError(400, 'Invalid request target', {});
    }
    const path = url.pathname;
    if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) return api(req, res, path, url.searchParams);
    if (path === '/admin/openapi.json') {
      await bearer(req);
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new AdminError(405, 'Method not allowed', { allowed: ['GET'] }, { Allow: 'GET, HEAD' });
      return sendJson(res, 200, adminOpenApi());
    }
    if (path === '/admin' || path === '/') {
      res.writeHead(308, { ...COMMON_HEADERS, Location: '/admin/', 'Content-Length': 0 });
      return void res.end();
    }
    if (isPagePath(path)) return page(req, res, path, url.searchParams);
    throw new AdminError(404, 'Not found', { path, see: '/admin/ (the key-management page), /admin/api/keys, /admin/openapi.json' });
  }

  return createServer({ requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      const known = adminErrorOf(error);
      if (!known) logError(`admin listener: ${req.method} ${new URL(req.url ?? '/', 'http://admin.invalid').pathname} failed: ${(error as Error)?.stack ?? String(error)}`);
      if (res.headersSent) return void res.destroy();
      sendError(res, known ?? new AdminError(500, 'Internal error', {}));
      // A body refused before it was read is not read: the connection cannot carry another request.
      if (known?.status === 413) res.once('finish', () => req.socket.destroy());
    });
  });
}
