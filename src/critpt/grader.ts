/**
 * CritPt grading, for a key the app has admitted: read and check the batch, hold a quota slot,
 * wait for a grading place, forward the batch to the upstream grader and relay its verdict (or
 * its NDJSON progress stream).
 *
 * Only a verdict counts against the quota: the slot is committed (journaled before the answer
 * goes out) on a 200 verdict without judge errors, and released on anything else: an upstream
 * 4xx, 502, 504, a judge error, or a client that went away.
 *
 * Stream protocol (`stream_progress=true`, upstream answers `application/x-ndjson`): one JSON
 * object per line, passed through as it arrives; the last is `{"type":"result", ...verdict}`
 * (the verdict's fields at top level or under `result`) or `{"type":"error", ...}`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../lib/clock.ts';
import { checkJsonType, parseGradingRequest } from './request.ts';
import { readBody, type BodyLimits } from '../http/read-body.ts';
import type { BodyBudget } from '../http/body-budget.ts';
import { postBatch, readAll, UpstreamFailure } from './upstream.ts';
import { HttpError } from '../http/error.ts';
import type { KeyRecord } from '../state/key-record.ts';
import { critptScope } from '../quota/scopes.ts';
import { Limiter } from '../lib/limiter.ts';
import { whenReady, type Eventually } from '../lib/eventually.ts';
import { relayLines } from '../lib/ndjson.ts';
import { JSON_TYPE, send, sendPart, type Headers } from '../http/respond.ts';
import type { QuotaCounter, QuotaStatus, Reservation } from '../state/quota-counter.ts';
import { JournalUnavailable, StateUnavailable } from '../state/errors.ts';
import { asVerdict, VERDICT_FIELDS, type Verdict } from './verdict.ts';

export interface CritptOptions {
  upstream: string | null;
  timeoutSeconds: number;
  /** The body's size and pace; its bytes come out of the server's upload budget. */
  upload: BodyLimits;
  concurrency: number;
  /** Gradings per user per window. */
  limit: number;
}

export type GradingOutcome =
  'graded' | 'judge_error' | 'refused' | 'bad_gateway' | 'timeout' | 'cancelled' | 'stream_error';

/** One grading under way: whose quota, its held slot, and the headers its answer carries. */
interface Grading {
  scope: string;
  reservation: Reservation;
  headers: Headers;
}

/** The quota headers of CritPt: the reset is a human-readable date here, as the contract says. */
function quotaHeaders(status: QuotaStatus): Headers {
  return {
    'X-RateLimit-Limit': status.limit,
    'X-RateLimit-Remaining': status.remaining,
    'X-RateLimit-Reset': new Date(status.resetAt).toUTCString(),
  };
}

/** What the server needs of the CritPt route: the grading counter's headers, and the answer. */
export interface Grader {
  rateLimitHeaders(key: KeyRecord): Eventually<Headers>;
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    key: KeyRecord,
    rawQuery: string,
    problemSet: readonly string[],
    headers: Headers,
  ): Promise<void>;
}

export class CritptGrader implements Grader {
  private readonly limiter: Limiter;

  constructor(
    private readonly options: CritptOptions,
    private readonly quota: QuotaCounter,
    private readonly clock: Clock,
    /** Bytes of bodies in memory, server-wide and per user (the quota's CritPt scope). */
    private readonly uploads: BodyBudget,
    /** Told how each grading that reached the grader ended (for the metrics). */
    private readonly report: (outcome: GradingOutcome) => void = () => {},
  ) {
    this.limiter = new Limiter(options.concurrency);
  }

  private exceeded(status: QuotaStatus): HttpError {
    const retryAfter = Math.max(1, Math.ceil((status.resetAt - this.clock.now()) / 1000));
    const reset = new Date(status.resetAt).toUTCString();
    return new HttpError(429, 'CritPt grading limit exceeded', {
      headers: { ...quotaHeaders(status), 'Retry-After': retryAfter },
      body: {
        error: 'CritPt grading limit exceeded',
        limit: status.limit,
        remaining: status.remaining,
        reset,
        retryAfter,
      },
    });
  }

  /**
   * The rate-limit headers of this key's grading counter, for every answer to it; the step checks
   * the key's record (KeyChanged).
   */
  rateLimitHeaders(key: KeyRecord): Eventually<Headers> {
    return whenReady(this.quota.status('critpt', critptScope(key), this.options.limit, key), quotaHeaders);
  }

  /**
   * Answer one grading request of a key the policy admitted (approved for CritPt), with
   * `headers` (which it never changes) plus the grading counter's. Throws HttpError for the
   * server's error path.
   */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    key: KeyRecord,
    rawQuery: string,
    problemSet: readonly string[],
    headers: Headers,
  ): Promise<void> {
    const scope = critptScope(key);
    checkJsonType(req);
    const raw = await readBody(req, res, this.uploads, scope, this.options.upload);
    parseGradingRequest(raw, problemSet);
    // Checked after the batch, so a client can check its payload on a server without a grader.
    if (!this.options.upstream)
      throw new HttpError(
        503,
        'CritPt grading is not configured on this server (the operator starts it with --critpt-upstream URL); the ' +
          'batch is valid',
        { details: { option: '--critpt-upstream' } },
      );

    const { status, reservation } = await this.quota.reserve('critpt', scope, this.options.limit);
    if (!reservation) throw this.exceeded(status);
    // The answer's own headers: the caller's, with this grading's counter (never the caller's object).
    const answerHeaders: Headers = { ...headers, ...quotaHeaders(status) };

    // A client that goes away cancels its wait or its upstream request and frees its slot.
    const abort = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) abort.abort(new Error('client disconnected'));
    };
    res.once('close', onClose);
    try {
      await this.limiter.acquire(abort.signal);
    } catch {
      reservation.release();
      return;
    }
    const grading: Grading = { scope, reservation, headers: answerHeaders };
    try {
      await this.forward(raw, rawQuery, res, grading, abort.signal);
    } catch (error) {
      await this.refund(grading);
      if (error instanceof UpstreamFailure) {
        this.report(error.status === 504 ? 'timeout' : 'bad_gateway');
        throw new HttpError(error.status, error.message, {
          details:
            error.status === 504 ? { timeout_seconds: this.options.timeoutSeconds } : { upstream: 'evaluation system' },
        });
      }
      if (abort.signal.aborted) return this.report('cancelled');
      throw error;
    } finally {
      this.limiter.release();
      res.off('close', onClose);
    }
  }

  private async forward(
    raw: Buffer,
    rawQuery: string,
    res: ServerResponse,
    grading: Grading,
    signal: AbortSignal,
  ): Promise<void> {
    const { headers } = grading;
    const upstream = await postBatch(this.options.upstream!, raw, rawQuery, this.options.timeoutSeconds, signal);
    const type = String(upstream.headers['content-type'] ?? '');
    if (upstream.statusCode === 200 && type.includes('ndjson')) return this.relayStream(upstream, res, grading);
    const body = await readAll(upstream);
    const status = upstream.statusCode ?? 0;
    if (status >= 400 && status < 500) {
      // The grader refused the batch: pass its answer on (JSON stays JSON), nothing counts.
      await this.refund(grading);
      this.report('refused');
      const json = type.includes('json');
      const payload = json
        ? body
        : Buffer.from(
            JSON.stringify({
              error: `Grader refused the batch (${status})`,
              details: { upstream_body: body.toString('utf8').slice(0, 2000) },
            }),
          );
      send(res, status, { ...headers, 'Content-Type': JSON_TYPE }, payload, false);
      return;
    }
    if (status !== 200) throw new UpstreamFailure(502, `Invalid response from the evaluation system: status ${status}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw new UpstreamFailure(502, 'Invalid response from the evaluation system: not JSON');
    }
    const verdict = asVerdict(parsed);
    if (!verdict)
      throw new UpstreamFailure(
        502,
        `Invalid response from the evaluation system: a verdict needs ${VERDICT_FIELDS.join(', ')}`,
      );
    await this.settle(verdict, grading);
    send(res, 200, { ...headers, 'Content-Type': JSON_TYPE }, body, false);
  }

  /** Count a clean verdict (durably, before answering); a judge error is refunded. */
  private async settle(verdict: Verdict, grading: Grading): Promise<void> {
    this.report(verdict.judge_error_count > 0 ? 'judge_error' : 'graded');
    if (verdict.judge_error_count > 0) return this.refund(grading);
    try {
      await grading.reservation.commit();
    } catch (error) {
      throw error instanceof StateUnavailable ? error : new JournalUnavailable({ cause: error });
    }
    await this.restate(grading);
  }

  private async refund(grading: Grading): Promise<void> {
    grading.reservation.release();
    await this.restate(grading);
  }

  /** The answer's quota headers as they stand after this grading settled. */
  private async restate(grading: Grading): Promise<void> {
    Object.assign(grading.headers, quotaHeaders(await this.quota.status('critpt', grading.scope, this.options.limit)));
  }

  /** Pass NDJSON progress through as it arrives; the final event decides the quota. */
  private async relayStream(upstream: IncomingMessage, res: ServerResponse, grading: Grading): Promise<void> {
    res.writeHead(200, {
      ...grading.headers,
      'Content-Type': 'application/x-ndjson; charset=utf-8',
      'Cache-Control': 'no-store',
    });
    const errorLine = (error: string) => sendPart(res, `${JSON.stringify({ type: 'error', error })}\n`);
    let final: { verdict: Verdict | null } | null = null;
    try {
      await relayLines(upstream, (line) => {
        sendPart(res, `${line}\n`);
        try {
          const event = JSON.parse(line) as { type?: string; result?: unknown };
          // After an error event nothing counts, whatever follows it.
          if (final && final.verdict === null) return;
          if (event.type === 'result') final = { verdict: asVerdict(event.result ?? event) };
          else if (event.type === 'error') final = { verdict: null };
        } catch {
          // A line that is not JSON is passed on but decides nothing.
        }
      });
    } catch (error) {
      // The answer (200, streaming) is under way: it ends with an error event, nothing counts.
      await this.refund(grading);
      if (res.destroyed) return this.report('cancelled');
      this.report('stream_error');
      errorLine(`The evaluation system stream broke: ${(error as Error).message}`);
      res.end();
      return;
    }
    const outcome = final as { verdict: Verdict | null } | null;
    try {
      if (outcome?.verdict) await this.settle(outcome.verdict, grading);
      else {
        await this.refund(grading);
        this.report('stream_error');
        if (!outcome) errorLine('The evaluation system ended the stream without a result');
      }
    } catch {
      errorLine('Quota bookkeeping is unavailable; this grading was not counted');
    }
    res.end();
  }
}
