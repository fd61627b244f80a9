/** BENCHMARKS.md's section on the history of builds, from bench/history.json (`npm run bench -- --history`). */
import { tableRow } from './markdown-table.ts';
import type { HistoryDay, HistoryResults } from './results.ts';

/** A model's history and the changes are held to the model detail route's p99, loaded in the same rounds. */
export const HISTORY_P99_TARGET = 1.1;
/** A month of daily builds adds at most this share to the pack. */
export const HISTORY_PACK_TARGET = 0.1;

export const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
/** The history's bytes over the rest of the pack. */
const share = (day: HistoryDay) => day.historyBytes / (day.packBytes - day.historyBytes);
const percent = (n: number) => `${(100 * n).toFixed(1)}%`;
/** The history's share of a day's pack, for the log and the table. */
export const historyShare = (day: HistoryDay) => percent(share(day));
const met = (ok: boolean) => (ok ? 'met' : '**missed**');

export function historyMarkdown({ date, builds, days, rows }: HistoryResults): string {
  const last = days.at(-1)!;
  const shown = days.filter((day) => day.day % 7 === 0 || day === last || day.day === 1);
  const lines = [
    '## The history of builds',
    '',
    `Made by \`npm run bench -- --history\` on ${date.slice(0, 10)}: the sample's daily data (the generator's ` +
      `\`--day 0\` to \`--day ${last.day}\`) built one day after another into one snapshot folder, as a maintainer ` +
      `who builds daily would, so that the last build's history holds ${builds} builds; then one server on it ` +
      "(the bench's 16 MiB body cache), every route asked for br, in alternating rounds: the model detail route " +
      "across every slug, a model's history across every slug, the changes since the build before, and the first " +
      'page of the changes (ten builds).',
    '',
    tableRow(['Day', 'Build s', 'Pack MB', 'History MB', 'History / rest of the pack']),
    tableRow(['---:', '---:', '---:', '---:', '---:']),
    ...shown.map((day) => tableRow([day.day, day.seconds, mb(day.packBytes), mb(day.historyBytes), historyShare(day)])),
    '',
    tableRow(['Route', 'c', 'rps', 'p50 ms', 'p99 ms', 'p99 / detail']),
    tableRow(['---', '---:', '---:', '---:', '---:', '---:']),
    ...rows.map((r) =>
      tableRow([
        r.route,
        r.connections,
        r.rps.toFixed(0),
        r.p50Ms.toFixed(2),
        r.p99Ms.toFixed(2),
        r.p99VsDetail.toFixed(2),
      ]),
    ),
    '',
    `- ${met(share(last) <= HISTORY_PACK_TARGET)}: ${days.length - 1} daily builds add at most ` +
      `${percent(HISTORY_PACK_TARGET)} to the pack: ${percent(share(last))} (${mb(last.historyBytes)} MB of ` +
      `${mb(last.packBytes)} MB)`,
  ];
  for (const r of rows.filter((row) => row.route !== 'detail'))
    lines.push(
      `- ${met(r.p99VsDetail <= HISTORY_P99_TARGET)}: ${r.route} at c=${r.connections}, p99 at most ` +
        `${HISTORY_P99_TARGET}x the detail route's: ${r.p99VsDetail.toFixed(2)}x`,
    );
  return `${lines.join('\n')}\n`;
}
