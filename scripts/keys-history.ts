/**
 * `keys usage --history`: the answers served per UTC day and scope, read from the store beside
 * running servers without writing (src/quota/usage-read.ts, src/quota/redis-usage.ts), as a
 * table or, with --json, the admin API's rows.
 */
import { UsageError } from '../src/shared/flags.ts';
import type { KeyAdmin } from '../src/key-admin/stores.ts';
import { addDays, isDay, rowKept, utcDay, type UsageRow } from '../src/quota/usage-day.ts';
import { historyFilter } from '../src/key-admin/history-filter.ts';
import { pieceRows } from '../src/quota/usage-history-read.ts';
import { columns } from './keys-print.ts';
import type { Output } from './keys-print.ts';

/** The days printed when none are named: the last 30, today (UTC) included, as the admin API does. */
const DEFAULT_DAYS = 30;

function day(text: string | undefined, flag: string): string | undefined {
  if (text !== undefined && !isDay(text))
    throw new UsageError(`--${flag} must be a UTC day like 2026-11-21, got ${JSON.stringify(text)}`);
  return text;
}

export async function printHistory(
  admin: KeyAdmin,
  values: { from?: string; to?: string; org?: string; json: boolean },
  now: number,
  io: Output,
): Promise<void> {
  const to = day(values.to, 'to') ?? utcDay(now);
  const from = day(values.from, 'from') ?? addDays(to, 1 - DEFAULT_DAYS);
  if (from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
  const filter = await historyFilter(admin, null, values.org ?? null);
  const rows: UsageRow[] = [];
  for await (const piece of admin.usageHistory(from, to))
    for (const row of pieceRows(piece)) if (rowKept(filter, row)) rows.push(row);
  if (values.json) io.out(JSON.stringify(rows, null, 2));
  else if (rows.length === 0) io.err(`no answers served from ${from} to ${to} in ${admin.where}`);
  else
    io.out(
      columns([['day', 'kind', 'scope', 'served'], ...rows.map((r) => [r.day, r.kind, r.scope, String(r.served)])]),
    );
}
