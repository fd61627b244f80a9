/**
 * UTC calendar days as the usage history names them (`YYYY-MM-DD`), and their arithmetic. Pure;
 * the file store's history (usage-book.ts), Redis's (redis-usage.ts), the admin API and the keys
 * command read them.
 */
import { rememberedByKind } from '../lib/recent-map.ts';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** How many days the history keeps by default (`--usage-retention-days`). */
export const DEFAULT_USAGE_RETENTION_DAYS = 400;

/** The UTC day of a time. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** When a day begins (ms, UTC). */
export function dayStart(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

/** Whether the text names a real calendar day (`2026-02-30` does not). */
export function isDay(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(dayStart(text)) && utcDay(dayStart(text)) === text;
}

export function addDays(day: string, n: number): string {
  return utcDay(dayStart(day) + n * DAY_MS);
}

/** The days from `from` to `to`, both included (none when `to` is before `from`). */
export function daysFrom(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = dayStart(from); at <= dayStart(to); at += DAY_MS) days.push(utcDay(at));
  return days;
}

/** The oldest day a history of `retentionDays` days still holds on `today` (today is the newest). */
export function oldestKept(today: string, retentionDays: number): string {
  return addDays(today, 1 - retentionDays);
}

/**
 * A history row's key within a day: the scope, then the kind, so that a day's keys sorted as
 * strings are sorted by scope (a scope holds no space: NAME_PATTERN, src/keys/record.ts). The same
 * string for the same kind and scope while it is in use (src/lib/recent-map.ts says why).
 */
export const usageKey: (kind: string, scope: string) => string = rememberedByKind((kind, scope) => `${scope} ${kind}`);

/** The kind and scope of a usage key (the inverse of usageKey). */
export function usageKeyParts(key: string): { kind: string; scope: string } {
  const space = key.lastIndexOf(' ');
  return { scope: key.slice(0, space), kind: key.slice(space + 1) };
}

/**
 * The row of a usage key's count on a day. Written out, not spread from usageKeyParts: an export
 * of 3,000,000 rows makes one each, and 100,000 took 60-127 ms spread against 16-50 ms so (a
 * micro-benchmark of the two, 4 runs, the same rows).
 */
export function usageRow(day: string, key: string, served: number): UsageRow {
  const space = key.lastIndexOf(' ');
  return { day, scope: key.slice(0, space), kind: key.slice(space + 1), served };
}

/** One row of the history: a scope's answers served on a day. */
export interface UsageRow {
  day: string;
  kind: string;
  scope: string;
  served: number;
}

/** Whether a scope names an org: `org:ORG`, `user:ORG/USER` (a CritPt `key:ID` names none: RowFilter's orgKeys). */
export function scopeOfOrg(scope: string, org: string): boolean {
  return scope === `org:${org}` || scope.startsWith(`user:${org}/`);
}

/**
 * Which rows an answer keeps: one kind, one organisation's scopes, or every one (null). An
 * organisation's are its own (`org:ORG`, `user:ORG/...`) and its keys' without a user
 * (`key:ID`, CritPt's: `orgKeys`, the ids of every key of the organisation, revoked ones too).
 */
export interface RowFilter {
  kind: string | null;
  org: string | null;
  orgKeys?: ReadonlySet<string>;
}

/** How a scope of a key of its own starts (src/quota/scopes.ts, critptScope): `key:ID`. */
export const KEY_SCOPE = 'key:';

export function rowKept(filter: RowFilter, row: UsageRow): boolean {
  return (filter.kind === null || row.kind === filter.kind) && (filter.org === null || ofRowOrg(filter, row.scope));
}

function ofRowOrg(filter: RowFilter, scope: string): boolean {
  if (scopeOfOrg(scope, filter.org!)) return true;
  return (
    scope.startsWith(KEY_SCOPE) && filter.orgKeys !== undefined && filter.orgKeys.has(scope.slice(KEY_SCOPE.length))
  );
}

/**
 * Lines of a day file's rows as the server writes them (`["SCOPE KIND",N]`, usage-files.ts), bytes
 * `start` to `end` of the file, handed on undecoded: an export writes them straight into its text
 * (src/admin/usage-export-lines.ts), where making a row of each cost most of its time.
 */
export interface DayLines {
  day: string;
  /** The file, for the error that names a line it cannot read. */
  path: string;
  bytes: Buffer;
  start: number;
  end: number;
}

/** A piece of a history: rows, or a day's lines as its file holds them. */
export type HistoryPiece = UsageRow[] | DayLines;
