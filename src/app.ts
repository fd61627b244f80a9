/**
 * The HTTP server: node:http, one request pipeline, one error path.
 *
 * route match -> key (401) -> policy: tier, CritPt approval (403) -> query (400) -> provider
 * (404) -> policy: grant (403) -> body lookup (404) -> conditional (304) -> quota (429) ->
 * journal -> precomputed bytes. What the route table's flags ask of a key is src/policy.ts.
 *
 * No JSON is serialised and no file is opened per request: bodies come from the snapshot's
 * manifest and pack (through an LRU), and request paths never become file paths.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { redactPath, redactQuery, type AccessLog } from './http/access-log.ts';
import type { Clock } from './lib/clock.ts';
import type { Metrics } from './http/metrics.ts';
import type { ServerOptions } from './config.ts';
import { errorBody, HttpError } from './http/error.ts';
import type { KeyLookup, KeyRecord } from './keys/store.ts';
import type { Encoding } from './shared/manifest.ts';
import type { Grader } from './critpt/grader.ts';
import { then, type Eventually } from './lib/eventually.ts';
import type { Step } from './lib/idle-work.ts';
import { bytesSent, headersOf, send, type HeaderFields, type Headers } from './http/respond.ts';
import { encodingFor, etagMatches, prefersHtml } from './http/negotiate.ts';
import { QueryValidator } from './http/query.ts';
import type { QuotaCounter, QuotaStatus } from './quota/book.ts';
import { countAnswer, quotaExceeded, rateLimitFields } from './counting.ts';
import { Router } from './http/router.ts';
import { RequestPlans, type Plan } from './http/request-plans.ts';
import { timedOutSockets } from './http/server.ts';
import { admitKey, admitProvider, dataLimit, measurementsStartDay, quotaScope } from './policy.ts';
import { PUBLIC_BODY_TIER, ROUTES, snapshotKey, type Route, type Tier } from './shared/routes.ts';
import type { Body, Snapshot, SnapshotStore } from './snapshot/store.ts';

export const CACHE_CONTROL = 'private, max-age=300';
const JSON_TYPE = 'application/json; charset=utf-8';
const JSON_BODY = { contentType: JSON_TYPE, vary: 'Accept-Encoding' };

export interface AppParts {
  options: ServerOptions;
  clock: Clock;
  keys: KeyLookup;
  quota: QuotaCounter;
  /** The CritPt route's grader (built by start, so a test can give another). */
  grader: Grader;
  snapshots: SnapshotStore;
  logError: (line: string) => void;
  /** Null when all is well, else why the server is not ready (for /readyz). */
  readiness: () => string | null;
  metrics?: Metrics;
  accessLog?: AccessLog;
}


/** One request under way: what the access log and the metrics need to know of it. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  snapshot: Snapshot;
  route?: Route;
  /** The valid key presented; every response to it says its tier, errors included. */
  key?: KeyRecord;
  /** The data quota as every response to the key shows it: before counting, then after. */
  quota?: QuotaStatus;
  /** A grading's counter, shown instead on the CritPt route. */
  critptHeaders?: Headers;
  started: number;
}

/** The fields every response to a valid key carries: its tier and its quota. */
function keyFields({ key, quota }: Exchange): HeaderFields {
  if (!key) return [];
  const fields: HeaderFields = ['X-Platform-Tier', key.tier];
  if (quota) fields.push(...rateLimitFields(quota));
  return fields;
}

/** The fields a 304 repeats from the 200 it stands for (RFC 9110, 15.4.5), added to `fields`. */
function cacheFields(fields: HeaderFields, body: Body, vary: string): HeaderFields {
  fields.push('ETag', body.etag, 'Vary', vary, 'Cache-Control', CACHE_CONTROL);
  return fields;
}

/** The same, with a grading's counter, as an object for the answers that merge in more. */
function keyHeaders(exchange: Exchange): Headers {
  return { ...headersOf(keyFields(exchange)), ...exchange.critptHeaders };
}

export class App {
  private readonly queries = new QueryValidator();
  private readonly plans = new RequestPlans(new Router(ROUTES), this.queries);

  constructor(private readonly parts: AppParts) {}

  /**
   * One step per route: compile its query validator. Run in idle moments after start-up; a
   * request that comes first compiles its own validator on the spot.
   */
  warmSteps(): Step[] {
    return ROUTES.map((route) => () => this.queries.warm(route));
  }

  /**
   * The request handler (behind the connection bounds of http-server.ts). Never throws; every
   * failure becomes a JSON error. `closed` runs once the response has closed.
   */
  readonly handle = (req: IncomingMessage, res: ServerResponse, closed: () => void): void => {
    const snapshot = this.parts.snapshots.current;
    snapshot.acquire();
    const exchange: Exchange = { req, res, snapshot, started: performance.now() };
    // 'close' comes once, so `on` does (and spares the wrapper `once` builds per request).
    res.on('close', () => {
      snapshot.release();
      this.observe(exchange);
      closed();
    });
    try {
      const pending = this.answer(exchange);
      if (pending) pending.catch((error: unknown) => this.fail(exchange, error));
    } catch (error) {
      this.fail(exchange, error);
    }
  };

  /** Access log line and metrics of a finished exchange. */
  private observe({ req, res, route, key, started }: Exchange): void {
    const { accessLog, metrics } = this.parts;
    if (!accessLog && !metrics) return;
    const ms = performance.now() - started;
    const routeId = route?.id ?? 'unmatched';
    const status = outcomeStatus(req, res);
    metrics?.observe(routeId, status, ms / 1000);
    if (!accessLog) return;
    const [path, query] = (req.url ?? '').split('?', 2);
    accessLog.record({
      time: new Date(this.parts.clock.now()).toISOString(),
      method: req.method ?? '',
      route: routeId,
      path: redactPath(path.length > 512 ? `${path.slice(0, 512)}...` : path),
      // A grading's query goes to the grader and stays out of the log.
      ...(query && route?.answer !== 'critpt' ? { query: redactQuery(query.slice(0, 512)) } : {}),
      status,
      bytes: bytesSent(res),
      ms: Math.round(ms * 1000) / 1000,
      ...(key ? { key: key.id } : {}),
    });
  }

  private fail(exchange: Exchange, error: unknown): void {
    const { req, res } = exchange;
    let httpError: HttpError;
    if (error instanceof HttpError) httpError = error;
    else if (clientWentAway(req)) {
      // An expected end (the client hung up, or node cut a request that came too slowly): no
      // answer is possible and no stack is worth logging; the access log says 499 or 408.
      res.destroy();
      return;
    } else {
      this.parts.logError(`500 ${req.method} ${redactPath(req.url?.split('?')[0] ?? '')}: ${(error as Error)?.stack ?? String(error)}`);
      httpError = new HttpError(500, 'Internal server error', { retry: 'with exponential backoff' });
    }
    if (httpError.status === 429) this.parts.metrics?.quotaRejections.inc({ kind: exchange.route?.answer === 'critpt' ? 'critpt' : 'data' });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const headers: Headers = { ...keyHeaders(exchange), ...httpError.headers, 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store' };
    send(res, httpError.status, headers, errorBody(httpError), req.method === 'HEAD');
  }

  /** The presented key's record: at once from the state folder, later from a shared store. */
  private authenticate(req: IncomingMessage): Eventually<KeyRecord> {
    const presented = req.headers['x-api-key'];
    if (presented === undefined || presented === '') throw new HttpError(401, 'API key is required', { header: 'x-api-key' });
    return then(typeof presented === 'string' ? this.parts.keys.lookup(presented) : undefined, (key) => {
      if (!key) throw new HttpError(401, 'Invalid API key', { header: 'x-api-key' });
      return key;
    });
  }

  /** Synchronous until something must be waited for; throws (or rejects) HttpErrors. */
  private answer(exchange: Exchange): Eventually<void> {
    const { req } = exchange;
    const plan = this.plans.plan(req.method ?? 'GET', req.url ?? '/');
    exchange.route = plan.route;
    if (plan.route.public) return this.answerPublic(exchange, plan);
    return then(this.authenticate(req), (key) => this.answerKey(exchange, plan, key));
  }

  /** A keyed route, once the key is known: CritPt, or a data route once its quota status is known. */
  private answerKey(exchange: Exchange, plan: Plan, key: KeyRecord): Eventually<void> {
    const { req, res, snapshot } = exchange;
    const { route } = plan;
    exchange.key = key;
    if (route.answer === 'critpt') {
      return then(this.parts.grader.rateLimitHeaders(key), (headers) => {
        exchange.critptHeaders = headers;
        admitKey(route, key, this.parts.options.critptContact);
        // The query string of a grading goes to the grader as it is (e.g. stream_progress=true).
        return this.parts.grader.handle(req, res, key, plan.query, snapshot.manifest.critpt_problems ?? [], keyHeaders(exchange));
      });
    }
    const scope = quotaScope(key);
    const limit = dataLimit(key, this.parts.options.limits);
    return then(this.parts.quota.status('data', scope, limit), (before) => this.answerData(exchange, plan, key, scope, limit, before));
  }

  /** A data route, once the key's quota status is known: policy, query, body, count, send. */
  private answerData(exchange: Exchange, plan: Plan, key: KeyRecord, scope: string, limit: number, before: QuotaStatus): Eventually<void> {
    const { req, snapshot } = exchange;
    const { route } = plan;
    exchange.quota = before;
    admitKey(route, key, this.parts.options.critptContact);
    plan.values(); // a 400 for a bad query comes after the key's 403s
    const encoding = acceptedEncoding(req);
    const body = route.answer === 'fragments' ? this.measurements(snapshot, plan, key, encoding) : this.body(snapshot, plan, key.tier, encoding);
    return then(body, (ready) =>
      this.sendBody(exchange, ready, encoding, (answer) => {
        const counted = this.parts.options.counting && req.method !== 'HEAD';
        if (counted) return countAnswer(this.parts.quota, scope, limit, () => this.parts.clock.now(), answer, (error) => this.fail(exchange, error));
        if (before.exhausted) throw quotaExceeded(before, this.parts.clock.now());
        answer();
      }),
    );
  }

  /**
   * Send a precomputed body: 304 when the client's copy is current (free, even with the quota
   * used up), otherwise `admit` decides: it calls `answer` (now, or once the request's count is
   * durable, with the quota the answer shows after counting), or throws (a 429).
   */
  private sendBody(exchange: Exchange, body: Body, encoding: Encoding, admit: (answer: (after?: QuotaStatus) => void) => Eventually<void>, type: { contentType: string; vary: string } = JSON_BODY): Eventually<void> {
    const { req, res } = exchange;
    if (etagMatches(req.headers['if-none-match'], body.etag)) {
      res.writeHead(304, cacheFields(keyFields(exchange), body, type.vary));
      res.end();
      return;
    }
    return admit((after) => {
      if (after) exchange.quota = after;
      const fields = keyFields(exchange);
      fields.push('Content-Type', type.contentType);
      cacheFields(fields, body, type.vary);
      if (encoding !== 'identity') fields.push('Content-Encoding', encoding);
      send(res, 200, fields, body.bytes, req.method === 'HEAD');
    });
  }

  /** Routes without a key: the OpenAPI document, health, readiness, metrics. Never counted. */
  private answerPublic(exchange: Exchange, plan: Plan): Eventually<void> {
    const { req, res, snapshot } = exchange;
    const { route, query } = plan;
    const params = plan.values();
    const plain = (status: number, type: string, text: string) => send(res, status, { 'Content-Type': type, 'Cache-Control': 'no-store' }, text, req.method === 'HEAD');
    switch (route.answer) {
      case 'health':
        return plain(200, JSON_TYPE, '{"status":"ok"}');
      case 'ready': {
        const problem = this.parts.readiness();
        if (problem) throw new HttpError(503, 'Not ready', { reason: problem });
        return plain(200, JSON_TYPE, JSON.stringify({ status: 'ready', snapshot: snapshot.buildId }));
      }
      case 'metrics':
        if (!this.parts.metrics) throw new HttpError(404, 'Metrics are off; start the server with --metrics', { option: '--metrics' });
        return plain(200, 'text/plain; version=0.0.4; charset=utf-8', this.parts.metrics.render());
      default: {
        const encoding = acceptedEncoding(req);
        if (!route.keyParams.includes('format')) return then(this.body(snapshot, plan, PUBLIC_BODY_TIER, encoding), (body) => this.sendBody(exchange, body, encoding, answerNow));
        // The front door: a browser (Accept: text/html first) gets the page unless format is given.
        const html = /(^|&)format=/.test(query) ? params.format === 'html' : prefersHtml(req.headers.accept);
        const type = html ? { contentType: 'text/html; charset=utf-8', vary: 'Accept-Encoding, Accept' } : { ...JSON_BODY, vary: 'Accept-Encoding, Accept' };
        const key = snapshotKey(route, PUBLIC_BODY_TIER, { format: html ? 'html' : 'json' });
        return then(this.body(snapshot, plan, PUBLIC_BODY_TIER, encoding, key), (body) => this.sendBody(exchange, body, encoding, answerNow, type));
      }
    }
  }

  /**
   * Raw measurements since `start_date`: by default, and at the earliest, one month before
   * the request (by the server's clock). The provider must exist (404) and the key must hold
   * a grant for it (403).
   */
  private async measurements(snapshot: Snapshot, plan: Plan, key: KeyRecord, encoding: Encoding): Promise<Body> {
    const { route, slug } = plan;
    this.ensureServed(snapshot, route);
    const snapshotEntry = plan.snapshotKey(key.tier);
    if (!snapshot.fragment(snapshotEntry)) throw new HttpError(404, `Provider not found: ${slug}`, { slug });
    admitProvider(route, key, slug!);
    const startDay = measurementsStartDay(plan.values().start_date as string | undefined, this.parts.clock.now());
    return this.parts.snapshots.measurements(snapshot, snapshotEntry, startDay, encoding);
  }

  /** A route of the table that the current snapshot does not answer is known but not served: 501. */
  private ensureServed(snapshot: Snapshot, route: Route): void {
    if (!snapshot.serves(route.id)) throw new HttpError(501, `${route.method} ${route.path} is not served yet: the current snapshot has no data for it`, { route: route.id });
  }

  /** The precomputed body answering this request (the plan's, unless `key` names another), in the chosen encoding. */
  private body(snapshot: Snapshot, plan: Plan, tier: Tier, encoding: Encoding, key = plan.snapshotKey(tier)): Eventually<Body> {
    const { route, slug } = plan;
    this.ensureServed(snapshot, route);
    const entry = snapshot.entry(route.id, key);
    if (entry) return this.parts.snapshots.body(snapshot, entry, encoding);
    if (route.slugOf) throw new HttpError(404, `${route.slugOf} not found: ${slug}`, { slug });
    if (route.paginated) {
      const params = plan.values();
      const empty = snapshot.emptyPage(snapshotKey(route, tier, { ...params, page: '*' }));
      if (empty) return this.parts.snapshots.assembled(Buffer.from(`${empty.before}${params.page}${empty.after}`), encoding);
    }
    throw new Error(`snapshot ${snapshot.buildId} lacks ${key}`);
  }
}

/** Admission for what is never counted: answer at once. */
const answerNow = (answer: () => void): void => answer();

function acceptedEncoding(req: IncomingMessage): Encoding {
  const encoding = encodingFor(req.headers['accept-encoding']);
  if (!encoding) throw new HttpError(406, 'No acceptable content encoding: this server sends br, gzip or identity', { available: ['br', 'gzip', 'identity'] });
  return encoding;
}

/** The client closed the connection, or node's request timeout closed it, before the request was read. */
function clientWentAway(req: IncomingMessage): boolean {
  return req.readableAborted || req.socket.destroyed;
}

/**
 * The status an exchange ended with, for the log and the metrics: what was sent, or, when nothing
 * was, 408 for a request node's timeout cut and 499 (nginx's "client closed request") otherwise.
 */
export function outcomeStatus(req: IncomingMessage, res: ServerResponse): number {
  if (res.headersSent || res.writableFinished) return res.statusCode;
  return timedOutSockets.has(req.socket) ? 408 : 499;
}
