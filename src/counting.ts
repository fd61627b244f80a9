/**
 * The data quota as answers show it: the rate-limit fields every answer to a valid key carries,
 * the 429 when the quota is used up, and counting one answer before it is sent.
 */
import { HttpError } from './http/error.ts';
import { headersOf, type HeaderFields } from './http/respond.ts';
import type { Clock } from './lib/clock.ts';
import { digits } from './lib/digits.ts';
import { then, type Eventually } from './lib/eventually.ts';
import { JournalUnavailable, type QuotaCounter, type QuotaStatus } from './quota/counter.ts';

/** The rate-limit fields every answer to a valid key carries, for a status (the remaining count changes every request: digits). */
export function rateLimitFields(status: QuotaStatus): HeaderFields {
  return ['X-RateLimit-Limit', status.limit, 'X-RateLimit-Remaining', digits(status.remaining), 'X-RateLimit-Reset', Math.ceil(status.resetAt / 1000)];
}

/** The 429 of a used-up data quota, with the seconds until its window ends. */
export function quotaExceeded(status: QuotaStatus, now: number): HttpError {
  const retryAfter = Math.max(1, Math.ceil((status.resetAt - now) / 1000));
  return new HttpError(429, 'Rate limit exceeded', {
    details: { limit: status.limit, reset: Math.ceil(status.resetAt / 1000) },
    headers: { ...headersOf(rateLimitFields(status)), 'Retry-After': retryAfter },
  });
}

/**
 * Count one answered request in `scope`'s data quota, then call `send` with the status after
 * counting, once the count is durable (in the journal, or in Redis): at once, or at the end of the
 * turn. Throws the 429 when the quota is used up; `fail` gets JournalUnavailable when the count
 * could not be made durable, or whatever `send` threw.
 */
export function countThenSend(quota: QuotaCounter, scope: string, limit: number, clock: Clock, send: (after: QuotaStatus) => void, fail: (error: unknown) => void): Eventually<void> {
  return then(quota.take('data', scope, limit), ({ status, durable }) => {
    if (!durable) throw quotaExceeded(status, clock.now());
    durable.onSettled((error) => {
      if (error) return fail(new JournalUnavailable({ cause: error }));
      try {
        send(status);
      } catch (thrown) {
        fail(thrown);
      }
    });
  });
}
