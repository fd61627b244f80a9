/**
 * CritPt grading: authorise, hold a quota slot, wait for a grading place, forward the batch to
 * the upstream grader and relay its verdict (or its NDJSON progress stream).
 *
 * Only a verdict counts against the quota: the slot is committed (journaled before the answer
 * goes out) on a 200 verdict without judge errors, and released on anything else: an upstream
 * 4xx, 502, 504, a judge error, or a client that went away.
 *
 * Stream protocol (`stream_progress=true`, upstream answers `application/x-ndjson`): one JSON
 * object per line, passed through as it arrives; the last is `{"type":"result", ...verdict}`
 * (the verdict's fields at top level or under `result`) or `{"type":"error", ...}`.
 */
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Clock } from './clock.ts';
import { readJsonBody, parseGradingRequest } from './critpt-request.ts';
import { HttpError, quotaUnavailable } from './http-error.ts';
import type { KeyRecord } from './keys.ts';
import { critptScope } from './policy.ts';
import { Limiter } from './limiter.ts';
import { send, sendPart, type Headers } from './respond.ts';
import type { QuotaCounter, QuotaStatus, Reservation } from './quota.ts';

export const VERDICT_FIELDS = ['accuracy', 'timeout_rate', 'server_timeout_count', 'judge_error_count'] as const;
/** Largest upstream answer read whole (a verdict is small; a 4xx body is passed on). */
const MAX_UPSTREAM_BYTES = 4 * 1024 * 1024;

export interface CritptOptions {
  upstream: string | null;
  timeoutSeconds: number;
  maxBodyBytes: number;
  concurrency: number;
  /** Gradings per user per window. */
  limit: number;
}


export type GradingOutcome = 'graded' | 'judge_error' | 'refused' | 'bad_gateway' | 'timeout' | 'cancelled' | 'stream_error';

/** One grading under way: whose quota, its held slot, and the headers its answer carries. */
interface Grading {
  scope: string;
  reservation: Reservation;
  headers: Headers;
}

export type Verdict = Record<(typeof VERDICT_FIELDS)[number], number>;

/** A verdict has the four numbers; anything else is an invalid answer from the grader. */
export function asVerdict(value: unknown): Verdict | null {
  if (!value || typeof value !== 'object') return null;
  const record = value as Record<string, unknown>;
  return VERDICT_FIELDS.every((f) => typeof record[f] === 'number' && Number.isFinite(record[f])) ? (record as Verdict) : null;
}

/** The quota headers of CritPt: the reset is a human-readable date here, as the spec says. */
function quotaHeaders(status: QuotaStatus): Headers {
  return { 'X-RateLimit-Limit': status.limit, 'X-RateLimit-Remaining': status.remaining, 'X-RateLimit-Reset': new Date(status.resetAt).toUTCString() };
}

class UpstreamFailure extends Error {
  constructor(
    readonly status: 502 | 504,
    message: string,
  ) {
    super(message);
  }
}

/** What the server needs of the CritPt route: the grading counter's headers, and the answer. */
export interface Grader {
  rateLimitHeaders(key: KeyRecord): Headers;
  handle(req: IncomingMessage, res: ServerResponse, key: KeyRecord, rawQuery: string, problemSet: readonly string[], headers: Headers): Promise<void>;
}

export class CritptGrader implements Grader {
  private readonly limiter: Limiter;

  constructor(
    private readonly options: CritptOptions,
    private readonly quota: QuotaCounter,
    private readonly clock: Clock,
    /** Told how each grading that reached the grader ended (for the metrics). */
    private readonly report: (outcome: GradingOutcome) => void = () => {},
  ) {
    this.limiter = new Limiter(options.concurrency);
  }

  private exceeded(status: QuotaStatus): HttpError {
    const retryAfter = Math.max(1, Math.ceil((status.resetAt - this.clock.now()) / 1000));
    const reset = new Date(status.resetAt).toUTCString();
    return new HttpError(
      429,
      'CritPt grading limit exceeded',
      {},
      { ...quotaHeaders(status), 'Retry-After': retryAfter },
      { error: 'CritPt grading limit exceeded', limit: status.limit, remaining: status.remaining, reset, retryAfter },
    );
  }

  /** The rate-limit headers of this key's grading counter, for every answer to it. */
  rateLimitHeaders(key: KeyRecord): Headers {
    return quotaHeaders(this.quota.status('critpt', critptScope(key), this.options.limit));
  }

  /**
   * Answer one grading request of a key the policy admitted (approved for CritPt). Throws
   * HttpError for the server's error path.
   */
  async handle(req: IncomingMessage, res: ServerResponse, key: KeyRecord, rawQuery: string, problemSet: readonly string[], headers: Headers): Promise<void> {
    const scope = critptScope(key);
    if (!this.options.upstream) throw new HttpError(503, 'CritPt grading is not configured on this server (the operator starts it with --critpt-upstream URL)', { option: '--critpt-upstream' });
    const raw = await readJsonBody(req, this.options.maxBodyBytes);
    parseGradingRequest(raw, problemSet);

    const { status, reservation } = await this.quota.reserve('critpt', scope, this.options.limit);
    if (!reservation) throw this.exceeded(status);
    Object.assign(headers, quotaHeaders(status));

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
    const grading: Grading = { scope, reservation, headers };
    try {
      await this.forward(raw, rawQuery, res, grading, abort.signal);
    } catch (error) {
      this.refund(grading);
      if (error instanceof UpstreamFailure) {
        this.report(error.status === 504 ? 'timeout' : 'bad_gateway');
        throw new HttpError(error.status, error.message, error.status === 504 ? { timeout_seconds: this.options.timeoutSeconds } : { upstream: 'evaluation system' });
      }
      if (abort.signal.aborted) return this.report('cancelled');
      throw error;
    } finally {
      this.limiter.release();
      res.off('close', onClose);
    }
  }

  private async forward(raw: Buffer, rawQuery: string, res: ServerResponse, grading: Grading, signal: AbortSignal): Promise<void> {
    const { headers } = grading;
    const upstream = await this.post(raw, rawQuery, signal);
    const type = String(upstream.headers['content-type'] ?? '');
    if (upstream.statusCode === 200 && type.includes('ndjson')) return this.relayStream(upstream, res, grading);
    const body = await readAll(upstream);
    const status = upstream.statusCode ?? 0;
    if (status >= 400 && status < 500) {
      // The grader refused the batch: pass its answer on (JSON stays JSON), nothing counts.
      this.refund(grading);
      this.report('refused');
      const json = type.includes('json');
      const payload = json ? body : Buffer.from(JSON.stringify({ error: `Grader refused the batch (${status})`, details: { upstream_body: body.toString('utf8').slice(0, 2000) } }));
      send(res, status, { ...headers, 'Content-Type': 'application/json; charset=utf-8' }, payload, false);
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
    if (!verdict) throw new UpstreamFailure(502, `Invalid response from the evaluation system: a verdict needs ${VERDICT_FIELDS.join(', ')}`);
    await this.settle(verdict, grading);
    send(res, 200, { ...headers, 'Content-Type': 'application/json; charset=utf-8' }, body, false);
  }

  /** Count a clean verdict (durably, before answering); a judge error is refunded. */
  private async settle(verdict: Verdict, grading: Grading): Promise<void> {
    this.report(verdict.judge_error_count > 0 ? 'judge_error' : 'graded');
    if (verdict.judge_error_count > 0) return this.refund(grading);
    try {
      await grading.reservation.commit();
    } catch {
      throw quotaUnavailable();
    }
    this.restate(grading);
  }

  private refund(grading: Grading): void {
    grading.reservation.release();
    this.restate(grading);
  }

  /** The answer's quota headers as they stand after this grading settled. */
  private restate(grading: Grading): void {
    Object.assign(grading.headers, quotaHeaders(this.quota.status('critpt', grading.scope, this.options.limit)));
  }

  /** Pass NDJSON progress through as it arrives; the final event decides the quota. */
  private relayStream(upstream: IncomingMessage, res: ServerResponse, grading: Grading): Promise<void> {
    res.writeHead(200, { ...grading.headers, 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store' });
    return new Promise((resolve, reject) => {
      let pending = '';
      let final: { type: string; verdict: Verdict | null } | null = null;
      const relay = (line: string) => {
        if (!line.trim()) return;
        sendPart(res, `${line}\n`);
        try {
          const event = JSON.parse(line) as { type?: string; result?: unknown };
          if (event.type === 'result') final = { type: 'result', verdict: asVerdict(event.result ?? event) };
          else if (event.type === 'error') final = { type: 'error', verdict: null };
        } catch {
          // A line that is not JSON is passed on but decides nothing.
        }
      };
      upstream.setEncoding('utf8');
      upstream.on('data', (chunk: string) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop()!;
        lines.forEach(relay);
      });
      upstream.on('end', async () => {
        relay(pending);
        const outcome = final as { type: string; verdict: Verdict | null } | null;
        try {
          if (outcome?.verdict) await this.settle(outcome.verdict, grading);
          else {
            this.refund(grading);
            this.report('stream_error');
            if (!outcome) sendPart(res, `${JSON.stringify({ type: 'error', error: 'The evaluation system ended the stream without a result' })}\n`);
          }
        } catch {
          sendPart(res, `${JSON.stringify({ type: 'error', error: 'Quota bookkeeping is unavailable; this grading was not counted' })}\n`);
        }
        res.end();
        resolve();
      });
      upstream.on('error', (error) => {
        this.refund(grading);
        if (!res.writableEnded) {
          sendPart(res, `${JSON.stringify({ type: 'error', error: `The evaluation system stream broke: ${error.message}` })}\n`);
          res.end();
        }
        reject(error);
      });
    });
  }

  /** POST the batch upstream with the client's query string; 502 if unreachable, 504 on timeout. */
  private post(raw: Buffer, rawQuery: string, signal: AbortSignal): Promise<IncomingMessage> {
    const url = new URL(this.options.upstream!);
    url.search = rawQuery;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const upstream = send(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': raw.length, Accept: 'application/json, application/x-ndjson' } }, (response) => {
        clearTimeout(timer);
        // A grading may stream for long; the timeout covers the wait for its first byte and
        // the whole answer, so keep it armed until the response ends.
        const overall = setTimeout(() => response.destroy(new UpstreamFailure(504, `Evaluation timed out after ${this.options.timeoutSeconds} s`)), this.remainingMs(started));
        response.once('close', () => clearTimeout(overall));
        resolve(response);
      });
      const timer = setTimeout(() => upstream.destroy(new UpstreamFailure(504, `Evaluation timed out after ${this.options.timeoutSeconds} s`)), this.options.timeoutSeconds * 1000);
      const onAbort = () => upstream.destroy(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      upstream.on('close', () => signal.removeEventListener('abort', onAbort));
      upstream.on('error', (error) => {
        clearTimeout(timer);
        reject(error instanceof UpstreamFailure ? error : signal.aborted ? error : new UpstreamFailure(502, `Evaluation system unreachable: ${error.message}`));
      });
      upstream.end(raw);
    });
  }

  private remainingMs(started: number): number {
    return Math.max(0, this.options.timeoutSeconds * 1000 - (Date.now() - started));
  }
}

/** Read a whole upstream answer (bounded); a broken or over-long answer is a 502 or 504. */
function readAll(response: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_UPSTREAM_BYTES) response.destroy(new UpstreamFailure(502, 'Invalid response from the evaluation system: too large'));
      else chunks.push(chunk);
    });
    response.on('end', () => resolve(Buffer.concat(chunks)));
    response.on('error', (error) => reject(error instanceof UpstreamFailure ? error : new UpstreamFailure(502, `Evaluation system connection broke: ${error.message}`)));
  });
}
