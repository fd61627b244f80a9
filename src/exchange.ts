/**
 * One request under way and how it ends: the fields every answer to a valid key carries, the
 * answers with a body (200) or without (304), the one error path (any thrown error becomes a JSON
 * answer: HttpErrors as they say, storage errors as 503s, anything else as a 500), and the access
 * log line and metrics of the finished exchange.
 */
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { rateLimitFields } from './counting.ts';
import { LoggedTargets, redactPath, type AccessLog } from './http/access-log.ts';
import { answerOf, errorBody, HttpError } from './http/error.ts';
import { answeringEarly } from './http/linger.ts';
import type { Metrics } from './http/metrics.ts';
import { bytesSent, headersOf, JSON_TYPE, send, type HeaderFields, type Headers } from './http/respond.ts';
import { outcomeStatus } from './http/unroutable.ts';
import type { Clock } from './lib/clock.ts';
import { IsoTime } from './lib/iso-time.ts';
import type { KeyRecord } from './state/key-record.ts';
import type { QuotaStatus } from './state/quota-counter.ts';
import { Unavailable } from './lib/unavailable.ts';
import type { Route } from './shared/routes.ts';
import type { Body, Snapshot } from './snapshot/snapshot.ts';

/** Answers depend on the key's tier, so shared caches must not store them. */
export const CACHE_CONTROL = 'private, max-age=300';

/** What a body is, for its Content-Type, and what its choice depended on, for Vary. */
export interface BodyType {
  contentType: string;
  vary: string;
  /** More header fields, as name, value pairs (the front door page's Content-Security-Policy). */
  extra?: readonly string[];
}

export const JSON_BODY: BodyType = { contentType: JSON_TYPE, vary: 'Accept-Encoding' };

/** One request under way: what its answers, the access log and the metrics need to know of it. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** Held (acquired) for the whole answer, so no answer mixes two builds. */
  snapshot: Snapshot;
  route?: Route;
  /** The valid key presented; every answer to it says its tier, errors included. */
  key?: KeyRecord;
  /**
   * The data quota as every answer to the key shows it, from the one quota step (src/app.ts): after
   * counting a 200, as it stands for any other answer.
   */
  quota?: QuotaStatus;
  /** Whose requests that quota counts together (data routes). */
  scope?: string;
  /** A grading's counter, shown instead on the CritPt route. */
  critptHeaders?: Headers;
  /** When it started (performance.now()); 0 when nothing records its time (Endings.record). */
  started: number;
}

/** The fields every answer to a valid key carries: its tier and its quota. */
function keyFields({ key, quota }: Exchange): HeaderFields {
  if (!key) return [];
  const fields: HeaderFields = ['X-Platform-Tier', key.tier];
  if (quota) rateLimitFields(quota, fields);
  return fields;
}

/** The same, with a grading's counter, as an object for the answers that merge in more. */
export function keyHeaders(exchange: Exchange): Headers {
  return { ...headersOf(keyFields(exchange)), ...exchange.critptHeaders };
}

/** The fields a 304 repeats from the 200 it stands for (RFC 9110, 15.4.5), added to `fields`. */
function cacheFields(fields: HeaderFields, body: Pick<Body, 'etag'>, vary: string): HeaderFields {
  fields.push('ETag', body.etag, 'Vary', vary, 'Cache-Control', CACHE_CONTROL);
  return fields;
}

/** 304: the client's copy (If-None-Match) is current. Free, even with the quota used up. */
export function answerNotModified(exchange: Exchange, body: Pick<Body, 'etag'>, type: BodyType = JSON_BODY): void {
  exchange.res.writeHead(304, cacheFields(keyFields(exchange), body, type.vary));
  exchange.res.end();
}

/** 200 with a precomputed body, showing the quota as it stands after this answer was counted. */
export function answerBody(exchange: Exchange, body: Body, type: BodyType = JSON_BODY): void {
  const fields = keyFields(exchange);
  fields.push('Content-Type', type.contentType);
  cacheFields(fields, body, type.vary);
  if (body.encoding !== 'identity') fields.push('Content-Encoding', body.encoding);
  if (type.extra) fields.push(...type.extra);
  send(exchange.res, 200, fields, body.bytes, exchange.req.method === 'HEAD');
}

/** 200 with a small body the server makes itself (health, readiness, metrics): never cached. */
export function answerPlain(exchange: Exchange, contentType: string, text: string): void {
  send(
    exchange.res,
    200,
    { 'Content-Type': contentType, 'Cache-Control': 'no-store' },
    text,
    exchange.req.method === 'HEAD',
  );
}

export interface EndingParts {
  clock: Clock;
  /** The client's address for the access log (src/http/forwarded.ts: the peer, or behind trusted proxies). */
  clientOf: (req: IncomingMessage) => string;
  logError: (line: string) => void;
  metrics?: Metrics;
  accessLog?: AccessLog;
}

/** How exchanges end: their error answers, and the record of each (access log, metrics). */
export class Endings {
  private readonly times = new IsoTime();
  private readonly targets = new LoggedTargets();

  constructor(private readonly parts: EndingParts) {}

  /**
   * The one error path: whatever was thrown becomes a JSON answer, or ends the connection if an
   * answer is under way.
   */
  readonly fail = (exchange: Exchange, error: unknown): void => {
    const { req, res } = exchange;
    if (!(error instanceof HttpError) && !(error instanceof Unavailable) && clientWentAway(req)) {
      // An expected end (the client hung up, or node cut a request that came too slowly): no
      // answer is possible and no stack is worth logging; the access log says 499 or 408.
      res.destroy();
      return;
    }
    const httpError = this.toHttpError(req, error);
    if (httpError.status === 429)
      this.parts.metrics?.quotaRejections.inc({ kind: exchange.route?.answer === 'critpt' ? 'critpt' : 'data' });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const headers: Headers = {
      ...keyHeaders(exchange),
      ...httpError.headers,
      'Content-Type': JSON_TYPE,
      'Cache-Control': 'no-store',
    };
    answeringEarly(req, res);
    send(res, httpError.status, headers, errorBody(httpError), req.method === 'HEAD');
  };

  /**
   * An HttpError as thrown; what the server cannot use right now (state, stored bytes) as a 503;
   * anything else (a bug) as a logged 500.
   */
  private toHttpError(req: IncomingMessage, error: unknown): HttpError {
    return answerOf(error, (bug) => {
      const path = redactPath(req.url?.split('?')[0] ?? '');
      this.parts.logError(`500 ${req.method} ${path}: ${(bug as Error)?.stack ?? String(bug)}`);
    });
  }

  /** The access log line and the metrics of a finished exchange. */
  record({ req, res, route, key, started }: Exchange): void {
    const { accessLog, metrics } = this.parts;
    if (!accessLog && !metrics) return;
    const ms = performance.now() - started;
    const routeId = route?.id ?? 'unmatched';
    const status = outcomeStatus(req, res);
    metrics?.observe(routeId, status, ms / 1000);
    if (!accessLog) return;
    const target = this.targets.of(req.url ?? '');
    accessLog.record({
      time: this.times.of(this.parts.clock.now()),
      client: this.parts.clientOf(req),
      method: req.method ?? '',
      route: routeId,
      path: target.path,
      // A grading's query goes to the grader and stays out of the log.
      query: route?.answer === 'critpt' ? undefined : target.query,
      status,
      bytes: bytesSent(res),
      ms: Math.round(ms * 1000) / 1000,
      key: key?.id,
    });
  }
}

/** The client closed the connection, or node's request timeout closed it, before the request was read. */
function clientWentAway(req: IncomingMessage): boolean {
  return req.readableAborted || req.socket.destroyed;
}
