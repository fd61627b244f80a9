/**
 * What each quota scope has used in its current window, read from the state folder beside a
 * running server: a read-only replay of quota.json and the journals. Nothing is written and no
 * lock is taken, so the server keeps counting while an operator looks.
 */
import type { QuotaLimits } from './config.ts';
import type { KeyRecord } from './key-record.ts';
import { critptScope, dataLimit, quotaScope } from './policy.ts';
import { QuotaStateError, readSnapshotText, replayQuotaState } from './quota-replay.ts';
import { counterKey, WINDOW_MS, WindowCounts, type QuotaKind } from './quota-window.ts';

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

/** Attempts at a consistent read while the server compacts (it rewrites quota.json, then deletes journals). */
const READ_ATTEMPTS = 10;

/**
 * The counters as the server holds them now. A compaction between reading quota.json and the
 * journals could make the read miss a journal, so the read is repeated until quota.json is the
 * same before and after it and every journal listed could be read.
 */
export function readCounts(stateDir: string): WindowCounts {
  let lastError: Error | null = null;
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
    const before = readSnapshotText(stateDir);
    const counts = new WindowCounts();
    try {
      // A torn last line is the server's write under way, not damage: no report.
      replayQuotaState(stateDir, () => {}, (key, window) => counts.set(key, window), (kind, scope, at) => counts.apply(counterKey(kind, scope), at));
    } catch (error) {
      const missing = error instanceof QuotaStateError && (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
      if (!missing) throw error;
      lastError = error as Error;
      continue;
    }
    if (readSnapshotText(stateDir) === before) return counts;
  }
  throw new QuotaStateError(`the quota state in ${stateDir} kept changing while it was read (${lastError?.message ?? 'compactions under way'}); try again`);
}

/** One row per data scope and CritPt scope of the active keys, in the order of the keys. */
export function usageOf(records: readonly KeyRecord[], counts: WindowCounts, limits: QuotaLimits, now: number): ScopeUsage[] {
  const rows = new Map<string, ScopeUsage>();
  const add = (kind: QuotaKind, scope: string, id: string, limit: number) => {
    const key = counterKey(kind, scope);
    const row = rows.get(key) ?? { kind, scope, keys: [], limit, used: 0, remaining: 0, resets_at: null };
    row.keys.push(id);
    row.limit = Math.max(row.limit, limit);
    rows.set(key, row);
  };
  for (const record of records) {
    if (record.revoked_at !== null) continue;
    add('data', quotaScope(record), record.id, dataLimit(record, limits));
    if (record.critpt) add('critpt', critptScope(record), record.id, limits.critpt);
  }
  const windows = counts.toRecord();
  for (const [key, row] of rows) {
    const window = windows[key];
    const open = window !== undefined && now < window.start + WINDOW_MS;
    row.used = open ? window.count : 0;
    row.remaining = counts.status(key, row.limit, now).remaining;
    row.resets_at = open ? new Date(window.start + WINDOW_MS).toISOString() : null;
  }
  return [...rows.values()];
}
