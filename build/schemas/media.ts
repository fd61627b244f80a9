/**
 * JSON Schemas (2020-12) of the media arena datasets: one file per arena in `data/media/`.
 * What the build computes (rank, eligibility, the speech-to-text WER index, a speech-to-speech
 * model's best tau-voice score) is not in the data.
 */
import { MEDIA_ARENAS } from '../../src/shared/routes.ts';
import { name, nullableDate, slug, uuid } from './datasets.ts';

const SCHEMA = 'https://json-schema.org/draft/2020-12/schema';

export type MediaFamily = (typeof MEDIA_ARENAS)[number]['family'];

/** File name of an arena's dataset: `music/instrumental` -> `media/music-instrumental.json`. */
export function mediaFile(arena: string): string {
  return `media/${arena.replace('/', '-')}.json`;
}

function closed(properties: Record<string, object>, required = Object.keys(properties)) {
  return { type: 'object', additionalProperties: false, required, properties };
}

const nullableNumber = (minimum = 0) => ({ type: ['number', 'null'], minimum });
const elo = { type: 'number', minimum: 0, maximum: 5000 };
/** Half-width of the 95% confidence interval, in Elo points. */
const ci95 = { type: ['number', 'null'], minimum: 0 };
const samples = { type: 'integer', minimum: 0 };
const url = { type: ['string', 'null'], format: 'uri' };
/** A word error rate, as a fraction (0.05 = 5% of words wrong). */
const wer = { type: ['number', 'null'], minimum: 0, maximum: 1 };

/** Elo within one category (image, video) or genre (music), as the original service gives it. */
const categoryScore = (withKind: boolean) =>
  closed({
    ...(withKind ? { kind: { enum: ['style', 'subject_matter', 'format'] } } : {}),
    label: { type: 'string', minLength: 1 },
    elo,
    ci_95: ci95,
    samples,
  });

const identity = { id: uuid, name, slug, creator_id: uuid, release_date: nullableDate };

/** Fields of an Elo arena entry shared by every arena family that has a leaderboard. */
const arenaEntry = {
  ...identity,
  elo,
  ci_95: ci95,
  samples,
  /** The newer version of the same model that replaces this one on the leaderboard. */
  superseded_by: { type: ['string', 'null'], format: 'uuid' },
};

function entrySchema(family: MediaFamily): object {
  switch (family) {
    case 'image':
      return closed({
        ...arenaEntry,
        first_party: { type: 'boolean' },
        price_per_1k_images: nullableNumber(),
        open_weights_url: url,
        categories: { type: 'array', items: categoryScore(true) },
      });
    case 'video':
      return closed({
        ...arenaEntry,
        price_per_minute: nullableNumber(),
        open_weights_url: url,
        categories: { type: 'array', items: categoryScore(true) },
      });
    case 'text-to-speech':
      return closed({ ...arenaEntry, price_per_1m_characters: nullableNumber() });
    case 'music':
      return closed({ ...arenaEntry, genres: { type: 'array', items: categoryScore(false) } });
    case 'speech-to-speech':
      return closed({
        ...identity,
        bba_score: { type: ['number', 'null'], minimum: 0, maximum: 1 },
        fdb_score: { type: ['number', 'null'], minimum: 0, maximum: 1 },
        providers: {
          type: 'array',
          items: closed({
            provider_id: uuid,
            price_per_hour_input: nullableNumber(),
            price_per_hour_output: nullableNumber(),
            time_to_first_audio_seconds: nullableNumber(),
            tau_voice_score: { type: ['number', 'null'], minimum: 0, maximum: 1 },
          }),
        },
      });
    case 'speech-to-text':
      return closed({
        ...identity,
        open_weights: { type: ['boolean', 'null'] },
        providers: {
          type: 'array',
          items: closed({
            provider_id: uuid,
            price_per_1k_minutes: nullableNumber(),
            median_speed_factor: nullableNumber(),
            platform_agenttalk: wer,
            voxpopuli_cleaned_platform: wer,
            earnings_22_cleaned_platform: wer,
          }),
        },
      });
  }
}

export function mediaSchema(arena: string, family: MediaFamily): object {
  return {
    $schema: SCHEMA,
    $id: `media-${arena.replace('/', '-')}`,
    title: `${arena} arena`,
    type: 'array',
    items: entrySchema(family),
  };
}
