/**
 * A day file's lines (DayLines: `["SCOPE KIND",N]`, as the server writes them) written straight
 * into an export's text, byte by byte, with no row object and no string a row between them. A
 * 30-day export of 100,000 scopes spent most of its 3.3-4.1 s making, filtering and writing out
 * 3,000,000 rows; so it takes 1.0-1.9 s (scripts/bench/usage-history.ts, with send.ts making the
 * next piece while the last is sent). A line it cannot vouch for (a byte outside a name's, a count
 * not plain, a scope a spreadsheet would read as a formula) takes the rows' way, so both write the
 * same text (test/unit/admin/usage-export.test.ts compares them).
 */
import { dayRow } from '../quota/usage-files.ts';
import { KEY_SCOPE, rowKept, usageRow, type DayLines, type RowFilter } from '../quota/usage-day.ts';
import { rowsText, type ExportFormat } from './usage-export.ts';

const [NEWLINE, CR, SPACE, QUOTE, COMMA, ZERO, NINE, OPEN, CLOSE, BRACE] = [10, 13, 32, 34, 44, 48, 57, 91, 93, 125];
const KIND_FIELD = Buffer.from('","kind":"');
const SERVED_FIELD = Buffer.from('","served":');
const KEY_SCOPE_BYTES = Buffer.from(KEY_SCOPE);
/** The most a row's text adds to its line's bytes: JSON's field names and the day. */
const ROW_MOST_ADDED = 64;
/** The longest count written as it stands: a safe integer has at most 16 digits; 15 are always safe. */
const MOST_DIGITS = 15;

/** A name's bytes (NAME_PATTERN, src/keys/record.ts) and a scope's `:` and `/`: none is escaped in JSON or CSV. */
const NAME_BYTE = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._@+-:/') NAME_BYTE[c.charCodeAt(0)] = 1;
/** A field starting with one of these is guarded in CSV (csvField): such a line takes the rows' way. */
const FORMULA_START = new Uint8Array(256);
for (const c of '+-@') FORMULA_START[c.charCodeAt(0)] = 1;

/**
 * The export's text of the lines the filter keeps: in CSV a line a row (`DAY,KIND,SCOPE,N`), in
 * JSON each row preceded by a comma (`,{"day":...}`, as JSON.stringify writes a row: day, scope,
 * kind, served). Rows served 0 times are left out, as they are from rows.
 */
export function dayLinesText(format: ExportFormat, lines: DayLines, filter: RowFilter): Buffer {
  const { bytes, day } = lines;
  const json = format === 'json';
  const head = Buffer.from(json ? `,{"day":"${day}","scope":"` : `${day},`);
  const kind = filter.kind === null ? null : Buffer.from(filter.kind);
  const orgScope = filter.org === null ? null : Buffer.from(`org:${filter.org}`);
  const orgUsers = filter.org === null ? null : Buffer.from(`user:${filter.org}/`);
  let out: Buffer = Buffer.allocUnsafe(2 * (lines.end - lines.start) + 1024);
  let o = 0;
  // `out` and `o` stay locals no function closes over: the closures that first wrote here took a quarter of
  // the export's time in a profile.
  for (let at = lines.start; at < lines.end;) {
    const quote = plainKeyEnd(bytes, at);
    const end = quote < 0 ? -1 : plainLineEnd(bytes, quote, lines.end);
    if (end < 0) {
      const next = lineEnd(lines, at);
      const written = rowsWay(format, lines, filter, at, next);
      if (written !== null) {
        if (o + written.length > out.length) out = grown(out, o, written.length);
        o += written.copy(out, o);
      }
      at = next + 1;
      continue;
    }
    let space = quote - 1;
    while (bytes[space] !== SPACE) space--;
    const scope = at + 2;
    const served = quote + 2;
    const kept =
      space > scope &&
      space < quote - 1 &&
      !(end - served === 1 && bytes[served] === ZERO) &&
      (kind === null || same(bytes, space + 1, quote, kind)) &&
      (orgScope === null ||
        same(bytes, scope, space, orgScope) ||
        startsWith(bytes, scope, space, orgUsers!) ||
        keyOf(bytes, scope, space, filter.orgKeys));
    if (kept) {
      if (o + (end - at) + ROW_MOST_ADDED > out.length) out = grown(out, o, end - at + ROW_MOST_ADDED);
      o = copy(head, 0, head.length, out, o);
      if (json) {
        o = copy(bytes, scope, space, out, o);
        o = copy(KIND_FIELD, 0, KIND_FIELD.length, out, o);
        o = copy(bytes, space + 1, quote, out, o);
        o = copy(SERVED_FIELD, 0, SERVED_FIELD.length, out, o);
        o = copy(bytes, served, end, out, o);
        out[o++] = BRACE;
      } else {
        o = copy(bytes, space + 1, quote, out, o);
        out[o++] = COMMA;
        o = copy(bytes, scope, space, out, o);
        out[o++] = COMMA;
        o = copy(bytes, served, end, out, o);
        out[o++] = CR;
        out[o++] = NEWLINE;
      }
    }
    at = end + 2; // past `]` and its newline
  }
  return out.subarray(0, o);
}

/**
 * Where a plain line's key ends (its closing quote), or -1: the line starts `["`, then bytes of
 * names and spaces, the first not a formula's start (`+`, `-`, `@`), up to a quote and a comma.
 */
function plainKeyEnd(bytes: Buffer, at: number): number {
  if (bytes[at] !== OPEN || bytes[at + 1] !== QUOTE || FORMULA_START[bytes[at + 2]!] === 1) return -1;
  let i = at + 2;
  while (NAME_BYTE[bytes[i]!] === 1 || bytes[i] === SPACE) i++;
  return bytes[i] === QUOTE && bytes[i + 1] === COMMA ? i : -1;
}

/** Where a plain line's count ends (its `]`, then a newline or the piece's end), or -1: 1-15 digits, no leading 0. */
function plainLineEnd(bytes: Buffer, quote: number, last: number): number {
  const first = quote + 2;
  let i = first;
  while (bytes[i]! >= ZERO && bytes[i]! <= NINE) i++;
  const digits = i - first;
  if (digits < 1 || digits > MOST_DIGITS || (digits > 1 && bytes[first] === ZERO)) return -1;
  return bytes[i] === CLOSE && (i + 1 === last || bytes[i + 1] === NEWLINE) ? i : -1;
}

/** Where the line at `at` ends: its newline, or the piece's end. */
function lineEnd(lines: DayLines, at: number): number {
  const end = lines.bytes.indexOf(NEWLINE, at);
  return end < 0 || end > lines.end ? lines.end : end;
}

/** A line not plain, the rows' way: parsed, its row filtered and written as rows are; null when it is left out. */
function rowsWay(format: ExportFormat, lines: DayLines, filter: RowFilter, at: number, end: number): Buffer | null {
  if (end === at) return null; // the file's last newline
  const [key, served] = dayRow(lines.path, lines.bytes.toString('utf8', at, end), 0, end - at);
  const row = usageRow(lines.day, key, served);
  return served > 0 && rowKept(filter, row) ? Buffer.from(rowsText(format, [row])) : null;
}

// Copied a byte at a time: a row's fields are a few bytes each, fewer than a native copy's call costs.
function copy(source: Uint8Array, from: number, to: number, out: Uint8Array, o: number): number {
  for (let i = from; i < to; i++) out[o++] = source[i]!;
  return o;
}

function grown(out: Buffer, used: number, more: number): Buffer {
  const bigger = Buffer.allocUnsafe(Math.max(2 * out.length, used + more));
  out.copy(bigger, 0, 0, used);
  return bigger;
}

/** Whether the scope is `key:ID` of one of `ids`. */
function keyOf(bytes: Buffer, from: number, to: number, ids: ReadonlySet<string> | undefined): boolean {
  if (ids === undefined || !startsWith(bytes, from, to, KEY_SCOPE_BYTES)) return false;
  return ids.has(bytes.toString('latin1', from + KEY_SCOPE_BYTES.length, to));
}

function same(bytes: Buffer, from: number, to: number, wanted: Buffer): boolean {
  return to - from === wanted.length && startsWith(bytes, from, to, wanted);
}

function startsWith(bytes: Buffer, from: number, to: number, wanted: Buffer): boolean {
  if (to - from < wanted.length) return false;
  for (let i = 0; i < wanted.length; i++) if (bytes[from + i] !== wanted[i]) return false;
  return true;
}
