/** Model creators: names, countries, weights policy and how many models each releases. */
import { Rng } from './rng.ts';
import type { ModelCreator } from '../../build/types.ts';
import type { SampleOptions } from './options.ts';
import {
  CREATOR_COUNTRIES,
  CREATOR_SUFFIXES,
  CREATOR_WORDS,
  UNKNOWN_COUNTRY,
  companyNames,
  slugMaker,
} from './world.ts';

export type WeightsPolicy = 'open' | 'closed' | 'mixed';

export interface CreatorDraft {
  record: ModelCreator;
  /** Added to every model's capability: frontier labs sit above small shops. */
  skill: number;
  policy: WeightsPolicy;
  /** Pulls in more third-party providers for the creator's open models. */
  popularity: number;
  /** Whether this creator publishes training data (scores high on the openness data components). */
  openData: boolean;
  modelCount: number;
}

/**
 * Model counts per creator: a Zipf-like share (a few labs release most models), at least one
 * each while there are enough models to go round.
 */
export function modelCounts(creators: number, models: number): number[] {
  const weights = Array.from({ length: creators }, (_, i) => 1 / (i + 1) ** 0.9);
  const total = weights.reduce((a, b) => a + b, 0);
  const floor = models >= creators ? 1 : 0;
  const spare = models - floor * creators;
  const counts = weights.map((w) => floor + Math.floor((spare * w) / total));
  for (let i = 0, left = models - counts.reduce((a, b) => a + b, 0); left > 0; i = (i + 1) % creators, left--)
    counts[i]++;
  return counts;
}

export function generateCreators(options: SampleOptions): CreatorDraft[] {
  const rng = new Rng(options.seed, 'creators');
  const slugFor = slugMaker();
  const names = companyNames(options.creators, CREATOR_WORDS, CREATOR_SUFFIXES, rng);
  const counts = modelCounts(options.creators, options.models);
  const drafts = names.map((name, rank): CreatorDraft => {
    const frontier = rank < Math.max(1, Math.round(options.creators * 0.12));
    const policy = rng.weighted<WeightsPolicy>(
      frontier
        ? [
            ['closed', 6],
            ['mixed', 3],
            ['open', 2],
          ]
        : [
            ['open', 5],
            ['closed', 2],
            ['mixed', 3],
          ],
    );
    return {
      record: {
        id: rng.uuid(),
        slug: slugFor(name),
        name,
        country: rng.chance(UNKNOWN_COUNTRY) ? null : rng.weighted(CREATOR_COUNTRIES),
      },
      skill: rng.normal() * 0.35 + (frontier ? 0.6 : -0.1),
      policy,
      popularity: rng.lognormal(frontier ? 1.6 : 1, 0.35),
      openData: policy === 'open' && rng.chance(0.2),
      modelCount: counts[rank],
    };
  });
  return drafts.sort((a, b) => (a.record.name < b.record.name ? -1 : 1));
}
