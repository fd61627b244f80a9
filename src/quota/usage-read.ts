/**
 * The state folder's usage history read without writing (the keys command beside a running
 * server, and a server at start): each day's file plus the journal lines not folded into it.
 */
import { existsSync, readdirSync } from 'node:fs';
import { QuotaStateError } from './counts-file.ts';
import { daysFrom, usageRow, type UsageRow } from './usage-day.ts';
import { readDayFile, readJournals, usageDir, type DayCounts, type DaysCounts } from './usage-files.ts';

/** Attempts at a consistent read while the server folds (it rewrites day files, then deletes journals). */
const READ_ATTEMPTS = 10;

/** Each day's totals (file plus journals) of `wanted`, as a server would fold them. */
export function readUsageDays(dir: string, wanted: ReadonlySet<string>): DaysCounts {
  const files = new Map<string, ReturnType<typeof readDayFile>>();
  const fileOf = (day: string) => {
    if (!files.has(day)) files.set(day, readDayFile(dir, day));
    return files.get(day)!;
  };
  for (const day of wanted) fileOf(day);
  const deltas = readJournals(
    dir,
    (day) => fileOf(day)?.nextJournal ?? 0,
    (day) => wanted.has(day),
  );
  const days: DaysCounts = new Map();
  for (const [day, file] of files) {
    if (!file) continue;
    const counts: DayCounts = new Map();
    file.keys.forEach((key, i) => counts.set(key, file.served[i]!));
    days.set(day, counts);
  }
  for (const [day, counts] of deltas) {
    let total = days.get(day);
    if (!total) {
      const file = fileOf(day);
      total = new Map(file ? file.keys.map((key, i) => [key, file.served[i]!]) : []);
      days.set(day, total);
    }
    for (const [key, n] of counts) total.set(key, (total.get(key) ?? 0) + n);
  }
  return days;
}

/** A folder's listing, to tell whether a fold happened while it was read. */
const listing = (dir: string) => readdirSync(dir).sort().join('\n');

/**
 * The rows from `from` to `to` (days, inclusive), sorted by day then scope (and kind), only those
 * served; none when the folder has no history yet.
 */
export function readUsageHistory(stateDir: string, from: string, to: string): UsageRow[] {
  const dir = usageDir(stateDir);
  if (!existsSync(dir)) return [];
  const wanted = new Set(daysFrom(from, to));
  let lastError: Error | null = null;
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
    const before = listing(dir);
    let days: DaysCounts;
    try {
      days = readUsageDays(dir, wanted);
    } catch (error) {
      const gone =
        error instanceof QuotaStateError && (error.cause as { code?: string } | undefined)?.code === 'ENOENT';
      if (!gone) throw error;
      lastError = error;
      continue;
    }
    if (listing(dir) !== before) continue;
    return rowsOf(days);
  }
  throw new QuotaStateError(
    `the usage history in ${dir} kept changing while it was read (${lastError?.message ?? 'folds under way'}); ` +
      'try again',
  );
}

/** Days' counts as rows, by day then usage key; zeros left out. */
export function rowsOf(days: DaysCounts): UsageRow[] {
  const rows: UsageRow[] = [];
  for (const day of [...days.keys()].sort()) {
    const counts = days.get(day)!;
    for (const key of [...counts.keys()].sort()) {
      const served = counts.get(key)!;
      if (served > 0) rows.push(usageRow(day, key, served));
    }
  }
  return rows;
}
