/**
 * A data route's answer, the data stage of the pipeline (src/app.ts): decided first, from the key's
 * record and the snapshot alone (403, 400, 406, the body, 304); then one quota step, which both
 * checks the key and counts a 200 (429 when the quota is used up) or reads the quota every other
 * answer shows; then sent with the turn's others at its end (src/lib/turn-end.ts says why).
 *
 * The steps after a wait are methods made once, taking the request's exchange (`after` and
 * `recoverWith` of src/lib/eventually.ts), not closures made for each request (bench/analysis.md,
 * "A shorter path").
 */
import type { Bodies } from './bodies.ts';
import type { ServerOptions } from './config.ts';
import { quotaExceeded } from './counting.ts';
import { answerBody, answerNotModified, type Endings, type Exchange } from './exchange.ts';
import { acceptedEncodings, etagMatches, matchesAny } from './http/negotiate.ts';
import { validateQuery, type Plan } from './http/request-plans.ts';
import type { Clock } from './lib/clock.ts';
import { after, recoverWith, type Eventually } from './lib/eventually.ts';
import { TurnEnd } from './lib/turn-end.ts';
import { admitKey } from './policy.ts';
import { dataLimit, quotaScope } from './quota/scopes.ts';
import type { Body } from './snapshot/snapshot.ts';
import { JournalUnavailable } from './state/errors.ts';
import { DURABLE_NOW, type QuotaCounter, type QuotaStatus, type Taken } from './state/quota-counter.ts';

/**
 * An exchange as the pipeline carries it: what its later steps need, so that each step is a method
 * taking it rather than a closure made for each request.
 */
export interface Underway extends Exchange {
  plan: Plan | undefined;
  /** How many times the request was decided (a shared store's record may change under it: src/app.ts). */
  decisions: number;
  decided: Decision | undefined;
}

export interface DataParts {
  options: ServerOptions;
  clock: Clock;
  quota: QuotaCounter;
  logError: (line: string) => void;
}

export class DataAnswers {
  /** Data answers leave together at the end of their turn. */
  private readonly turnEnd: TurnEnd<Underway>;

  constructor(
    private readonly parts: DataParts,
    private readonly bodies: Bodies,
    private readonly endings: Endings,
  ) {
    this.turnEnd = new TurnEnd<Underway>(
      (exchange) => this.sendOrFail(exchange, null),
      (error) => parts.logError(`an answer failed at the turn's end: ${(error as Error)?.stack ?? String(error)}`),
    );
  }

  /** Answer a data route for the exchange's key (authenticated, its record in `exchange.key`). */
  serve(exchange: Underway): Eventually<void> {
    exchange.scope = quotaScope(exchange.key!);
    return after(recoverWith(this.decide, decisionFailed, exchange), this.quotaStep, exchange);
  }

  /** The one quota step of a decided data answer: a 200 counted, anything else the quota read. */
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

/**
 * A data answer decided: a 200 with its body, which the quota counts; a 304 for the tag the client
 * holds, which it does not; or an error, answered once the quota it shows is read.
 */
type Decision = { body: Body } | { notModified: string } | { error: unknown };

const decisionFailed = (_exchange: Underway, error: unknown): Decision => ({ error });

/** The body found: a 304 when the client's copy is current, else the 200 that sends it. */
const bodyDecision = (exchange: Underway, body: Body): Decision =>
  etagMatches(exchange.req.headers['if-none-match'], body.etag) ? { notModified: body.etag } : { body };
