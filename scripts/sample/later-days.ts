/**
 * What a sequence of daily samples (`--day K`) changes from one day to the next besides the
 * measurements (scripts/sample/measurements.ts): a few endpoints change their prices, most of
 * them cutting, as providers do. Each day draws from its own stream, so day K's data is day
 * K-1's with day K's changes.
 */
import type { ProviderEndpoint } from '../../build/types.ts';
import type { SampleOptions } from './options.ts';
import type { EndpointDraft } from './providers.ts';
import { Rng } from './rng.ts';
import { DAY_MS, dayMs, isoDay, price } from './world.ts';

/** Endpoints whose prices change on one day: from none to this many. */
export const MOST_PRICE_CHANGES_PER_DAY = 6;

const PRICES = [
  'price_1m_input_tokens',
  'price_1m_output_tokens',
  'price_1m_cache_hit_tokens',
  'price_1m_cache_write_tokens',
] as const satisfies readonly (keyof ProviderEndpoint)[];

/** The last day of the measurements of the data `options` describe. */
export function dataDate(options: Pick<SampleOptions, 'asOf' | 'day'>): string {
  return isoDay(dayMs(options.asOf) + options.day * DAY_MS);
}

/** Apply the price changes of days 1 to `options.day`, in order, to the as-of date's endpoints. */
export function changePrices(endpoints: readonly EndpointDraft[], options: Pick<SampleOptions, 'seed' | 'day'>): void {
  const priced = endpoints.filter((e) => e.record.price_1m_input_tokens !== null);
  if (priced.length === 0) return;
  for (let day = 1; day <= options.day; day++) {
    const rng = new Rng(options.seed, `day ${day}/prices`);
    for (let n = rng.int(0, MOST_PRICE_CHANGES_PER_DAY); n > 0; n--) {
      const { record } = rng.pick(priced);
      const factor = rng.chance(0.7) ? rng.uniform(0.6, 0.95) : rng.uniform(1.05, 1.3);
      for (const field of PRICES) {
        const was = record[field];
        if (was !== null) record[field] = price(was * factor);
      }
    }
  }
}
