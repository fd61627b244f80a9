/**
 * The data quota as answers show it: the rate-limit fields every answer to a valid key carries,
 * and the 429 when the quota is used up.
 */
import { HttpError } from './http/error.ts';
import { headersOf, type HeaderFields } from './http/respond.ts';
import { digits } from './lib/digits.ts';
import type { QuotaStatus } from './state/quota-counter.ts';

/**
 * The rate-limit fields every answer to a valid key carries, for a status (the remaining count
 * changes every request: digits), added to `fields` (an answer's own, so none is copied).
 */
export function rateLimitFields(status: QuotaStatus, fields: HeaderFields = []): HeaderFields {
  fields.push(
    'X-RateLimit-Limit',
    status.limit,
    'X-RateLimit-Remaining',
    digits(status.remaining),
    'X-RateLimit-Reset',
    Math.ceil(status.resetAt / 1000),
  );
  return fields;
}

/** The 429 of a used-up data quota, with the seconds until its window ends. */
export function quotaExceeded(status: QuotaStatus, now: number): HttpError {
  const retryAfter = Math.max(1, Math.ceil((status.resetAt - now) / 1000));
  return new HttpError(429, 'Rate limit exceeded', {
    details: { limit: status.limit, reset: Math.ceil(status.resetAt / 1000) },
    headers: { ...headersOf(rateLimitFields(status)), 'Retry-After': retryAfter },
  });
}
