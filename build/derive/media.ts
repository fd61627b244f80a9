/**
 * Media arenas: which entries a route lists, in which order, and what the build derives for
 * them. Image and video leaderboards list only ranked entries: at least `minSamples`
 * appearances, not superseded by a newer version (and, for image arenas when the option is
 * on, first-party only); `rank` is 1..n among those by Elo. Other arenas list every entry.
 */
import type { MediaFamily } from '../schemas/media.ts';
import { median, round } from './stats.ts';
import { compareByNameThenId } from './language.ts';
import type { Dataset, MediaEntry, MediaProviderEntry, ModelCreator, Provider } from '../types.ts';

export interface ArenaOptions {
  /** Appearances an entry needs to hold a rank on image and video leaderboards. */
  minSamples: number;
  /** Limit image arenas to first-party models (one description of the service does). */
  imageFirstPartyOnly: boolean;
}

export const DEFAULT_ARENA_OPTIONS: ArenaOptions = { minSamples: 500, imageFirstPartyOnly: false };

export const WER_FIELDS = ['platform_agenttalk', 'voxpopuli_cleaned_platform', 'earnings_22_cleaned_platform'] as const;
const WER_DECIMALS = 4;

export interface MediaProviderView {
  provider: Provider;
  entry: MediaProviderEntry;
  /** Speech-to-text: the provider's WER index. */
  werIndex: number | null;
}

export interface MediaView {
  entry: MediaEntry;
  creator: ModelCreator;
  /** 1-based leaderboard rank (image and video), else null. */
  rank: number | null;
  /** Speech-to-speech: the best tau-voice result across providers. */
  tauVoice: number | null;
  /** Speech-to-text: each WER as the median across providers, and their index. */
  wer: Record<(typeof WER_FIELDS)[number] | 'platform_wer_index', number | null>;
  providers: MediaProviderView[];
}

export function isEligible(entry: MediaEntry, family: MediaFamily, options: ArenaOptions): boolean {
  if ((entry.samples ?? 0) < options.minSamples || entry.superseded_by) return false;
  return !(family === 'image' && options.imageFirstPartyOnly && entry.first_party === false);
}

/** The WER index: the mean of the three benchmark word error rates; null when one is missing. */
export function werIndex(rates: readonly (number | null | undefined)[]): number | null {
  if (rates.some((r) => r === null || r === undefined)) return null;
  return round((rates as number[]).reduce((a, b) => a + b, 0) / rates.length, WER_DECIMALS);
}

/** Best (highest) of the non-null scores, or null. */
function best(values: (number | null | undefined)[]): number | null {
  const present = values.filter((v): v is number => typeof v === 'number');
  return present.length ? Math.max(...present) : null;
}

function byEloThenName(a: MediaView, b: MediaView): number {
  return (b.entry.elo ?? 0) - (a.entry.elo ?? 0) || compareByNameThenId(a.entry, b.entry);
}

/** Nulls last, then name and id. */
function byScore(score: (v: MediaView) => number | null, direction: 1 | -1) {
  return (a: MediaView, b: MediaView) => {
    const [x, y] = [score(a), score(b)];
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return direction * (x - y);
    }
    return compareByNameThenId(a.entry, b.entry);
  };
}

/** The entries an arena's routes list, in their order, with everything derived. */
export function deriveArena(
  dataset: Dataset,
  entries: readonly MediaEntry[],
  family: MediaFamily,
  options: ArenaOptions,
): MediaView[] {
  const creators = new Map(dataset.creators.map((c) => [c.id, c]));
  const providers = new Map(dataset.providers.map((p) => [p.id, p]));
  const views = entries.map((entry): MediaView => {
    const providerViews = (entry.providers ?? [])
      .map((p) => ({
        provider: providers.get(p.provider_id)!,
        entry: p,
        werIndex: werIndex(WER_FIELDS.map((f) => p[f])),
      }))
      .sort((a, b) => compareByNameThenId(a.provider, b.provider));
    const wers = Object.fromEntries(
      WER_FIELDS.map((f) => [f, median(providerViews.map((p) => p.entry[f] ?? null))]),
    ) as Record<(typeof WER_FIELDS)[number], number | null>;
    for (const f of WER_FIELDS) if (wers[f] !== null) wers[f] = round(wers[f], WER_DECIMALS);
    return {
      entry,
      creator: creators.get(entry.creator_id)!,
      rank: null,
      tauVoice: best(providerViews.map((p) => p.entry.tau_voice_score)),
      wer: { ...wers, platform_wer_index: werIndex(WER_FIELDS.map((f) => wers[f])) },
      providers: providerViews,
    };
  });
  switch (family) {
    case 'image':
    case 'video': {
      const ranked = views.filter((v) => isEligible(v.entry, family, options)).sort(byEloThenName);
      ranked.forEach((v, i) => (v.rank = i + 1));
      return ranked;
    }
    case 'text-to-speech':
    case 'music':
      return views.sort(byEloThenName);
    case 'speech-to-speech':
      return views.sort(byScore((v) => v.tauVoice, -1));
    case 'speech-to-text':
      return views.sort(byScore((v) => v.wer.platform_wer_index, 1)); // lower error rate first
  }
}
