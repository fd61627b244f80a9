/**
 * Synthetic media arena datasets for the sample: eleven arenas of fictional models with Elo
 * ratings, appearances, superseded versions and entries below the appearance threshold (so
 * the build's eligibility rule has something to exclude), per-category and per-genre Elo, and
 * per-provider speech data. Each arena draws from its own seeded stream.
 */
import { MEDIA_ARENAS } from '../../src/shared/routes.ts';
import type { CategoryScore, MediaEntry, MediaProviderEntry, ModelCreator } from '../../build/types.ts';
import { round } from '../../build/derive/stats.ts';
import type { MediaFamily } from '../../build/schemas/media.ts';
import { Rng } from './rng.ts';

const DAY_MS = 86_400_000;
/** Appearances a leaderboard entry needs by default (the build's `--min-samples`). */
const THRESHOLD = 500;

const MEDIA_CREATOR_WORDS = [
  'Prism',
  'Lumen',
  'Canvas',
  'Aurora',
  'Echo',
  'Vox',
  'Cadence',
  'Frame',
  'Pixelwood',
  'Tonal',
  'Reel',
  'Motif',
  'Sonora',
  'Vista',
  'Kiln',
  'Halo',
];
const MEDIA_CREATOR_SUFFIXES = ['Studio', 'Labs', 'Media', 'AI', 'Works'];

const STYLES = ['Photorealistic', 'Anime', 'Cartoon & Illustration', 'Fantasy', 'Graphic Design'];
const SUBJECTS = ['People: Portraits', 'Landscapes', 'Animals', 'Food', 'Text & Typography'];
const FORMATS = ['Short clip', 'Cinematic', 'Slow motion'];
const GENRES = ['Pop', 'Rock', 'Jazz', 'Electronic', 'Classical', 'Hip-hop', 'Ambient', 'Folk'];

const FAMILY_STEMS: Record<MediaFamily, string[]> = {
  image: ['Brush', 'Lens', 'Mural', 'Sketch', 'Palette', 'Glint'],
  video: ['Reel', 'Motion', 'Scene', 'Cine', 'Flicker', 'Drift'],
  'text-to-speech': ['Voice', 'Narrate', 'Speak', 'Timbre'],
  'speech-to-speech': ['Dialog', 'Duplex', 'Parley', 'Banter'],
  'speech-to-text': ['Scribe', 'Transcribe', 'Hear', 'Caption'],
  music: ['Tune', 'Chord', 'Groove', 'Verse'],
};

export interface MediaSample {
  /** Creators of media models not already among the language creators. */
  creators: ModelCreator[];
  /** Entries by arena (`music/instrumental`, ...). */
  arenas: Record<string, MediaEntry[]>;
}

export interface MediaOptions {
  seed: number;
  asOfMs: number;
  /** Entries per arena. */
  entries: number;
  /** Provider ids the speech arenas can name. */
  providerIds: readonly string[];
  /** Language creators that also make media models (a few of them are picked). */
  languageCreators: readonly ModelCreator[];
}

function mediaCreators(rng: Rng, count: number): ModelCreator[] {
  const words = rng.shuffle(MEDIA_CREATOR_WORDS);
  return Array.from({ length: count }, (_, i) => {
    const suffix = MEDIA_CREATOR_SUFFIXES[i % MEDIA_CREATOR_SUFFIXES.length];
    const number = i >= words.length ? ` ${Math.floor(i / words.length) + 1}` : '';
    const name = `${words[i % words.length]} ${suffix}${number}`;
    return {
      id: rng.uuid(),
      slug: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      name,
      country: rng.chance(0.1)
        ? null
        : rng.weighted([
            ['us', 8],
            ['cn', 3],
            ['fr', 2],
            ['gb', 2],
            ['de', 1],
            ['kr', 1],
            ['jp', 1],
          ] as const),
    };
  });
}

/** Elo in one category: the entry's own, shifted by the model's strength in that style. */
function categoryScores(
  rng: Rng,
  labels: readonly string[],
  entry: MediaEntry,
  kind?: CategoryScore['kind'],
): CategoryScore[] {
  return labels.map((label) => {
    const samples = Math.max(10, Math.round((entry.samples ?? 0) * rng.uniform(0.08, 0.3)));
    return {
      ...(kind ? { kind } : {}),
      label,
      elo: round((entry.elo ?? 1000) + rng.normal() * 35, 1),
      ci_95: round((1.96 * 180) / Math.sqrt(samples), 1),
      samples,
    };
  });
}

function speechProviders(rng: Rng, family: MediaFamily, providerIds: readonly string[]): MediaProviderEntry[] {
  const count =
    family === 'speech-to-text'
      ? rng.int(1, 4)
      : rng.weighted([
          [0, 2],
          [1, 3],
          [2, 3],
          [3, 2],
          [4, 1],
        ] as const);
  return rng
    .shuffle(providerIds)
    .slice(0, Math.min(count, providerIds.length))
    .map((provider_id) => {
      const maybe = (p: number, value: number) => (rng.chance(p) ? null : value);
      if (family === 'speech-to-speech') {
        return {
          provider_id,
          price_per_hour_input: round(rng.lognormal(1.2, 0.5), 3),
          price_per_hour_output: round(rng.lognormal(4, 0.5), 3),
          time_to_first_audio_seconds: round(rng.uniform(0.3, 2.5), 3),
          tau_voice_score: maybe(0.2, round(rng.uniform(0.2, 0.8), 4)),
        };
      }
      return {
        provider_id,
        price_per_1k_minutes: round(rng.uniform(1, 10), 3),
        median_speed_factor: round(rng.lognormal(80, 0.6), 1),
        platform_agenttalk: maybe(0.1, round(rng.uniform(0.04, 0.25), 4)),
        voxpopuli_cleaned_platform: maybe(0.1, round(rng.uniform(0.03, 0.18), 4)),
        earnings_22_cleaned_platform: maybe(0.1, round(rng.uniform(0.05, 0.22), 4)),
      };
    });
}

/** Fields of one entry that depend on its arena family. */
function familyFields(
  rng: Rng,
  family: MediaFamily,
  entry: MediaEntry,
  providerIds: readonly string[],
): Partial<MediaEntry> {
  const openUrl = () => (rng.chance(0.25) ? `https://weights-hub.example/${entry.slug}` : null);
  switch (family) {
    case 'image':
      return {
        first_party: rng.chance(0.8),
        price_per_1k_images: rng.chance(0.15) ? null : round(rng.lognormal(40, 0.6), 2),
        open_weights_url: openUrl(),
        categories: [
          ...categoryScores(rng, STYLES, entry, 'style'),
          ...categoryScores(rng, SUBJECTS, entry, 'subject_matter'),
        ],
      };
    case 'video':
      return {
        price_per_minute: rng.chance(0.15) ? null : round(rng.lognormal(3, 0.6), 3),
        open_weights_url: openUrl(),
        categories: [
          ...categoryScores(rng, STYLES, entry, 'style'),
          ...categoryScores(rng, SUBJECTS, entry, 'subject_matter'),
          ...categoryScores(rng, FORMATS, entry, 'format'),
        ],
      };
    case 'text-to-speech':
      return { price_per_1m_characters: rng.chance(0.1) ? null : round(rng.lognormal(15, 0.7), 2) };
    case 'music':
      return { genres: categoryScores(rng, rng.shuffle(GENRES).slice(0, rng.int(4, 7)), entry) };
    case 'speech-to-speech':
      return {
        bba_score: rng.chance(0.1) ? null : round(rng.uniform(0.3, 0.95), 4),
        fdb_score: rng.chance(0.2) ? null : round(rng.uniform(0.2, 0.9), 4),
        providers: speechProviders(rng, family, providerIds),
      };
    case 'speech-to-text':
      return {
        open_weights: rng.weighted([
          [true, 3],
          [false, 6],
          [null, 1],
        ] as const),
        providers: speechProviders(rng, family, providerIds),
      };
  }
}

const ELO_FAMILIES: readonly MediaFamily[] = ['image', 'video', 'text-to-speech', 'music'];

/**
 * One arena: model families of a few versions each; a newer version supersedes the one before
 * it (some of the time), newer versions rate higher, and appearances vary widely, so a share
 * of the entries sits below the threshold.
 */
function arenaEntries(
  arena: string,
  family: MediaFamily,
  options: MediaOptions,
  creators: readonly ModelCreator[],
): MediaEntry[] {
  const rng = new Rng(options.seed, `media/${arena}`);
  const slugs = new Set<string>();
  const entries: MediaEntry[] = [];
  const stems = FAMILY_STEMS[family];
  for (let f = 0; entries.length < options.entries; f++) {
    const creator = creators[rng.int(0, creators.length - 1)];
    const letter = f >= stems.length ? ` ${String.fromCharCode(65 + Math.floor(f / stems.length) - 1)}` : '';
    const stem = `${stems[f % stems.length]}${letter}`;
    const versions = Math.min(rng.int(1, 4), options.entries - entries.length);
    let released = options.asOfMs - rng.int(200, 900) * DAY_MS;
    let previous: MediaEntry | null = null;
    for (let v = 1; v <= versions; v++) {
      const name = `${creator.name.split(' ')[0]} ${stem} ${v}.${rng.int(0, 5)}`;
      let slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      for (let n = 2; slugs.has(slug); n++) slug = `${slug}-${n}`;
      slugs.add(slug);
      const age = (options.asOfMs - released) / (365 * DAY_MS);
      const entry: MediaEntry = {
        id: rng.uuid(),
        name,
        slug,
        creator_id: creator.id,
        release_date: rng.chance(0.08) ? null : new Date(released).toISOString().slice(0, 10),
      };
      if (ELO_FAMILIES.includes(family)) {
        // Below the threshold: brand new or niche entries, about one in six.
        const samples = rng.chance(0.17)
          ? rng.int(40, THRESHOLD - 1)
          : Math.round(rng.lognormal(2600, 0.7)) + THRESHOLD;
        Object.assign(entry, {
          elo: round(Math.min(1350, Math.max(900, 1180 - age * 90 + rng.normal() * 45)), 1),
          ci_95: rng.chance(0.05) ? null : round((1.96 * 180) / Math.sqrt(samples), 1),
          samples,
          superseded_by: null,
        });
      }
      Object.assign(entry, familyFields(rng, family, entry, options.providerIds));
      if (previous && ELO_FAMILIES.includes(family) && rng.chance(0.35)) previous.superseded_by = entry.id;
      entries.push(entry);
      previous = entry;
      released = Math.min(options.asOfMs, released + rng.int(60, 240) * DAY_MS);
    }
  }
  return entries;
}

export function generateMedia(options: MediaOptions): MediaSample {
  const rng = new Rng(options.seed, 'media/creators');
  const own = mediaCreators(rng, Math.max(4, Math.round(options.entries / 4)));
  const borrowed = rng.shuffle(options.languageCreators).slice(0, Math.min(6, options.languageCreators.length));
  const makers = [...own, ...borrowed];
  const arenas = Object.fromEntries(
    MEDIA_ARENAS.map(({ arena, family }) => [arena, arenaEntries(arena, family, options, makers)]),
  );
  return { creators: own, arenas };
}
