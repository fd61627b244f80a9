/**
 * What the upstream grader answers for a batch: four numbers, checked before they are passed on
 * or settle a quota, because the grader is not trusted blindly.
 */
export const VERDICT_FIELDS = ['accuracy', 'timeout_rate', 'server_timeout_count', 'judge_error_count'] as const;

export type Verdict = Record<(typeof VERDICT_FIELDS)[number], number>;

/** A verdict has the four numbers in their ranges; anything else is an invalid answer from the grader. */
export function asVerdict(value: unknown): Verdict | null {
  if (!value || typeof value !== 'object') return null;
  const record = value as Record<string, unknown>;
  const share = (v: unknown) => typeof v === 'number' && v >= 0 && v <= 1;
  const count = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
  // The grader is not trusted blindly: rates are shares, counts are whole and not negative.
  const valid =
    share(record.accuracy) &&
    share(record.timeout_rate) &&
    count(record.server_timeout_count) &&
    count(record.judge_error_count);
  return valid ? (record as Verdict) : null;
}
