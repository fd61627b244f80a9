/**
 * The data date (`as_of`): where every statistics window of every provider ends. Given with
 * `--as-of`, else the newest measurement, else the newest release date. One measurement dated
 * today moves it for the whole dataset, so the build says where it came from, and warns when one
 * provider's measurements alone put it past every other provider's.
 */
import { DAY_MS } from '../src/shared/dates.ts';
import type { Dataset } from './types.ts';

export interface DataDate {
  asOf: Date;
  /** Where it came from, for the build's summary. */
  reason: string;
  /** Set when one provider's measurements alone put it more than a day past all the others'. */
  warning: string | null;
}

/** Days, to one decimal, for a message. */
const days = (ms: number) => `${(ms / DAY_MS).toFixed(1)} days`;

/** The newest measurement time of each provider (by slug), newest first. */
function newestByProvider(dataset: Dataset): [string, number][] {
  const providerOf = new Map(dataset.endpoints.map((e) => [e.id, e.provider_id]));
  const slugOf = new Map(dataset.providers.map((p) => [p.id, p.slug]));
  const newest = new Map<string, number>();
  for (const s of dataset.series) {
    if (s.columns.length === 0) continue;
    const provider = providerOf.get(s.endpoint_id);
    const slug = (provider && slugOf.get(provider)) ?? s.endpoint_id;
    newest.set(slug, Math.max(newest.get(slug) ?? 0, s.columns.time[s.columns.length - 1]));
  }
  return [...newest].sort((a, b) => b[1] - a[1]);
}

export function resolveDataDate(dataset: Dataset, given?: string): DataDate {
  if (given) {
    const at = /^\d{4}-\d{2}-\d{2}$/.test(given) ? `${given}T23:59:59.999Z` : given;
    const date = new Date(at);
    if (Number.isNaN(date.getTime())) throw new Error(`--as-of ${given}: not a date or timestamp`);
    return { asOf: date, reason: 'given with --as-of', warning: null };
  }
  const providers = newestByProvider(dataset);
  if (providers.length > 0) {
    const [[slug, newest], next] = providers;
    const nextNewest = next ? ` (the next provider's newest: ${new Date(next[1]).toISOString()}, ${next[0]})` : '';
    const reason = `the newest measurement, of provider ${slug}${nextNewest}`;
    const warning =
      next && newest - next[1] > DAY_MS
        ? `the data date ${new Date(newest).toISOString()} comes from provider ${slug}'s measurements alone: ` +
          `every other provider's end ${days(newest - next[1])} earlier or more, ` +
          `so their statistics windows, which end at the data date, hold that much less; give --as-of to pin the date`
        : null;
    return { asOf: new Date(newest), reason, warning };
  }
  let released = 0;
  for (const m of dataset.models)
    if (m.release_date) released = Math.max(released, Date.parse(`${m.release_date}T23:59:59.999Z`));
  return {
    asOf: new Date(released),
    reason: released ? 'the newest release date (no measurements)' : 'no measurements and no release dates',
    warning: null,
  };
}
