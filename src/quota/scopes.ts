/**
 * Whose requests are counted together (scopes) and how many a window allows (limits), from a
 * key's record. Pure; the server, the CritPt grader and the keys command's usage all read them.
 */
import type { KeyRecord } from '../state/key-record.ts';

export interface QuotaLimits {
  free: number;
  pro: number;
  /** For Commercial keys without a custom quota of their own. */
  commercialDefault: number;
  /** CritPt gradings per user per window, any tier. */
  critpt: number;
}

export const DEFAULT_LIMITS: QuotaLimits = { free: 100, pro: 500, commercialDefault: 10_000, critpt: 10 };

/** The id under which the data quota counts this key's requests; regeneration keeps it. */
export function quotaScope(record: Pick<KeyRecord, 'scope' | 'org' | 'user'>): string {
  let scope = scopes.get(record);
  if (scope === undefined) {
    scope = record.scope === 'org' ? `org:${record.org}` : `user:${record.org}/${record.user}`;
    scopes.set(record, scope);
  }
  return scope;
}

/**
 * Each record's data scope, made once a record (its fields are read-only): the quota's Maps then
 * find the same string by the hash it holds (src/lib/recent-map.ts, rememberedByKind).
 */
const scopes = new WeakMap<object, string>();

/**
 * CritPt counts per user, whatever the key's data scope: every key of one user in one org shares
 * a counter. A key with no user stands for a user of its own (by its id, which regeneration
 * keeps), so user-less keys never share a counter with each other or with a user named `null`.
 */
export function critptScope(record: Pick<KeyRecord, 'id' | 'scope' | 'org' | 'user'>): string {
  return record.user === null ? `key:${record.id}` : `user:${record.org}/${record.user}`;
}

/** Requests per window of the data quota for this key. */
export function dataLimit(key: Pick<KeyRecord, 'tier' | 'quota'>, limits: QuotaLimits): number {
  if (key.tier === 'commercial') return key.quota ?? limits.commercialDefault;
  return key.tier === 'pro' ? limits.pro : limits.free;
}
