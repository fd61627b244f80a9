/**
 * The usage history's answer as text, pure: JSON as JSON.stringify writes `{from, to, data}`, or
 * CSV (`day,kind,scope,served`) under its header, each made a piece at a time.
 */
import { rowKept, type HistoryPiece, type RowFilter } from '../quota/usage-day.ts';
import { CSV_HEADER, rowsText, type ExportFormat } from './usage-export.ts';
import { dayLinesText } from './usage-export-lines.ts';

/**
 * The rows the filter keeps, as text pieces of the format, from its head to its tail: rows written
 * here, a day file's lines by dayLinesText.
 */
export async function* exportText(
  format: ExportFormat,
  range: { from: string; to: string },
  pieces: AsyncIterable<HistoryPiece>,
  filter: RowFilter,
): AsyncGenerator<string | Buffer> {
  if (format === 'csv') yield CSV_HEADER;
  else yield `{"from":${JSON.stringify(range.from)},"to":${JSON.stringify(range.to)},"data":[`;
  let first = true;
  for await (const piece of pieces) {
    let text = Array.isArray(piece)
      ? rowsText(
          format,
          piece.filter((row) => rowKept(filter, row)),
        )
      : dayLinesText(format, piece, filter);
    if (text.length === 0) continue;
    // In JSON every row follows a comma but the first.
    if (format === 'json' && first) text = typeof text === 'string' ? text.slice(1) : text.subarray(1);
    first = false;
    yield text;
  }
  if (format === 'json') yield ']}';
}
