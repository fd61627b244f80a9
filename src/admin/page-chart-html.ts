/**
 * A key's usage history on its page: one bar a day of the answers its quota scope was served, as
 * inline SVG the page's stylesheet colours (no library, no script, nothing the Content Security
 * Policy would block: SVG's own attributes, no `style=`). Each bar carries its day and count in a
 * <title>, which browsers show on hover and screen readers read; the figure's summary says the
 * total and the busiest day in words.
 */
import { escapeHtml, formatCount } from './page-html.ts';

export interface DayCount {
  /** A UTC day, `YYYY-MM-DD`. */
  day: string;
  served: number;
}

const WIDTH = 640;
const HEIGHT = 160;
const LEFT = 44;
const RIGHT = 20;
const BOTTOM = 22;
const TOP = 8;
const DAY_MS = 86_400_000;

/** Every day from `from` to `to` (inclusive, `YYYY-MM-DD`), with its count (0 for a day without one). */
export function everyDay(from: string, to: string, counts: readonly DayCount[]): DayCount[] {
  const served = new Map(counts.map((c) => [c.day, c.served]));
  const days: DayCount[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += DAY_MS) {
    const day = new Date(at).toISOString().slice(0, 10);
    days.push({ day, served: served.get(day) ?? 0 });
  }
  return days;
}

/** The smallest round number (1, 2 or 5 times a power of ten) at or above `n`: the chart's top. */
export function roundTop(n: number): number {
  if (n <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 5, 10]) if (step * power >= n) return step * power;
  return 10 * power;
}

/** The chart of `days` (oldest first), for the scope named. */
export function renderUsageChart(scope: string, days: readonly DayCount[]): string {
  const total = days.reduce((sum, d) => sum + d.served, 0);
  const busiest = days.reduce<DayCount | null>((top, d) => (top === null || d.served > top.served ? d : top), null);
  const top = roundTop(busiest?.served ?? 0);
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(days.length, 1);
  const bars = days.map((d, i) => {
    const height = (d.served / top) * plotHeight;
    const x = LEFT + i * slot + slot * 0.15;
    const y = TOP + plotHeight - height;
    return (
      `<rect class="bar" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" ` +
      `height="${height.toFixed(1)}"><title>${escapeHtml(d.day)}: ${formatCount(d.served)}</title></rect>`
    );
  });
  // A date under the first bar, every seventh after it, and the last when it has room.
  const last = days.length - 1;
  const labelled = days.flatMap((d, i) => (i % 7 === 0 || (i === last && last % 7 >= 3) ? [[d, i] as const] : []));
  const labels = labelled.map(
    ([d, i]) =>
      `<text class="axis" x="${(LEFT + (i + 0.5) * slot).toFixed(1)}" y="${HEIGHT - 6}" ` +
      `text-anchor="middle">${escapeHtml(d.day.slice(5))}</text>`,
  );
  const summary =
    days.length === 0
      ? 'No days to show.'
      : `${formatCount(total)} answers from ${days[0]!.day} to ${days[days.length - 1]!.day}` +
        (busiest && busiest.served > 0 ? `, the most on ${busiest.day} (${formatCount(busiest.served)}).` : '.');
  const label = `Answers served a day to ${scope}: ${summary}`;
  return `<figure class="usage-chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeHtml(label)}">
<line class="grid" x1="${LEFT}" y1="${TOP}" x2="${WIDTH - RIGHT}" y2="${TOP}"></line>
<line class="grid" x1="${LEFT}" y1="${TOP + plotHeight / 2}" x2="${WIDTH - RIGHT}" y2="${TOP + plotHeight / 2}"></line>
<line class="baseline" x1="${LEFT}" y1="${TOP + plotHeight}" x2="${WIDTH - RIGHT}" y2="${TOP + plotHeight}"></line>
<text class="axis" x="${LEFT - 6}" y="${TOP + 4}" text-anchor="end">${formatCount(top)}</text>
<text class="axis" x="${LEFT - 6}" y="${TOP + plotHeight / 2 + 4}" text-anchor="end">${formatCount(top / 2)}</text>
<text class="axis" x="${LEFT - 6}" y="${TOP + plotHeight + 4}" text-anchor="end">0</text>
${bars.join('\n')}
${labels.join('\n')}
</svg>
<figcaption>${escapeHtml(summary)} <span class="mono">${escapeHtml(scope)}</span></figcaption>
</figure>`;
}
