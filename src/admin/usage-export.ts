/**
 * The usage history's rows as the text of an export, pure: JSON as JSON.stringify writes them, or
 * CSV (`day,kind,scope,served`). usage-export-text.ts makes the whole answer.
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

/** Rows as the format writes them in a piece: CSV lines, or in JSON each row after a comma (`,{...}`). */
export function rowsText(format: ExportFormat, rows: readonly UsageRow[]): string {
  if (format === 'csv') return csvRows(rows);
  return rows.length === 0 ? '' : `,${JSON.stringify(rows).slice(1, -1)}`;
}
