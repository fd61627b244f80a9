/**
 * The request pipeline, read top to bottom (ARCHITECTURE.md walks it stage by stage):
 *
 *   plan the target (414, 400, 404, 405)
 *   public route: its operational answer (health, readiness, metrics, front door, OpenAPI)
 *   authenticate (401)
 *   CritPt: the grader's counter, authorise (403), grade
 *   data: the quota's status, authorise (403), query (400), encoding (406), body (404, 403, 501),
 *         304 when the client's copy is current, count (429, 503), send the 200
 *
 * No JSON is serialised and no file is opened per request: bodies come from the snapshot's
 * manifest and pack (through an LRU), and request paths never become file paths. Anything thrown
 * ends in one place, `Endings.fail`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Bodies } from './bodies.ts';
import type { ServerOptions } from './config.ts';
import { countThenSend, quotaExceeded } from './counting.ts';
import type { Grader } from './critpt/grader.ts';
import { answerBody, answerNotModified, Endings, keyHeaders, type Exchange } from './exchange.ts';
import type { AccessLog } from './http/access-log.ts';
import type { Metrics } from './http/metrics.ts';
import { acceptedEncodings, etagMatches, matchesAny } from './http/negotiate.ts';
import { QueryValidator } from './http/query.ts';
import { RequestPlans, type Plan } from './http/request-plans.ts';
import { Router } from './http/router.ts';
import type { KeyLookup, KeyRecord } from './keys/record.ts';
import type { Clock } from './lib/clock.ts';
import { then, type Eventually } from './lib/eventually.ts';
import type { Step } from './lib/idle-work.ts';
import { operationalAnswers } from './operational.ts';
import { admitKey, authenticate } from './policy.ts';
import type { QuotaCounter, QuotaStatus } from './quota/counter.ts';
import { dataLimit, quotaScope } from './quota/scopes.ts';
import { ROUTES } from './shared/routes.ts';
import type { SnapshotStore } from './snapshot/store.ts';

export interface AppParts {
  options: ServerOptions;
  clock: Clock;
  keys: KeyLookup;
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
}

export class App {
  private readonly queries = new QueryValidator();
  private readonly plans = new RequestPlans(new Router(ROUTES), this.queries);
  private readonly bodies: Bodies;
  private readonly operational: ReturnType<typeof operationalAnswers>;
  private readonly endings: Endings;

  constructor(private readonly parts: AppParts) {
    this.bodies = new Bodies(parts.snapshots.reader, parts.clock);
    this.operational = operationalAnswers({ bodies: this.bodies, readiness: parts.readiness, warnings: parts.warnings, verification: () => parts.snapshots.verification(), metrics: parts.metrics });
    this.endings = new Endings(parts);
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
    const exchange: Exchange = { req, res, snapshot, started: performance.now() };
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
  private answer(exchange: Exchange): Eventually<void> {
    const { req } = exchange;
    const plan = this.plans.plan(req.method ?? 'GET', req.url ?? '/');
    const { route } = plan;
    exchange.route = route;
    if (route.public) {
      plan.values();
      return this.operational[route.answer]!(exchange, plan);
    }
    return then(authenticate(req.headers['x-api-key'], this.parts.keys), (key) => {
      exchange.key = key;
      return then(this.showQuota(exchange, key), () => {
        admitKey(route, key, this.parts.options.critptContact);
        return route.answer === 'critpt' ? this.grade(exchange, plan, key) : this.serveData(exchange, plan, key);
      });
    });
  }

  /**
   * Where the key stands against the quota its answers show (the data quota, or its CritPt
   * gradings'): every answer to a valid key shows it, refusals included, so it comes first.
   */
  private showQuota(exchange: Exchange, key: KeyRecord): Eventually<void> {
    if (exchange.route!.answer === 'critpt') return then(this.parts.grader.rateLimitHeaders(key), (headers) => void (exchange.critptHeaders = headers));
    const scope = (exchange.scope = quotaScope(key));
    return then(this.parts.quota.status('data', scope, dataLimit(key, this.parts.options.limits)), (status) => void (exchange.quota = status));
  }

  /** A CritPt grading: the grader reads, checks, forwards and answers. */
  private grade(exchange: Exchange, plan: Plan, key: KeyRecord): Promise<void> {
    const { req, res, snapshot } = exchange;
    // The query string of a grading goes to the grader as it is (e.g. stream_progress=true).
    return this.parts.grader.handle(req, res, key, plan.query, snapshot.manifest.critpt_problems ?? [], keyHeaders(exchange));
  }

  /** A data route: query, encoding, body, then 304 or a counted 200. */
  private serveData(exchange: Exchange, plan: Plan, key: KeyRecord): Eventually<void> {
    const { req, snapshot } = exchange;
    plan.values(); // a 400 for a bad query comes after the key's 403s
    const encodings = acceptedEncodings(req.headers['accept-encoding']);
    // `*` is met by any current body: its tag is in the index, so the body is neither read nor inflated.
    const etag = matchesAny(req.headers['if-none-match']) ? this.bodies.knownTag(snapshot, plan, key.tier, encodings) : undefined;
    if (etag) return answerNotModified(exchange, { etag });
    return then(this.bodies.forKey(snapshot, plan, key, encodings), (body) => {
      if (etagMatches(req.headers['if-none-match'], body.etag)) return answerNotModified(exchange, body);
      return this.countThenAnswer(exchange, () => answerBody(exchange, body));
    });
  }

  /** Count the answer (durably, before it is sent), then `answer` showing the quota after it; 429 when it is used up. */
  private countThenAnswer(exchange: Exchange, answer: () => void): Eventually<void> {
    const { quota, clock, options } = this.parts;
    const before = exchange.quota!;
    if (!options.counting || exchange.req.method === 'HEAD') {
      // Not counted (HEAD, or counting off for a benchmark), but never past a used-up quota.
      if (before.exhausted) throw quotaExceeded(before, clock.now());
      return answer();
    }
    const send = (after: QuotaStatus) => {
      exchange.quota = after;
      answer();
    };
    return countThenSend(quota, exchange.scope!, before.limit, clock, send, (error) => this.endings.fail(exchange, error));
  }
}
