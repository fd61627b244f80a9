/**
 * The admin API's usage history (a row of the table in operations.ts): per UTC day and scope the
 * answers served, as JSON or CSV, made and sent a piece of rows at a time (an export of 30 days
 * of 100,000 scopes is millions of rows: scripts/bench/usage-history.ts has the figures).
 */
import { HttpError } from '../http/error.ts';
import { QUOTA_KINDS } from '../state/quota-counter.ts';
import { addDays, isDay, oldestKept, rowKept, utcDay, type UsageRow } from '../quota/usage-day.ts';
import { historyFilter } from '../key-admin/history-filter.ts';
import { pieceRows } from '../quota/usage-history-read.ts';
import { NAME, ok, JsonPieces, type Operation } from './operation.ts';
import type { ExportFormat } from './usage-export.ts';
import { exportText } from './usage-export-text.ts';

/** The days asked for when the query names none: the last 30, today (UTC) included. */
const DEFAULT_DAYS = 30;

const DAY = { type: 'string' as const, pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' };

function dayParam(query: URLSearchParams, name: string): string | null {
  const value = query.get(name);
  if (value !== null && !isDay(value))
    throw new HttpError(400, 'Invalid day', { details: { [name]: value, expected: 'a UTC day, YYYY-MM-DD' } });
  return value;
}

/** The range asked for: from and to inclusive, within the retention ending today. */
export function historyRange(query: URLSearchParams, now: number, retentionDays: number): { from: string; to: string } {
  const today = utcDay(now);
  const givenTo = dayParam(query, 'to');
  const givenFrom = dayParam(query, 'from');
  const to = givenTo ?? today;
  const oldest = oldestKept(today, retentionDays);
  // Unasked, the range starts no earlier than the retention does.
  const from = givenFrom ?? [addDays(to, 1 - DEFAULT_DAYS), oldest].sort()[1]!;
  if (from > to) throw new HttpError(400, 'Invalid range', { details: { from, to, expected: 'from on or before to' } });
  if (from < oldest)
    throw new HttpError(400, 'Range over the retention', {
      details: { from, to, oldest_kept: oldest, retention_days: retentionDays },
    });
  return { from, to };
}

export const usageHistory: Operation = {
  id: 'usageHistory',
  method: 'GET',
  path: '/usage/history',
  summary: 'Answers served per UTC day and scope (data, and CritPt gradings), as JSON or CSV',
  query: {
    from: {
      description: 'first day (UTC, inclusive; default 29 days before to, or the oldest day kept)',
      schema: DAY,
    },
    to: { description: 'last day (UTC, inclusive; default today)', schema: DAY },
    org: {
      description: "only scopes of this organisation (org:ORG, user:ORG/..., and its keys' key:ID)",
      schema: NAME,
    },
    scope: {
      description: "only this scope (user:ORG/USER, org:ORG, key:ID), as a key's page shows its own",
      schema: { type: 'string', pattern: '^(user|org|key):[^\\p{Cc}]{1,210}$' },
    },
    kind: {
      description: 'only data answers or only CritPt gradings',
      schema: { type: 'string', enum: [...QUOTA_KINDS] },
    },
    format: { description: 'json (default) or csv', schema: { type: 'string', enum: ['json', 'csv'] } },
  },
  answer: { status: 200, schema: 'UsageHistory', csv: true },
  async run(context, { query, pieces }) {
    const range = historyRange(query, context.clock.now(), context.usageRetentionDays);
    const format = (query.get('format') ?? 'json') as ExportFormat;
    const filter = await historyFilter(context.keys, query.get('kind'), query.get('org'));
    const scope = query.get('scope');
    // One scope (a key's page) is the store's to keep: it reads that scope's lines or fields alone.
    const rows = context.keys.usageHistory(range.from, range.to, scope);
    if (!pieces && format === 'json') {
      const data: UsageRow[] = [];
      for await (const piece of rows) for (const row of pieceRows(piece)) if (rowKept(filter, row)) data.push(row);
      return ok({ ...range, data });
    }
    const headers: Record<string, string> =
      format === 'csv'
        ? {
            'Content-Type': 'text/csv; charset=utf-8',
            'Content-Disposition': `attachment; filename="usage-${range.from}-${range.to}.csv"`,
          }
        : {};
    return ok(new JsonPieces(exportText(format, range, rows, filter), headers));
  },
};
