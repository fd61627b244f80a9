/**
 * Media arena shapes, per family and tier, exactly as the contract gives them. Free shapes omit
 * every Pro field; `categories` and `genres` appear only when asked for (Pro and Commercial).
 */
import type { MediaView } from '../derive/media.ts';
import { WER_FIELDS } from '../derive/media.ts';
import type { MediaFamily } from '../schemas/media.ts';
import type { CategoryScore } from '../types.ts';

/** A category or genre item: the original service's shape (the kind is legacy-only). */
function scoreItem({ label, elo, ci_95, samples }: CategoryScore) {
  return { label, elo, ci_95, samples };
}

function creatorOf(view: MediaView) {
  return { id: view.creator.id, name: view.creator.name };
}

export function freeMediaEntry(view: MediaView, family: MediaFamily): Record<string, unknown> {
  const { entry } = view;
  const head = { id: entry.id, name: entry.name };
  switch (family) {
    case 'image':
    case 'video':
    case 'text-to-speech':
      return { ...head, slug: entry.slug, model_creator: creatorOf(view), elo: entry.elo, ci_95: entry.ci_95 ?? null };
    case 'music':
      return { ...head, model_creator: creatorOf(view), elo: entry.elo, ci_95: entry.ci_95 ?? null };
    case 'speech-to-speech':
      return {
        ...head,
        slug: entry.slug,
        model_creator: creatorOf(view),
        bba_score: entry.bba_score ?? null,
        fdb_score: entry.fdb_score ?? null,
        tau_voice_score: view.tauVoice,
      };
    case 'speech-to-text':
      return { ...head, model_creator: creatorOf(view), platform_wer_index: view.wer.platform_wer_index };
  }
}

/** The Pro shape; `expand` is the include_categories / include_genres flag. */
export function proMediaEntry(view: MediaView, family: MediaFamily, expand: boolean): Record<string, unknown> {
  const { entry } = view;
  const free = freeMediaEntry(view, family);
  switch (family) {
    case 'image':
    case 'video': {
      const price =
        family === 'image'
          ? { price_per_1k_images: entry.price_per_1k_images ?? null }
          : { price_per_minute: entry.price_per_minute ?? null };
      const out: Record<string, unknown> = {
        ...free,
        rank: view.rank,
        samples: entry.samples,
        release_date: entry.release_date,
        ...price,
        open_weights_url: entry.open_weights_url ?? null,
      };
      if (expand) out.categories = (entry.categories ?? []).map(scoreItem);
      return out;
    }
    case 'text-to-speech':
      return {
        ...free,
        samples: entry.samples,
        release_date: entry.release_date,
        price_per_1m_characters: entry.price_per_1m_characters ?? null,
      };
    case 'music': {
      const out: Record<string, unknown> = { ...free, samples: entry.samples };
      if (expand) out.genres = (entry.genres ?? []).map(scoreItem);
      return out;
    }
    case 'speech-to-speech':
      return {
        ...free,
        providers: view.providers.map(({ provider, entry: p }) => ({
          id: provider.id,
          name: provider.name,
          slug: provider.slug,
          price_per_hour_input: p.price_per_hour_input ?? null,
          price_per_hour_output: p.price_per_hour_output ?? null,
          time_to_first_audio_seconds: p.time_to_first_audio_seconds ?? null,
        })),
      };
    case 'speech-to-text':
      return {
        ...free,
        ...Object.fromEntries(WER_FIELDS.map((f) => [f, view.wer[f]])),
        open_weights: entry.open_weights ?? null,
        providers: view.providers.map(({ provider, entry: p, werIndex }) => ({
          id: provider.id,
          name: provider.name,
          slug: provider.slug,
          price_per_1k_minutes: p.price_per_1k_minutes ?? null,
          median_speed_factor: p.median_speed_factor ?? null,
          platform_wer_index: werIndex,
          ...Object.fromEntries(WER_FIELDS.map((f) => [f, p[f] ?? null])),
        })),
      };
  }
}
