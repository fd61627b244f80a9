/** Calendar arithmetic on UTC dates written `YYYY-MM-DD`. */

export const DAY_MS = 86_400_000;

export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The same day one calendar month earlier, clamped to the month's last day
 * (2026-03-31 -> 2026-02-28): the measurements route's default and earliest start date.
 */
export function oneMonthBefore(ms: number): string {
  const d = new Date(Math.floor(ms / DAY_MS) * DAY_MS);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth() - 1;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return isoDay(Date.UTC(year, month, Math.min(d.getUTCDate(), lastDay)));
}
