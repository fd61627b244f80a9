/**
 * The request pipeline, read top to bottom (ARCHITECTURE.md walks it stage by stage):
 *
 *   plan the target (414, 400, 404, 405)
 *   public route: its operational answer (health, readiness, metrics, front door, OpenAPI)
 *   authenticate (401)
 *   CritPt: the grader's counter, authorise (403), grade
 *   data (src/data-answers.ts): decide the answer: authorise (403), query (400), encoding (406),
 *         body (404, 403, 501), 304 when the client's copy is current, else a 200 to count;
 *         then one quota step: count the 200 (429, 503), or read the quota any other answer shows
 *   on a shared store, the quota step also checks the key's record: changed, decide again
 *
 * No JSON is serialised and no file is opened per request: bodies come from the snapshot's
 * manifest and pack (through an LRU), and request paths never become file paths. Anything thrown
 * ends in one place, `Endings.fail`.
 */
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Bodies } from './bodies.ts';
import type { ServerOptions } from './config.ts';
import type { Grader } from './critpt/grader.ts';
import { DataAnswers, type Underway } from './data-answers.ts';
import { Endings, keyHeaders } from './exchange.ts';
import type { AccessLog } from './http/access-log.ts';
import type { Metrics } from './http/metrics.ts';
import type { ConnectionStats } from './http/connection-caps.ts';
import { QueryValidator } from './http/query.ts';
import { RequestPlans, validateQuery } from './http/request-plans.ts';
import { Router } from './http/router.ts';
import type { KeyLookup, KeyRecord } from './state/key-record.ts';
import type { Clock } from './lib/clock.ts';
import { after, recoverWith, whenReady, type Eventually } from './lib/eventually.ts';
import type { Step } from './lib/idle-work.ts';
import { operationalAnswers } from './operational.ts';
import { HttpError } from './http/error.ts';
import { proxiesOf } from './http/forwarded.ts';
import { admitKey, authenticate, endedKey, invalidKey } from './policy.ts';
import type { QuotaCounter } from './state/quota-counter.ts';
import { KeyChanged } from './state/errors.ts';
import { ROUTES } from './shared/routes.ts';
import type { SnapshotStore } from './snapshot/store.ts';
import type { PullStatus } from './pull/puller.ts';
import type { BodyBudget } from './http/body-budget.ts';
import { isMcpPath, McpDoor } from './mcp-door.ts';

export interface AppParts {
  options: ServerOptions;
  clock: Clock;
  keys: KeyLookup;
  /** Told of every request a key authenticates (src/keys/last-used.ts). */
  lastUsed: { note(id: string): void };
  quota: QuotaCounter;
  /** The CritPt route's grader (built by start, so a test can give another). */
  grader: Grader;
  snapshots: SnapshotStore;
  logError: (line: string) => void;
  /** Why the server is not ready (for /readyz); empty when all is well. */
  readiness: () => string[];
  /** What an operator should fix though the server is ready (for /readyz). */
  warnings: () => string[];
  metrics?: Metrics;
  accessLog?: AccessLog;
  /** The connections open and their caps (for /readyz). */
  connections?: () => ConnectionStats;
  /** Request bodies in memory (MCP messages take from the CritPt uploads' budget). */
  uploads: BodyBudget;
  /** The origin snapshots are pulled from and the release served (for /readyz); absent without one. */
  origin?: () => PullStatus;
}

export class App {
  private readonly queries = new QueryValidator();
  private readonly plans = new RequestPlans(new Router(ROUTES), this.queries);
  private readonly bodies: Bodies;
  private readonly operational: ReturnType<typeof operationalAnswers>;
  private readonly endings: Endings;
  private readonly data: DataAnswers;
  private readonly mcp: McpDoor;
  /** Whether an exchange's time is recorded (the access log, the metrics). */
  private readonly timed: boolean;

  constructor(private readonly parts: AppParts) {
    this.timed = parts.accessLog !== undefined || parts.metrics !== undefined;
    this.bodies = new Bodies(parts.snapshots.reader, parts.clock);
    this.operational = operationalAnswers({
      bodies: this.bodies,
      readiness: parts.readiness,
      warnings: parts.warnings,
      verification: () => parts.snapshots.verification(),
      metrics: parts.metrics,
      connections: parts.connections,
      origin: parts.origin,
    });
    this.endings = new Endings({ ...parts, clientOf: proxiesOf(parts.options.trustProxy).clientOf });
    this.data = new DataAnswers(parts, this.bodies, this.endings);
    // A tool call is the route's own request, answered by this handler in this process.
    this.mcp = new McpDoor({ ...parts, handle: this.handle });
  }

  /**
   * One step per route: compile its query validator. Run in idle moments after start-up; a
   * request that comes first compiles its own validator on the spot.
   */
  warmSteps(): Step[] {
    return ROUTES.map((route) => () => this.queries.warm(route));
  }

  /**
   * The request handler (behind the connection bounds of http/server.ts). Never throws; every
   * failure becomes a JSON error. `closed` runs once the response has closed.
   */
  readonly handle = (req: IncomingMessage, res: ServerResponse, closed: () => void): void => {
    const snapshot = this.parts.snapshots.current;
    snapshot.acquire();
    // Every field from the start, so that every exchange has one shape.
    const exchange: Underway = {
      req,
      res,
      snapshot,
      // Read only for the access log and the metrics: node's `performance.now()` checks its
      // receiver each call.
      started: this.timed ? performance.now() : 0,
      route: undefined,
      key: undefined,
      quota: undefined,
      scope: undefined,
      critptHeaders: undefined,
      plan: undefined,
      decisions: 0,
      decided: undefined,
    };
    // 'close' comes once, so `on` does (and spares the wrapper `once` builds per request).
    res.on('close', () => {
      snapshot.release();
      this.endings.record(exchange);
      closed();
    });
    try {
      const pending = this.answer(exchange);
      if (pending) pending.catch((error: unknown) => this.endings.fail(exchange, error));
    } catch (error) {
      this.endings.fail(exchange, error);
    }
  };

  /** Synchronous until something must be waited for; throws (or rejects) what the error path answers. */
  private answer(exchange: Underway): Eventually<void> {
    const { req } = exchange;
    if (isMcpPath(req.url)) return this.mcp.answer(exchange);
    const plan = this.plans.plan(req.method ?? 'GET', req.url ?? '/');
    const { route } = plan;
    exchange.plan = plan;
    exchange.route = route;
    if (route.public) {
      validateQuery(plan);
      return this.operational[route.answer]!(exchange, plan);
    }
    return after(
      authenticate(req.headers['x-api-key'], this.parts.keys, this.parts.clock),
      this.authenticated,
      exchange,
    );
  }

  /** The key found: noted as used, and everything after authentication decided on its record. */
  private readonly authenticated = (exchange: Underway, key: KeyRecord): Eventually<void> => {
    this.parts.lastUsed.note(key.id);
    return this.answerKey(exchange, key);
  };

  /**
   * Everything after authentication, decided on `key`'s record. A shared store may hold a newer
   * record than the one this server decided with: the quota step every keyed answer takes checks
   * it in the same round trip (src/state/quota-counter.ts) and throws KeyChanged, counting nothing, and
   * the request is decided again on the record as it is now.
   */
  private answerKey(exchange: Underway, key: KeyRecord): Eventually<void> {
    exchange.key = key;
    exchange.quota = undefined;
    exchange.critptHeaders = undefined;
    exchange.decisions++;
    return recoverWith(this.answerKeyed, this.keyChanged, exchange);
  }

  /** A keyed route's answer: a grading, or data. */
  private readonly answerKeyed = (exchange: Underway): Eventually<void> =>
    exchange.route!.answer === 'critpt' ? this.grade(exchange) : this.data.serve(exchange);

  /** What answerKeyed threw: a record that changed is decided on again (at most MAX_DECISIONS times). */
  private readonly keyChanged = (exchange: Underway, error: unknown): Eventually<void> => {
    if (!(error instanceof KeyChanged)) throw error;
    const refusal = error.record ? endedKey(error.record, this.parts.clock) : invalidKey();
    if (refusal) {
      exchange.key = undefined;
      exchange.quota = undefined;
      throw refusal;
    }
    if (exchange.decisions >= MAX_DECISIONS)
      throw new HttpError(503, 'The API key changed while this request was answered; retry', {
        headers: { 'Retry-After': 1 },
      });
    return this.answerKey(exchange, error.record!);
  };

  /**
   * A CritPt grading: the grading counter every answer shows (its step checks the key), the key's
   * approval (403), then the grader reads, checks, forwards and answers.
   */
  private grade(exchange: Underway): Eventually<void> {
    const { req, res, snapshot, plan } = exchange;
    const key = exchange.key!;
    return whenReady(this.parts.grader.rateLimitHeaders(key), (headers) => {
      exchange.critptHeaders = headers;
      admitKey(exchange.route!, key, this.parts.options.critptContact);
      // The query string of a grading goes to the grader as it is (e.g. stream_progress=true).
      return this.parts.grader.handle(
        req,
        res,
        key,
        plan!.query,
        snapshot.manifest.critpt_problems ?? [],
        keyHeaders(exchange),
      );
    });
  }
}

/** How many times one request is decided on a key's record that keeps changing under it before it is answered 503. */
const MAX_DECISIONS = 3;
