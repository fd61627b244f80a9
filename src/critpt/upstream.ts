/**
 * The HTTP client side of CritPt grading: posting a batch to the upstream grader with timeouts
 * that cover the whole answer, and reading a bounded answer. Failures are UpstreamFailure: 502
 * for an unreachable or misbehaving grader, 504 for a grading that ran out of time.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Largest upstream answer read whole (a verdict is small; a 4xx body is passed on). */
const MAX_UPSTREAM_BYTES = 4 * 1024 * 1024;

export class UpstreamFailure extends Error {
  constructor(
    readonly status: 502 | 504,
    message: string,
  ) {
    super(message);
  }
}

/** POST a batch to the grader with the client's query string; 502 if unreachable, 504 on timeout. */
export function postBatch(
  upstreamUrl: string,
  raw: Buffer,
  rawQuery: string,
  timeoutSeconds: number,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const url = new URL(upstreamUrl);
  url.search = rawQuery;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const upstream = send(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': raw.length,
          Accept: 'application/json, application/x-ndjson',
        },
      },
      (response) => {
        clearTimeout(timer);
        // A grading may stream for long; the timeout covers the wait for its first byte and
        // the whole answer, so keep it armed until the response ends.
        const overall = setTimeout(
          () => response.destroy(new UpstreamFailure(504, `Evaluation timed out after ${timeoutSeconds} s`)),
          Math.max(0, timeoutSeconds * 1000 - (Date.now() - started)),
        );
        response.once('close', () => clearTimeout(overall));
        resolve(response);
      },
    );
    const timer = setTimeout(
      () => upstream.destroy(new UpstreamFailure(504, `Evaluation timed out after ${timeoutSeconds} s`)),
      timeoutSeconds * 1000,
    );
    const onAbort = () => upstream.destroy(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    upstream.on('close', () => signal.removeEventListener('abort', onAbort));
    upstream.on('error', (error) => {
      clearTimeout(timer);
      reject(
        error instanceof UpstreamFailure
          ? error
          : signal.aborted
            ? error
            : new UpstreamFailure(502, `Evaluation system unreachable: ${error.message}`),
      );
    });
    upstream.end(raw);
  });
}

/** Read a whole upstream answer (bounded); a broken or over-long answer is a 502 or 504. */
export function readAll(response: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_UPSTREAM_BYTES)
        response.destroy(new UpstreamFailure(502, 'Invalid response from the evaluation system: too large'));
      else chunks.push(chunk);
    });
    response.on('end', () => resolve(Buffer.concat(chunks)));
    response.on('error', (error) =>
      reject(
        error instanceof UpstreamFailure
          ? error
          : new UpstreamFailure(502, `Evaluation system connection broke: ${error.message}`),
      ),
    );
  });
}
