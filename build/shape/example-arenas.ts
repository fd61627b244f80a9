/**
 * The example dataset's media arena entries: two an arena, the second a step behind, each with
 * the fields of its family, named "Example ... Model".
 */
import type { MediaFamily } from '../schemas/media.ts';
import type { CategoryScore, MediaEntry } from '../types.ts';
import { EXAMPLE_CREATOR, EXAMPLE_PROVIDER, exampleId } from './example-parties.ts';

/** The arena entries' family-specific fields, by family; two entries an arena, the second a step behind. */
function arenaFields(family: MediaFamily, second: boolean): Partial<MediaEntry> {
  const elo = second ? 1100 : 1200;
  const rated = { elo, ci_95: second ? 10 : 5, samples: second ? 5000 : 10_000 };
  const score = (label: string, kind?: CategoryScore['kind']): CategoryScore => ({
    ...(kind ? { kind } : {}),
    label,
    elo: elo + 10,
    ci_95: 20,
    samples: 1000,
  });
  switch (family) {
    case 'image':
      return {
        ...rated,
        superseded_by: null,
        first_party: true,
        price_per_1k_images: second ? 20 : 40,
        open_weights_url: null,
        categories: [score('Example Style', 'style'), score('Example Subject', 'subject_matter')],
      };
    case 'video':
      return {
        ...rated,
        superseded_by: null,
        price_per_minute: second ? 3 : 6,
        open_weights_url: null,
        categories: [
          score('Example Style', 'style'),
          score('Example Subject', 'subject_matter'),
          score('Example Format', 'format'),
        ],
      };
    case 'text-to-speech':
      return { ...rated, superseded_by: null, price_per_1m_characters: second ? 10 : 20 };
    case 'music':
      return { ...rated, superseded_by: null, genres: [score('Example Genre')] };
    case 'speech-to-speech':
      return {
        bba_score: second ? 0.6 : 0.8,
        fdb_score: second ? 0.5 : 0.7,
        providers: [
          {
            provider_id: EXAMPLE_PROVIDER.id,
            price_per_hour_input: 1,
            price_per_hour_output: 4,
            time_to_first_audio_seconds: second ? 0.8 : 0.5,
            tau_voice_score: second ? 0.4 : 0.6,
          },
        ],
      };
    case 'speech-to-text':
      return {
        open_weights: second,
        providers: [
          {
            provider_id: EXAMPLE_PROVIDER.id,
            price_per_1k_minutes: second ? 3 : 6,
            median_speed_factor: second ? 100 : 50,
            platform_agenttalk: second ? 0.1 : 0.05,
            voxpopuli_cleaned_platform: 0.1,
            earnings_22_cleaned_platform: second ? 0.1 : 0.15,
          },
        ],
      };
  }
}

const FAMILY_NAMES: Record<MediaFamily, string> = {
  image: 'Image',
  video: 'Video',
  'text-to-speech': 'Voice',
  'speech-to-speech': 'Speech',
  'speech-to-text': 'Transcription',
  music: 'Music',
};

/** Two entries for an arena of the given family. */
export function exampleArena(family: MediaFamily, firstId: number): MediaEntry[] {
  const name = `Example ${FAMILY_NAMES[family]} Model`;
  return [false, true].map((second, i) => ({
    id: exampleId(firstId + i),
    name: second ? `${name} Mini` : name,
    slug: `${name.toLowerCase().replaceAll(' ', '-')}${second ? '-mini' : ''}`,
    creator_id: EXAMPLE_CREATOR.id,
    release_date: second ? '2025-03-01' : '2025-01-01',
    ...arenaFields(family, second),
  }));
}
