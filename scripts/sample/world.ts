/** The synthetic world's small helpers and its invented vocabulary (names, words, countries). */
import { Rng } from './rng.ts';

export const DAY_MS = 86_400_000;
export const YEAR_MS = 365.25 * DAY_MS;
/** Release dates start here; the capability trend is measured from it. */
export const EPOCH_MS = Date.UTC(2023, 0, 1);

export function dayMs(date: string): number {
  return Date.parse(`${date}T00:00:00.000Z`);
}

export { isoDay } from '../../src/shared/dates.ts';

export function clamp(value: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, value));
}

/** Two significant digits, the way list prices are quoted (0.15, 1.2, 12). */
export function price(value: number): number {
  return Number(value.toPrecision(2));
}

export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

export function slugify(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Slugs unique within one dataset: a clash gets `-2`, `-3`...; reserved words count as taken. */
export function slugMaker(reserved: readonly string[] = []): (name: string) => string {
  const taken = new Set(reserved);
  return (name) => {
    const base = slugify(name);
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
    taken.add(slug);
    return slug;
  };
}

/**
 * `count` distinct names `Word Suffix`: every word once before any word repeats with another
 * suffix, so the default sample reads as distinct companies; numbered past the combinations.
 */
export function companyNames(count: number, words: readonly string[], suffixes: readonly string[], rng: Rng): string[] {
  const names: string[] = [];
  const order = rng.shuffle(words);
  const suffixOf = new Map(order.map((w) => [w, rng.shuffle(suffixes)]));
  for (let pass = 0; names.length < count; pass++) {
    for (const word of order) {
      if (names.length === count) break;
      const suffix = suffixOf.get(word)![pass % suffixes.length];
      names.push(
        pass < suffixes.length ? `${word} ${suffix}` : `${word} ${suffix} ${Math.floor(pass / suffixes.length) + 1}`,
      );
    }
  }
  return names;
}

export const SYLLABLES = [
  'ka',
  'lo',
  'ri',
  'ven',
  'sa',
  'tor',
  'mi',
  'dra',
  'el',
  'quo',
  'or',
  'zan',
  'thi',
  'bel',
  'mar',
  'nyx',
  'ost',
  'ru',
  'syl',
  'va',
];

/** Invented model family names, each used once: the word list first, then pronounceable syllables. */
export function familyNamer(rng: Rng): () => string {
  const words = rng.shuffle(FAMILY_WORDS);
  const seen = new Set<string>();
  const syllableName = () => {
    const word = Array.from({ length: rng.int(2, 3) }, () => rng.pick(SYLLABLES)).join('');
    return word[0].toUpperCase() + word.slice(1);
  };
  return () => {
    let name = words.shift() ?? syllableName();
    while (seen.has(name)) name = syllableName();
    seen.add(name);
    return name;
  };
}

export const CREATOR_WORDS = [
  'Northwind',
  'Halcyon',
  'Bluefin',
  'Copperleaf',
  'Driftwood',
  'Everpine',
  'Foxglove',
  'Gullwing',
  'Hollowell',
  'Ironbark',
  'Kelpie',
  'Lanternfish',
  'Moraine',
  'Nettlebrook',
  'Oakhaven',
  'Pinecrest',
  'Quartzline',
  'Redshank',
  'Saltmarsh',
  'Thistledown',
  'Upwell',
  'Veldt',
  'Westerly',
  'Yellowfin',
  'Zinnia',
  'Amberfield',
  'Brightwater',
  'Cloudberry',
  'Dovetail',
  'Eastmere',
  'Fernleaf',
  'Glasswing',
  'Heronsgate',
  'Inkwell',
  'Jetstream',
  'Lodestar',
  'Marigold',
  'Nightjar',
  'Oxbow',
  'Pinewarden',
  'Quillon',
  'Rosewood',
  'Tamarack',
  'Underhill',
  'Vireo',
  'Wildacre',
  'Ashgrove',
  'Cormorant',
  'Eiderdown',
  'Firethorn',
  'Goldcrest',
  'Lacewing',
  'Nuthatch',
  'Sandpiper',
  'Whinchat',
  'Wagtail',
  'Bittern',
  'Larkspur',
  'Bayleaf',
  'Cedarline',
];
export const CREATOR_SUFFIXES = [
  'Labs',
  'AI',
  'Research',
  'Intelligence',
  'Systems',
  'Collective',
  'Foundation',
  'Technologies',
  'Institute',
  'Works',
];

export const FAMILY_WORDS = [
  'Aster',
  'Cinder',
  'Fathom',
  'Glint',
  'Iolite',
  'Kestrel',
  'Lumen',
  'Marlin',
  'Nimbus',
  'Onyx',
  'Pyxis',
  'Rook',
  'Sable',
  'Tundra',
  'Umbra',
  'Vesper',
  'Wren',
  'Yarrow',
  'Zephyr',
  'Alder',
  'Brio',
  'Cairn',
  'Dapple',
  'Eddy',
  'Flint',
  'Garnet',
  'Ingot',
  'Kite',
  'Loam',
  'Mica',
  'Nectar',
  'Petrel',
  'Rill',
  'Sorrel',
  'Thorn',
  'Ursa',
  'Vale',
  'Willow',
  'Yew',
  'Zircon',
  'Arbor',
  'Cobble',
  'Elm',
  'Fable',
  'Gale',
  'Heath',
  'Jetty',
  'Knoll',
  'Lark',
  'Moss',
  'Orchid',
  'Pebble',
  'Quince',
  'Reed',
  'Spruce',
  'Tern',
  'Verge',
  'Wisp',
  'Auric',
  'Beryl',
  'Calyx',
  'Dusk',
  'Fjall',
  'Gossamer',
  'Indigo',
  'Lyric',
  'Ochre',
  'Prism',
  'Ripple',
  'Tessel',
  'Umber',
  'Velvet',
  'Yonder',
  'Zenna',
  'Basalt',
  'Corvid',
  'Dune',
  'Ember',
  'Harrow',
  'Juno',
];

export const PROVIDER_WORDS = [
  'Cobalt',
  'Fjord',
  'Cirrus',
  'Larch',
  'Tessera',
  'Quarry',
  'Kiln',
  'Beacon',
  'Lattice',
  'Pylon',
  'Riverbed',
  'Sundial',
  'Tidewater',
  'Vantage',
  'Wharfside',
  'Zenith',
  'Anvil',
  'Bellows',
  'Caldera',
  'Forge',
  'Gantry',
  'Isobar',
  'Keel',
  'Mainsail',
  'Nacelle',
  'Outrigger',
  'Piston',
  'Rampart',
  'Spindle',
  'Trellis',
  'Updraft',
  'Viaduct',
  'Windlass',
  'Yardarm',
  'Aqueduct',
  'Bastion',
  'Capstan',
  'Dynamo',
  'Flywheel',
  'Girder',
  'Hangar',
  'Jetway',
  'Lighthouse',
  'Monsoon',
  'Parapet',
  'Stratus',
];
export const PROVIDER_SUFFIXES = ['Cloud', 'Inference', 'Compute', 'AI', 'Hosting', 'Serve', 'Run', 'Grid', 'Stack'];

export const CREATOR_COUNTRIES: [string, number][] = [
  ['us', 40],
  ['cn', 16],
  ['fr', 6],
  ['gb', 6],
  ['de', 5],
  ['ca', 4],
  ['kr', 4],
  ['jp', 4],
  ['il', 3],
  ['in', 3],
  ['ae', 2],
  ['sg', 2],
  ['ch', 2],
  ['se', 1],
  ['nl', 1],
];
export const PROVIDER_COUNTRIES: [string, number][] = [
  ['us', 50],
  ['de', 6],
  ['fr', 6],
  ['gb', 6],
  ['cn', 6],
  ['sg', 4],
  ['ca', 4],
  ['nl', 3],
  ['se', 3],
  ['jp', 3],
  ['fi', 2],
  ['in', 2],
];
/** Share of creators and providers whose country is unknown. */
export const UNKNOWN_COUNTRY = 0.1;
