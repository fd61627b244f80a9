/**
 * What each quota scope of the active keys has used in its current window (keys usage): the
 * scopes and limits from the keys, the counts from the state folder (src/quota/replay.ts, read
 * beside a running server) or from Redis (admin.ts).
 */
import type { KeyRecord } from '../state/key-record.ts';
import { critptScope, dataLimit, quotaScope, type QuotaLimits } from '../quota/scopes.ts';
import { counterId } from '../quota/counter-ids.ts';
import { WINDOW_MS, type WindowCounts } from '../quota/window.ts';
import type { QuotaKind, QuotaStatus } from '../state/quota-counter.ts';

export interface ScopeUsage {
  kind: QuotaKind;
  scope: string;
  /** Ids of the active keys that count here. */
  keys: string[];
  /** The largest limit among those keys (keys of one org scope may carry different quotas). */
  limit: number;
  /** Requests counted in the current window (0 when none is open). */
  used: number;
  remaining: number;
  /** When the current window ends (ISO 8601); null when no window is open. */
  resets_at: string | null;
}

/** What a key's usage rows are made of: its scopes and limits (a record, or a view of one). */
export type UsageKey = Pick<KeyRecord, 'id' | 'revoked_at' | 'scope' | 'org' | 'user' | 'tier' | 'quota' | 'critpt'>;

/** One row per data scope and CritPt scope of the active keys, in the order of the keys, nothing counted yet. */
export function usageRows(records: readonly UsageKey[], limits: QuotaLimits): ScopeUsage[] {
  const rows = new Map<string, ScopeUsage>();
  const add = (kind: QuotaKind, scope: string, id: string, limit: number) => {
    const key = counterId(kind, scope);
    const row = rows.get(key) ?? { kind, scope, keys: [], limit, used: 0, remaining: limit, resets_at: null };
    row.keys.push(id);
    row.limit = Math.max(row.limit, limit);
    row.remaining = row.limit;
    rows.set(key, row);
  };
  for (const record of records) {
    if (record.revoked_at !== null) continue;
    add('data', quotaScope(record), record.id, dataLimit(record, limits));
    if (record.critpt) add('critpt', critptScope(record), record.id, limits.critpt);
  }
  return [...rows.values()];
}

/** The rows with what the counters of a state folder say at `now`. */
export function usageOf(
  records: readonly KeyRecord[],
  counts: WindowCounts,
  limits: QuotaLimits,
  now: number,
): ScopeUsage[] {
  const windows = counts.toRecord();
  return usageRows(records, limits).map((row) => {
    const key = counterId(row.kind, row.scope);
    const window = windows[key];
    const open = window !== undefined && now < window.start + WINDOW_MS;
    return {
      ...row,
      used: open ? window.count : 0,
      remaining: counts.status(key, row.limit, now).remaining,
      resets_at: open ? new Date(window.start + WINDOW_MS).toISOString() : null,
    };
  });
}

/**
 * The rows with what a live counter says (a server's own book, or Redis): it tells where a
 * counter stands, not its window's start, so an open window is one with requests counted.
 */
export async function withStatus(
  rows: ScopeUsage[],
  status: (kind: QuotaKind, scope: string, limit: number) => QuotaStatus | Promise<QuotaStatus>,
  now: number,
): Promise<ScopeUsage[]> {
  for (const row of rows) {
    const { remaining, resetAt } = await status(row.kind, row.scope, row.limit);
    row.remaining = remaining;
    row.used = row.limit - remaining;
    row.resets_at = row.used > 0 && resetAt > now ? new Date(resetAt).toISOString() : null;
  }
  return rows;
}
