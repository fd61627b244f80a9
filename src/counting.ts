/**
 * The data quota as answers show it: the rate-limit headers every answer to a valid key
 * carries, the 429 when the quota is used up, and counting one answer before it is sent.
 */
import { HttpError, quotaUnavailable } from './http/error.ts';
import { then, type Eventually } from './lib/eventually.ts';
import type { QuotaCounter, QuotaStatus } from './quota/book.ts';
import { digits } from './lib/digits.ts';
import { headersOf, type HeaderFields, type Headers } from './http/respond.ts';

/** The rate-limit fields every answer to a valid key carries, for a status (the remaining count changes every request: digits). */
export function rateLimitFields(status: QuotaStatus): HeaderFields {
  return ['X-RateLimit-Limit', status.limit, 'X-RateLimit-Remaining', digits(status.remaining), 'X-RateLimit-Reset', Math.ceil(status.resetAt / 1000)];
}

export function rateLimitHeaders(status: QuotaStatus): Headers {
  return headersOf(rateLimitFields(status));
}

export function quotaExceeded(status: QuotaStatus, now: number): HttpError {
  const retryAfter = Math.max(1, Math.ceil((status.resetAt - now) / 1000));
  return new HttpError(429, 'Rate limit exceeded', { limit: status.limit, reset: Math.ceil(status.resetAt / 1000) }, { ...rateLimitHeaders(status), 'Retry-After': retryAfter });
}

/**
 * Count one answered request and call `answer` once the count is durable (in the journal, or in
 * Redis): at once, or at the end of the turn. Throws the 429 when the quota is used up; `fail`
 * gets the 503 when the count cannot be made durable, or what `answer` threw.
 */
export function countAnswer(quota: QuotaCounter, scope: string, limit: number, now: () => number, answer: (status: QuotaStatus) => void, fail: (error: unknown) => void): Eventually<void> {
  return then(quota.take('data', scope, limit), ({ status, durable }) => {
    if (!durable) throw quotaExceeded(status, now());
    durable.onSettled((error) => {
      if (error) return fail(quotaUnavailable());
      try {
        answer(status);
      } catch (thrown) {
        fail(thrown);
      }
    });
  });
}
