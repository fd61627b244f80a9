/**
 * How the pull bench (scripts/bench/pull.ts) writes its figures: one JSON line a measurement, MB
 * to one decimal, ratios and seconds to two, shares as percentages, a target met or MISSED.
 */
export const emit = (line: Record<string, unknown>) => console.log(JSON.stringify(line));
export const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
export const round2 = (n: number) => Math.round(n * 100) / 100;
export const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
export const met = (ok: boolean) => (ok ? 'met' : 'MISSED');
