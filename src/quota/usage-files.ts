/**
 * The usage history's files in the state folder's `usage/` folder (0700, files 0600):
 *
 * - `journal.N`: what was served since the last fold, one line a scope and day, appended once a
 *   second by the server (usage-book.ts): `["DAY","SCOPE KIND",N]`, N answers served that day.
 * - `DAY.jsonl` (e.g. `2026-11-21.jsonl`): the day's totals, rewritten atomically at a fold, a
 *   header `{"format":1,"day":"DAY","next_journal":J,"rows":R}` then one line a scope and kind,
 *   `["SCOPE KIND",SERVED]`, sorted. Its `next_journal` is the first journal not folded into it.
 *
 * A fold starts journal N+1, rewrites each day the journals touched (its file plus their lines)
 * saying `next_journal` N+1, and only then deletes the journals before N+1: a crash at any point
 * leaves each day's file and the journal lines it has not folded, so no answer is counted twice
 * or lost. Days older than the retention are deleted at a fold.
 *
 * Read here without writing: by the server at start, and by the keys command beside a running server.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QuotaStateError } from './counts-file.ts';
import { isDay } from './usage-day.ts';

export const USAGE_DIR = 'usage';
export const USAGE_FORMAT = 1;
/** Lines of a day file per slice of text: one write, and one turn, each. */
const LINES_PER_SLICE = 5_000;

/** A day's deltas or totals: served answers by usage key (SCOPE KIND). */
export type DayCounts = Map<string, number>;
/** Days, each with its counts. */
export type DaysCounts = Map<string, DayCounts>;

export function usageDir(stateDir: string): string {
  return join(stateDir, USAGE_DIR);
}

export const dayFileName = (day: string) => `${day}.jsonl`;
export const journalName = (n: number) => `journal.${n}`;

/** The day a file holds (`2026-11-21.jsonl`), or null for any other name. */
export function dayOfFile(name: string): string | null {
  const day = name.endsWith('.jsonl') ? name.slice(0, -6) : '';
  return isDay(day) ? day : null;
}

/** The number of a usage journal (`journal.12`), or null. */
export function usageJournalNumber(name: string): number | null {
  const match = /^journal\.([1-9]\d{0,15})$/.exec(name);
  return match ? Number(match[1]) : null;
}

/** One journal line: `n` answers of `key` served on `day`. */
export function usageJournalLine(day: string, key: string, n: number): string {
  return `${JSON.stringify([day, key, n])}\n`;
}

/** A day's file: its header, then its rows (keys sorted) in slices. */
export function* dayFileText(day: string, nextJournal: number, keys: readonly string[], counts: DayCounts) {
  yield `${JSON.stringify({ format: USAGE_FORMAT, day, next_journal: nextJournal, rows: keys.length })}\n`;
  for (let from = 0; from < keys.length; from += LINES_PER_SLICE) {
    let text = '';
    for (const key of keys.slice(from, from + LINES_PER_SLICE)) text += `[${JSON.stringify(key)},${counts.get(key)}]\n`;
    yield text;
  }
}

/** A day file read: the first journal not folded into it, and its rows in order. */
export interface DayFile {
  nextJournal: number;
  keys: string[];
  served: number[];
}

const corrupt = (path: string, why: string) =>
  new QuotaStateError(`usage history ${path} ${why}; restore it from a backup, or delete it to lose that day`);

/** The header of a day file's text, checked; `end` is where its rows begin. */
export function dayHeader(path: string, text: string): { nextJournal: number; rows: number; end: number } {
  const end = text.indexOf('\n');
  let header: { format?: unknown; next_journal?: unknown; rows?: unknown };
  try {
    header = JSON.parse(end < 0 ? text : text.slice(0, end));
  } catch {
    throw corrupt(path, 'has no header');
  }
  const { format, next_journal: next, rows } = header ?? {};
  if (format !== USAGE_FORMAT || !Number.isSafeInteger(next) || !Number.isSafeInteger(rows))
    throw corrupt(path, `is not a usage day of format ${USAGE_FORMAT}`);
  return { nextJournal: next as number, rows: rows as number, end: end + 1 };
}

/** Rows of a day file's text from `at` up to `most` of them, into `into`; where the next ones begin. */
export function parseDayRows(path: string, text: string, at: number, most: number, into: DayFile): number {
  for (let n = 0; n < most && at < text.length; n++) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const row = dayRow(path, text, at, end);
    into.keys.push(row[0]);
    into.served.push(row[1]);
    at = end + 1;
  }
  return at;
}

/** The row of a day file's line (`text` from `at` to `end`): its usage key and count; a bad one throws. */
export function dayRow(path: string, text: string, at: number, end: number): [string, number] {
  const row = plainRow(text, at, end) ?? jsonRow(text.slice(at, end));
  if (row === null) throw corrupt(path, `has a bad row: ${text.slice(at, Math.min(end, at + 80))}`);
  return row;
}

/**
 * A row as the server writes it, `["KEY",N]` with no escape in KEY (scopes are names, which have
 * none), read where it stands; null for anything else, which JSON.parse then reads. A day of
 * 100,000 rows took 37-72 ms through JSON.parse a row, 23-37 ms so (4 runs), and an export reads
 * a day's file for each day asked for.
 */
function plainRow(text: string, at: number, end: number): [string, number] | null {
  const close = text.lastIndexOf('",', end);
  if (text.charCodeAt(at) !== 91 || text.charCodeAt(at + 1) !== 34 || text.charCodeAt(end - 1) !== 93) return null;
  if (close <= at + 1) return null;
  const key = text.slice(at + 2, close);
  if (key.includes('\\') || key.includes('"')) return null;
  const served = Number(text.slice(close + 2, end - 1));
  return Number.isSafeInteger(served) && served >= 0 ? [key, served] : null;
}

function jsonRow(line: string): [string, number] | null {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return null;
  }
  return Array.isArray(row) && typeof row[0] === 'string' && Number.isSafeInteger(row[1]) ? [row[0], row[1]] : null;
}

/**
 * One usage key's count in a day file's bytes, found by its line's start (`["KEY",`) without
 * decoding or reading the other rows: a key's page charts one scope of 100,000 a day. 0 when the
 * day has none.
 */
export function countInDayBytes(bytes: Buffer, key: string): number {
  const start = Buffer.from(`\n[${JSON.stringify(key)},`);
  const at = bytes.indexOf(start);
  if (at < 0) return 0;
  const end = bytes.indexOf(93, at + start.length); // ]
  const served = Number(bytes.toString('latin1', at + start.length, end));
  return Number.isSafeInteger(served) ? served : 0;
}

/** A day file read whole (at start, and by the keys command), or null when there is none. */
export function readDayFile(dir: string, day: string): DayFile | null {
  const path = join(dir, dayFileName(day));
  const text = readOrNull(path);
  if (text === null) return null;
  const { nextJournal, rows, end } = dayHeader(path, text);
  const file: DayFile = { nextJournal, keys: [], served: [] };
  parseDayRows(path, text, end, Infinity, file);
  if (file.keys.length !== rows) throw corrupt(path, `holds ${file.keys.length} rows, its header says ${rows}`);
  return file;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new QuotaStateError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** The journals in the folder, by number. */
export function usageJournals(dir: string): number[] {
  return readdirSync(dir)
    .flatMap((name) => usageJournalNumber(name) ?? [])
    .sort((a, b) => a - b);
}

/** The days that have a file. */
export function dayFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => dayOfFile(name) ?? [])
    .sort();
}

/**
 * The journals' lines not yet folded into their day's file (`nextJournal` of a day: its file's),
 * by day; `keep` says which days are wanted. A torn last line (a crash mid-write) is dropped:
 * those answers are the second a crash can lose.
 */
export function readJournals(
  dir: string,
  nextJournal: (day: string) => number,
  keep: (day: string) => boolean = () => true,
): DaysCounts {
  const days: DaysCounts = new Map();
  for (const number of usageJournals(dir)) {
    const path = join(dir, journalName(number));
    const text = readOrNull(path);
    if (text === null) throw new QuotaStateError(`${path} went away while read`, { cause: { code: 'ENOENT' } });
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (line === '') return;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        entry = null;
      }
      const ok =
        Array.isArray(entry) &&
        typeof entry[0] === 'string' &&
        isDay(entry[0]) &&
        typeof entry[1] === 'string' &&
        Number.isSafeInteger(entry[2]);
      if (!ok) {
        if (i === lines.length - 1) return; // torn by a crash mid-write
        throw corrupt(path, `line ${i + 1} is corrupt`);
      }
      const [day, key, n] = entry as [string, string, number];
      if (!keep(day) || number < nextJournal(day)) return;
      let counts = days.get(day);
      if (!counts) days.set(day, (counts = new Map()));
      counts.set(key, (counts.get(key) ?? 0) + n);
    });
  }
  return days;
}

/** Make the folder if it is missing (0700). */
export function ensureUsageDir(stateDir: string): string {
  const dir = usageDir(stateDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
