/**
 * The legacy `/api/v2/data` shapes, for clients written against the older interface: the
 * language list with the older evaluation names and a flat performance block, and arena
 * leaderboards with `ci95` as text and per-category scores named by their kind.
 */
import type { PromptType } from '../../src/shared/routes.ts';
import type { ModelView } from '../derive/language.ts';
import { modelIdentity } from './language.ts';
import type { MediaView } from '../derive/media.ts';
import type { CategoryScore } from '../types.ts';
import { round } from '../derive/stats.ts';
import { LEGACY_ROUTE_EVALUATIONS, MATH_INDEX } from '../fields.ts';

export function legacyLanguageModel(view: ModelView, promptType: PromptType): Record<string, unknown> {
  const { model, creator } = view;
  const performance = view.performance[promptType];
  const scores: Record<string, number | null | undefined> = {
    ...model.evaluations,
    ...view.evaluations,
    [MATH_INDEX]: view.mathIndex,
  };
  return {
    ...modelIdentity(view),
    model_creator: { id: creator.id, name: creator.name, slug: creator.slug },
    evaluations: Object.fromEntries(LEGACY_ROUTE_EVALUATIONS.map(([name, source]) => [name, scores[source] ?? null])),
    pricing: {
      price_1m_blended_3_to_1: view.pricing.price_1m_blended_3_to_1,
      price_1m_input_tokens: view.pricing.price_1m_input_tokens,
      price_1m_output_tokens: view.pricing.price_1m_output_tokens,
    },
    median_output_tokens_per_second: performance.median_output_tokens_per_second ?? null,
    median_time_to_first_token_seconds: performance.median_time_to_first_token_seconds ?? null,
    median_time_to_first_answer_token: performance.median_time_to_first_answer_token_seconds ?? null,
  };
}

/** The legacy confidence interval: the half-width as text, `-N/+N` (whole Elo points). */
export function legacyCi95(halfWidth: number | null | undefined): string | null {
  if (halfWidth === null || halfWidth === undefined) return null;
  const n = round(halfWidth, 0);
  return `-${n}/+${n}`;
}

function legacyCategory(score: CategoryScore, video: boolean): Record<string, unknown> {
  const named = (kind: CategoryScore['kind']) => (score.kind === kind ? score.label : null);
  return {
    style_category: named('style'),
    subject_matter_category: named('subject_matter'),
    ...(video ? { format_category: named('format') } : {}),
    elo: score.elo,
    ci95: legacyCi95(score.ci_95),
    appearances: score.samples,
  };
}

/** A legacy arena item; `rank` is the entry's place on the leaderboard. */
export function legacyArenaEntry(
  view: MediaView,
  rank: number,
  video: boolean,
  withCategories: boolean,
): Record<string, unknown> {
  const { entry, creator } = view;
  const item: Record<string, unknown> = {
    id: entry.id,
    name: entry.name,
    slug: entry.slug,
    model_creator: { id: creator.id, name: creator.name, slug: creator.slug },
    elo: entry.elo,
    rank,
    ci95: legacyCi95(entry.ci_95),
    appearances: entry.samples,
    release_date: entry.release_date,
  };
  if (withCategories) item.categories = (entry.categories ?? []).map((c) => legacyCategory(c, video));
  return item;
}
