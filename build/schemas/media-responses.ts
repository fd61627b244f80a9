/**
 * Response schemas of the media arena routes: an entry's fields per family, Free and Pro. The
 * optional `categories` and `genres` of Pro entries are not required. Each entry is named as the
 * original service names it (`ImageArenaResult`, `ImageArenaResultFree`, ...).
 */
import {
  closed,
  fieldsOf,
  named,
  nullableBoolean,
  nullableDate,
  nullableNumber,
  nullableString,
  number,
  string,
  uuid,
  type Schema,
} from './json-schema.ts';
import type { MediaFamily } from './media.ts';

const scoreItem = closed({
  label: string,
  elo: { type: 'number' },
  ci_95: nullableNumber,
  samples: { type: 'integer', minimum: 0 },
});
const mediaCreator = named('ArenaModelCreator', closed({ id: uuid, name: string }));
const elo = number;
const WERS = ['platform_agenttalk', 'voxpopuli_cleaned_platform', 'earnings_22_cleaned_platform'];

/** The original's name of a family's entries: Pro, and Free with `Free` after it. */
const ENTRY_NAMES: Record<MediaFamily, string> = {
  image: 'ImageArenaResult',
  video: 'VideoArenaResult',
  'text-to-speech': 'TextToSpeechResult',
  'speech-to-speech': 'SpeechToSpeechResult',
  'speech-to-text': 'SpeechToTextModelResult',
  music: 'MusicArenaResult',
};

/** A Free key's entry of an arena of this family. */
export function freeMediaItem(family: MediaFamily): Schema {
  return named(`${ENTRY_NAMES[family]}Free`, closed(freeMediaFields(family)));
}

/** Free fields of a media entry, per family. */
function freeMediaFields(family: MediaFamily): Record<string, unknown> {
  const head = { id: uuid, name: string };
  switch (family) {
    case 'image':
    case 'video':
    case 'text-to-speech':
      return { ...head, slug: string, model_creator: mediaCreator, elo, ci_95: nullableNumber };
    case 'music':
      return { ...head, model_creator: mediaCreator, elo, ci_95: nullableNumber };
    case 'speech-to-speech':
      return {
        ...head,
        slug: string,
        model_creator: mediaCreator,
        bba_score: nullableNumber,
        fdb_score: nullableNumber,
        tau_voice_score: nullableNumber,
      };
    case 'speech-to-text':
      return { ...head, model_creator: mediaCreator, platform_wer_index: nullableNumber };
  }
}

/** A Pro key's entry of an arena of this family (the original calls the video one `VideoArenaResultPaid`). */
export function proMediaItem(family: MediaFamily): Schema {
  return named(family === 'video' ? 'VideoArenaResultPaid' : ENTRY_NAMES[family], proMediaFields(family));
}

/** Pro fields added to the Free ones; the optional `categories` / `genres` are not required. */
function proMediaFields(family: MediaFamily): Schema {
  const free = freeMediaFields(family);
  const required = Object.keys(free);
  switch (family) {
    case 'image':
    case 'video': {
      const price = family === 'image' ? 'price_per_1k_images' : 'price_per_minute';
      const fields = {
        ...free,
        rank: { type: 'integer', minimum: 1 },
        samples: { type: 'integer', minimum: 0 },
        release_date: nullableDate,
        [price]: nullableNumber,
        open_weights_url: nullableString,
      };
      return closed(
        { ...fields, categories: { type: 'array', items: named('ArenaCategory', scoreItem) } },
        Object.keys(fields),
      );
    }
    case 'text-to-speech':
      return closed({
        ...free,
        samples: { type: 'integer', minimum: 0 },
        release_date: nullableDate,
        price_per_1m_characters: nullableNumber,
      });
    case 'music':
      return closed(
        {
          ...free,
          samples: { type: 'integer', minimum: 0 },
          genres: { type: 'array', items: named('MusicGenre', scoreItem) },
        },
        [...required, 'samples'],
      );
    case 'speech-to-speech':
      return closed({
        ...free,
        providers: {
          type: 'array',
          items: named(
            'SpeechToSpeechProvider',
            closed({
              id: uuid,
              name: string,
              slug: string,
              price_per_hour_input: nullableNumber,
              price_per_hour_output: nullableNumber,
              time_to_first_audio_seconds: nullableNumber,
            }),
          ),
        },
      });
    case 'speech-to-text':
      return closed({
        ...free,
        ...fieldsOf(WERS, nullableNumber),
        open_weights: nullableBoolean,
        providers: {
          type: 'array',
          items: named(
            'SpeechToTextProvider',
            closed({
              id: uuid,
              name: string,
              slug: string,
              price_per_1k_minutes: nullableNumber,
              median_speed_factor: nullableNumber,
              platform_wer_index: nullableNumber,
              ...fieldsOf(WERS, nullableNumber),
            }),
          ),
        },
      });
  }
}
