/** Blended prices (USD per 1M tokens), as the client contract (README.md) states them. Null when a term is null. */
import { round } from './stats.ts';

const PRICE_DECIMALS = 6;

/** Three input tokens to one output token. */
export function blended3To1(input: number | null, output: number | null): number | null {
  if (input === null || output === null) return null;
  return round((3 * input + output) / 4, PRICE_DECIMALS);
}

/** Seven cache-hit input tokens to two fresh input tokens to one output token. */
export function blended7To2To1(cacheHit: number | null, input: number | null, output: number | null): number | null {
  if (cacheHit === null || input === null || output === null) return null;
  return round((7 * cacheHit + 2 * input + output) / 10, PRICE_DECIMALS);
}
