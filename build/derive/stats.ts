/** Order statistics over plain numbers. Pure; every caller passes values, never records. */

/**
 * Round to a number of decimals, halves away from zero, as the value reads in decimal
 * (2.675 -> 2.68, 10.0005 -> 10.001): shifting by exponent notation avoids the binary error
 * that multiplying by a power of ten brings in.
 */
export function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  const scaled = Math.abs(value) * factor;
  const fraction = scaled - Math.floor(scaled);
  // Far from a half, binary noise cannot change the result: take the fast path.
  const rounded =
    Math.abs(fraction - 0.5) > 1e-6 || !Number.isFinite(scaled)
      ? Math.round(scaled) / factor
      : roundHalfAsDecimal(Math.abs(value), decimals);
  return rounded === 0 ? 0 : Math.sign(value) * rounded;
}

function roundHalfAsDecimal(magnitude: number, decimals: number): number {
  const text = String(magnitude);
  if (text.includes('e')) return Math.round(magnitude * 10 ** decimals) / 10 ** decimals;
  return Number(`${Math.round(Number(`${text}e${decimals}`))}e-${decimals}`);
}

export function roundOrNull(value: number | null, decimals: number): number | null {
  return value === null ? null : round(value, decimals);
}

/**
 * The q-quantile of values already sorted ascending, by linear interpolation between the
 * closest ranks (the method of R's type 7 and numpy's default). Null for no values.
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number | null {
  if (sorted.length === 0) return null;
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const weight = position - lower;
  return sorted[lower] + (sorted[upper] - sorted[lower]) * weight;
}

/** Numbers sorted ascending (a typed array sorts numerically and fast). */
export function sortNumbers(values: Iterable<number>): Float64Array {
  return Float64Array.from(values).sort();
}

/** Median of the non-null values; null when there are none. */
export function median(values: Iterable<number | null>): number | null {
  const present: number[] = [];
  for (const v of values) if (v !== null) present.push(v);
  return quantileSorted(sortNumbers(present), 0.5);
}
