/**
 * A span of time as an operator writes it on a command line: a whole number and a unit, `90s`,
 * `30m`, `12h`, `7d`; a bare number is seconds, as the server's other time flags are.
 */

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d{1,9})([smhd]?)$/;

/** Milliseconds, or null when the text is not a duration. */
export function durationMs(text: string): number | null {
  const match = DURATION.exec(text.trim());
  return match === null ? null : Number(match[1]) * UNIT_MS[match[2] || 's'];
}

/** Milliseconds as the shortest exact way to write them (`30m`, `12h`, `90s`): the form help shows defaults in. */
export function durationText(ms: number): string {
  for (const unit of ['d', 'h', 'm'])
    if (ms >= UNIT_MS[unit] && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  return `${Math.round(ms / 1000)}s`;
}
