/**
 * The usage history's answer as text, pure: JSON as JSON.stringify writes `{from, to, data}`, or
 * CSV (`day,kind,scope,served`), each made a piece of rows at a time.
 */
import type { UsageRow } from '../quota/usage-day.ts';

export type ExportFormat = 'json' | 'csv';

/**
 * One CSV field: a field a spreadsheet would read as a formula (starting with `=`, `+`, `-`, `@`,
 * a tab or a carriage return) gets a leading `'`, as OWASP recommends for CSV exports; a field
 * so guarded or holding a comma, a quote or a line break is quoted, its quotes doubled.
 */
export function csvField(value: string): string {
  const guarded = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return guarded !== value || /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

export const CSV_HEADER = 'day,kind,scope,served\r\n';

/** Rows as CSV lines. A day (YYYY-MM-DD) and a kind (data, critpt) never need a guard: only the scope is checked. */
export function csvRows(rows: readonly UsageRow[]): string {
  let text = '';
  for (const { day, kind, scope, served } of rows) text += `${day},${kind},${csvField(scope)},${served}\r\n`;
  return text;
}

/** The rows `keep` lets through, as text pieces of the format, from its head to its tail. */
export async function* exportText(
  format: ExportFormat,
  range: { from: string; to: string },
  pieces: AsyncIterable<UsageRow[]>,
  keep: (row: UsageRow) => boolean,
): AsyncGenerator<string> {
  if (format === 'csv') yield CSV_HEADER;
  else yield `{"from":${JSON.stringify(range.from)},"to":${JSON.stringify(range.to)},"data":[`;
  let first = true;
  for await (const piece of pieces) {
    const rows = piece.filter(keep);
    if (rows.length === 0) continue;
    if (format === 'csv') yield csvRows(rows);
    else {
      const text = JSON.stringify(rows);
      yield first ? text.slice(1, -1) : `,${text.slice(1, -1)}`;
      first = false;
    }
  }
  if (format === 'json') yield ']}';
}
