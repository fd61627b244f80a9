/**
 * The request pipeline, read top to bottom (ARCHITECTURE.md walks it stage by stage):
 *
 *   plan the target (414, 400, 404, 405)
 *   public route: its operational answer (health, readiness, metrics, front door, OpenAPI)
 *   authenticate (401)
 *   CritPt: the grader's counter, authorise (403), grade
 *   data: decide the answer: authorise (403), query (400), encoding (406), body (404, 403, 501),
 *         304 when the client's copy is current, else a 200 to count;
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
import { quotaExceeded } from './counting.ts';
import type { Grader } from './critpt/grader.ts';
import { answerBody, answerNotModified, Endings, keyHeaders, type Exchange } from './exchange.ts';
import type { AccessLog } from './http/access-log.ts';
import type { Metrics } from './http/metrics.ts';
import type { ConnectionStats } from './http/connection-caps.ts';
import { acceptedEncodings, etagMatches, matchesAny } from './http/negotiate.ts';
import { QueryValidator } from './http/query.ts';
import { RequestPlans, validateQuery, type Plan } from './http/request-plans.ts';
import { Router } from './http/router.ts';
import type { KeyLookup, KeyRecord } from './state/key-record.ts';
import type { Clock } from './lib/clock.ts';
import { after, recoverWith, whenReady, type Eventually } from './lib/eventually.ts';
import type { Step } from './lib/idle-work.ts';
import { TurnEnd } from './lib/turn-end.ts';
import { operationalAnswers } from './operational.ts';
import { HttpError } from './http/error.ts';
import { proxiesOf } from './http/forwarded.ts';
import { admitKey, authenticate, endedKey, invalidKey } from './policy.ts';
import { DURABLE_NOW, type QuotaCounter, type QuotaStatus, type Taken } from './state/quota-counter.ts';
import { JournalUnavailable, KeyChanged } from './state/errors.ts';
import { dataLimit, quotaScope } from './quota/scopes.ts';
import { ROUTES } from './shared/routes.ts';
import type { Body } from './snapshot/snapshot.ts';
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
  /** Data answers leave together at the end of their turn (src/lib/turn-end.ts says why). */
  private readonly turnEnd: TurnEnd<Underway>;
  private readonly mcp: McpDoor;
  /** Whether an exchange's time is recorded (the access log, the metrics). */
  private readonly timed: boolean;

  constructor(private readonly parts: AppParts) {
    this.timed = parts.accessLog !== undefined || parts.metrics !== undefined;
    this.turnEnd = new TurnEnd<Underway>(
      (exchange) => this.sendOrFail(exchange, null),
      (error) => parts.logError(`an answer failed at the turn's end: ${(error as Error)?.stack ?? String(error)}`),
    );
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

  private readonly answerKeyed = (exchange: Underway): Eventually<void> =>
    exchange.route!.answer === 'critpt' ? this.grade(exchange) : this.serveData(exchange);

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

  /**
   * A data route: the answer is decided first, from the key's record and the snapshot alone (403,
   * 400, 406, the body, 304), then one quota step both checks the key and counts the 200 (429
   * when the quota is used up) or reads the quota every other answer shows.
   */
  private serveData(exchange: Underway): Eventually<void> {
    exchange.scope = quotaScope(exchange.key!);
    return after(recoverWith(this.decide, decisionFailed, exchange), this.quotaStep, exchange);
  }

  private readonly quotaStep = (exchange: Underway, decision: Decision): Eventually<void> => {
    exchange.decided = decision;
    const { quota, options } = this.parts;
    const key = exchange.key!;
    const limit = dataLimit(key, options.limits);
    if ('body' in decision && options.counting && exchange.req.method !== 'HEAD')
      return after(quota.take('data', exchange.scope!, limit, key), this.counted, exchange);
    return after(quota.status('data', exchange.scope!, limit, key), this.quotaRead, exchange);
  };

  /**
   * What a data request's answer is, before the quota is asked: its query, encoding and body, and
   * whether it counts.
   */
  private readonly decide = (exchange: Underway): Eventually<Decision> => {
    const { req, snapshot } = exchange;
    const plan = exchange.plan!;
    const key = exchange.key!;
    admitKey(plan.route, key, this.parts.options.critptContact);
    validateQuery(plan); // a 400 for a bad query comes after the key's 403s
    const encodings = acceptedEncodings(req.headers['accept-encoding']);
    // `*` is met by any current body: its tag is in the index, so the body is neither read nor inflated.
    const etag = matchesAny(req.headers['if-none-match'])
      ? this.bodies.knownTag(snapshot, plan, key.tier, encodings)
      : undefined;
    if (etag) return { notModified: etag };
    return after(this.bodies.forKey(snapshot, plan, key, encodings), bodyDecision, exchange);
  };

  /**
   * The quota after counting the answer (durably, before it is sent): the answer is sent showing
   * it, or a 429 when it is used up. A count durable at once (inside a written lease, or counted by
   * Redis) waits only for the turn's end; one past its lease is answered when the turn's write
   * settles, which is the turn's end too.
   */
  private readonly counted = (exchange: Underway, { status, durable }: Taken): void => {
    exchange.quota = status;
    if (!durable) throw quotaExceeded(status, this.parts.clock.now());
    if (durable === DURABLE_NOW) this.turnEnd.defer(exchange);
    else durable.onSettled((error) => this.sendOrFail(exchange, error));
  };

  /** The quota as it stands, for an answer not counted (HEAD, a 304, an error, or counting off for a benchmark). */
  private readonly quotaRead = (exchange: Underway, status: QuotaStatus): void => {
    exchange.quota = status;
    const decision = exchange.decided!;
    if ('error' in decision) throw decision.error;
    // Not counted, but never past a used-up quota.
    if ('body' in decision && status.exhausted) throw quotaExceeded(status, this.parts.clock.now());
    this.turnEnd.defer(exchange);
  };

  /** Send a decided answer, or the error path's answer when its count could not be recorded or the sending threw. */
  private sendOrFail(exchange: Underway, countFailed: Error | null): void {
    try {
      if (countFailed) throw new JournalUnavailable({ cause: countFailed });
      const decision = exchange.decided!;
      if ('body' in decision) answerBody(exchange, decision.body);
      else if ('notModified' in decision) answerNotModified(exchange, { etag: decision.notModified });
    } catch (thrown) {
      this.endings.fail(exchange, thrown);
    }
  }
}

/** How many times one request is decided on a key's record that keeps changing under it before it is answered 503. */
const MAX_DECISIONS = 3;

/**
 * An exchange as the pipeline carries it: what its later steps need, so that each step is a method
 * taking it rather than a closure made for each request.
 */
interface Underway extends Exchange {
  plan: Plan | undefined;
  /** How many times the request was decided (a shared store's record may change under it). */
  decisions: number;
  decided: Decision | undefined;
}

/**
 * A data answer decided: a 200 with its body, which the quota counts; a 304 for the tag the client
 * holds, which it does not; or an error, answered once the quota it shows is read.
 */
type Decision = { body: Body } | { notModified: string } | { error: unknown };

const decisionFailed = (_exchange: Underway, error: unknown): Decision => ({ error });

/** The body found: a 304 when the client's copy is current, else the 200 that sends it. */
const bodyDecision = (exchange: Underway, body: Body): Decision =>
  etagMatches(exchange.req.headers['if-none-match'], body.etag) ? { notModified: body.etag } : { body };
