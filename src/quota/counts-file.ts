/**
 * The text of `quota.json`, the quota counters folded out of the journals. Format 3 is JSON
 * lines: a header line `{"format":3,"next_journal":N,"windows":W}`, then one line a window,
 * `[START,COUNT,SERVED,"COUNTER"]`: COUNT what a server starting from it counts (the leases
 * written, or the answers at a graceful stop), SERVED the answers served (keys usage reads them).
 * Format 2 (`[START,COUNT,"COUNTER"]`) and format 1, one JSON object `{format, next_journal,
 * windows}`, are still read (the next compaction writes format 3).
 *
 * Why lines: at 200,000 open windows the one object took a 10 MB string built and written in a
 * single turn, and `JSON.parse` at start left a 200,000-key object behind; RSS after start was
 * 283 MB (scripts/bench/quota-scale.ts). Lines are written from a copy of the windows in slices,
 * a turn each, and read one at a time without an object per window.
 */
import { WINDOW_MS, type Window, type WindowsCopy } from './window.ts';

export const COUNTS_FILE = 'quota.json';
export const COUNTS_FORMAT = 3;
/** Format 1, one JSON object, and format 2, lines without SERVED: read, never written. */
const OBJECT_FORMAT = 1;
const LINES_FORMAT = 2;
/** Window lines per slice of text: one write, and one turn of the event loop, each. */
export const LINES_PER_SLICE = 2_000;

export class QuotaStateError extends Error {}

/** The header, then the windows' lines in slices of LINES_PER_SLICE. */
export function* countsText(nextJournal: number, windows: WindowsCopy): Generator<string> {
  const { counters, starts, counts, served, now } = windows;
  yield `${JSON.stringify({ format: COUNTS_FORMAT, next_journal: nextJournal, windows: windows.length })}\n`;
  for (let from = 0; from < counters.length; from += LINES_PER_SLICE) {
    let text = '';
    const to = Math.min(counters.length, from + LINES_PER_SLICE);
    for (let i = from; i < to; i++) {
      const counter = counters[i];
      if (counter !== undefined && now < starts[i]! + WINDOW_MS)
        text += `[${starts[i]},${counts[i]},${served[i]},${JSON.stringify(counter)}]\n`;
    }
    yield text;
  }
}

const refuse = (path: string, why: string) =>
  new QuotaStateError(
    `quota state ${path} ${why}; refusing to start rather than reset counters. Restore it from a backup, or delete ` +
      `it to reset every quota.`,
  );

const NOT_A_COUNTS_FILE = `is not a quota snapshot of format ${OBJECT_FORMAT}, ${LINES_FORMAT} or ${COUNTS_FORMAT}`;

const isWindow = (start: unknown, count: unknown) =>
  Number.isSafeInteger(start) && Number.isSafeInteger(count) && (count as number) >= 0;

/** Takes one window of the file, and the answers it served (its count, in formats without them). */
type Restore = (counter: string, window: Window, served: number) => void;

/** Read quota.json's text into `restore`; returns the first journal not folded into it. Throws QuotaStateError. */
export function parseCounts(path: string, text: string, restore: Restore): number {
  const firstEnd = text.indexOf('\n');
  let header: { format?: unknown; next_journal?: unknown; windows?: unknown };
  try {
    header = JSON.parse(firstEnd < 0 ? text : text.slice(0, firstEnd));
  } catch (error) {
    throw refuse(path, `is corrupt (not JSON: ${(error as Error).message})`);
  }
  if (header === null || typeof header !== 'object') throw refuse(path, NOT_A_COUNTS_FILE);
  const next = header.next_journal;
  if (!Number.isSafeInteger(next) || (next as number) < 1) throw refuse(path, NOT_A_COUNTS_FILE);
  if (header.format === OBJECT_FORMAT) return parseObjectFormat(path, header.windows, restore, next as number);
  const known = header.format === COUNTS_FORMAT || header.format === LINES_FORMAT;
  if (!known || !Number.isSafeInteger(header.windows)) throw refuse(path, NOT_A_COUNTS_FILE);
  const read = parseLines(path, text, firstEnd + 1, restore, header.format === COUNTS_FORMAT);
  // A file cut short (or grown) is corrupt, whole lines or not: the header says how many.
  if (read !== header.windows)
    throw refuse(path, `is corrupt (${read} windows, its header says ${String(header.windows)})`);
  return next as number;
}

function parseObjectFormat(path: string, windows: unknown, restore: Restore, next: number): number {
  const ok =
    windows !== null &&
    typeof windows === 'object' &&
    Object.values(windows).every((w) => w !== null && typeof w === 'object' && isWindow(w.start, w.count));
  if (!ok) throw refuse(path, NOT_A_COUNTS_FILE);
  for (const [counter, window] of Object.entries(windows as Record<string, Window>))
    restore(counter, window, window.count);
  return next;
}

/**
 * The window lines from `at` on, each `[START,COUNT,SERVED,"COUNTER"]` as written above (with
 * `served` false, format 2's `[START,COUNT,"COUNTER"]`); a counter with an escape in it is read
 * by JSON.parse, others by slicing off its quotes (no JSON.parse a line).
 */
function parseLines(path: string, text: string, at: number, restore: Restore, withServed: boolean): number {
  let read = 0;
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const line = text.slice(at, end);
    const first = line.indexOf(',');
    const second = line.indexOf(',', first + 1);
    const third = withServed ? line.indexOf(',', second + 1) : second;
    const start = Number(line.slice(1, first));
    const count = Number(line.slice(first + 1, second));
    const served = withServed ? Number(line.slice(second + 1, third)) : count;
    const literal = line.slice(third + 1, -1);
    let counter: unknown = null;
    if (
      line.startsWith('[') &&
      line.endsWith('"]') &&
      first > 0 &&
      second > first &&
      third >= second &&
      literal.length >= 2 &&
      literal.startsWith('"')
    ) {
      const inner = literal.slice(1, -1);
      if (!inner.includes('\\') && !inner.includes('"')) counter = inner;
      else {
        try {
          counter = JSON.parse(literal);
        } catch {
          counter = null;
        }
      }
    }
    read++;
    if (typeof counter !== 'string' || !isWindow(start, count) || !isWindow(start, served)) {
      throw refuse(path, `is corrupt (window line ${read + 1}: ${JSON.stringify(line.slice(0, 80))})`);
    }
    // SERVED is what a reader shows; what a server counts is COUNT, which never falls below it.
    restore(counter, { start, count }, Math.min(served, count));
    at = end + 1;
  }
  return read;
}
