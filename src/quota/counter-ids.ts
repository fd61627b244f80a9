/**
 * What a quota counter is called: its kind and its scope, `kind scope` (a scope holds no space:
 * NAME_PATTERN, src/keys/record.ts). The journal, the counts file and the windows in memory all
 * name counters so.
 */
import { rememberedByKind } from '../lib/recent-map.ts';
import type { QuotaKind } from '../state/quota-counter.ts';

/** A counter's id; the same string for the same kind and scope while it is in use. */
export const counterId: (kind: QuotaKind, scope: string) => string = rememberedByKind(
  (kind, scope) => `${kind} ${scope}`,
);

/** The kind and scope a counter id names (the inverse of counterId). */
export function counterParts(counter: string): [QuotaKind, string] {
  const space = counter.indexOf(' ');
  return [counter.slice(0, space) as QuotaKind, counter.slice(space + 1)];
}
