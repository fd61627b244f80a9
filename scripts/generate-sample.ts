/**
 * `npm run generate:sample -- [--out DIR] [--seed N] [--as-of YYYY-MM-DD] [--scale F]
 *  [--models N] [--creators N] [--providers N] [--arena-entries N]`
 *
 * Writes a SYNTHETIC dataset in the formats of `build/schemas/datasets.ts`: fictional creators,
 * models, providers, endpoints and 90 days of raw measurements ending at the as-of date. Every
 * value comes from a seeded PRNG, so the same seed and options give byte-identical files; with
 * no flags it reproduces the committed `data/` sample. `data/README.md` explains the fields.
 */
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { round } from '../build/derive/stats.ts';
import { DATASET_FILES } from '../build/load.ts';
import { MODALITIES, OMNISCIENCE_DOMAINS, OPENNESS_COMPONENTS, RAW_EVALUATIONS, type RawEvaluation, type TokenCountEvaluation } from '../build/fields.ts';
import { MEDIA_DIR } from '../build/load-media.ts';
import { mediaFile } from '../build/schemas/media.ts';
import { generateMedia } from './sample/media.ts';
import { Rng } from './sample/rng.ts';
import type { LanguageModel, MeasurementRecord, MeasurementsFile, ModelCreator, OmniscienceScores, Provider, ProviderEndpoint, TokenCounts } from '../build/types.ts';
import { isCalendarDate } from '../src/shared/ajv.ts';
import { PROMPT_TYPES, type PromptType } from '../src/shared/routes.ts';

// ---------------------------------------------------------------------------------------------
// Options

export interface SampleOptions {
  out: string;
  seed: number;
  /** Last day of the measurements (`YYYY-MM-DD`, UTC); nothing is dated after it. */
  asOf: string;
  models: number;
  creators: number;
  providers: number;
  /** Entries per media arena. */
  arenaEntries: number;
}

/** Counts at `--scale 1`, the committed sample. Endpoints follow from models and providers. */
const BASE_COUNTS = { models: 320, creators: 45, providers: 45, arenaEntries: 52 } as const;
export const DEFAULT_OPTIONS: SampleOptions = { out: 'data', seed: 20261120, asOf: '2026-11-20', ...BASE_COUNTS };

const USAGE =
  'usage: npm run generate:sample -- [--out DIR] [--seed N] [--as-of YYYY-MM-DD] [--scale F] [--models N] [--creators N] [--providers N] [--arena-entries N]';

export class UsageError extends Error {}
/** `--help`: not an error, but parsing stops there. */
class HelpRequested extends Error {}

function countFlag(name: string, text: string | undefined, scaled: number, min: number): number {
  if (text === undefined) return scaled;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new UsageError(`--${name} must be an integer of at least ${min}, got ${JSON.stringify(text)}`);
  return value;
}

export function parseSampleArgs(argv: string[]): SampleOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        out: { type: 'string' },
        seed: { type: 'string' },
        'as-of': { type: 'string' },
        scale: { type: 'string' },
        models: { type: 'string' },
        creators: { type: 'string' },
        providers: { type: 'string' },
        'arena-entries': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) throw new HelpRequested();
  const scale = values.scale === undefined ? 1 : Number(values.scale);
  if (!(scale > 0) || !Number.isFinite(scale)) throw new UsageError(`--scale must be a positive number, got ${JSON.stringify(values.scale)}`);
  const seed = values.seed === undefined ? DEFAULT_OPTIONS.seed : Number(values.seed);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new UsageError(`--seed must be a non-negative integer, got ${JSON.stringify(values.seed)}`);
  const asOf = values['as-of'] ?? DEFAULT_OPTIONS.asOf;
  if (!isCalendarDate(asOf)) throw new UsageError(`--as-of must be a date YYYY-MM-DD, got ${JSON.stringify(asOf)}`);
  const scaled = (base: number) => Math.max(1, Math.round(base * scale));
  return {
    out: values.out ?? DEFAULT_OPTIONS.out,
    seed,
    asOf,
    models: countFlag('models', values.models, scaled(BASE_COUNTS.models), 0),
    creators: countFlag('creators', values.creators, scaled(BASE_COUNTS.creators), 1),
    providers: countFlag('providers', values.providers, scaled(BASE_COUNTS.providers), 0),
    arenaEntries: countFlag('arena-entries', values['arena-entries'], scaled(BASE_COUNTS.arenaEntries), 1),
  };
}

// ---------------------------------------------------------------------------------------------
// Seeded randomness

// ---------------------------------------------------------------------------------------------
// Small helpers

const DAY_MS = 86_400_000;
const YEAR_MS = 365.25 * DAY_MS;
/** Release dates start here; the capability trend is measured from it. */
const EPOCH_MS = Date.UTC(2023, 0, 1);

function dayMs(date: string): number {
  return Date.parse(`${date}T00:00:00.000Z`);
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function clamp(value: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, value));
}

/** Two significant digits, the way list prices are quoted (0.15, 1.2, 12). */
function price(value: number): number {
  return Number(value.toPrecision(2));
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

function slugify(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Slugs unique within one dataset: a clash gets `-2`, `-3`...; reserved words count as taken. */
function slugMaker(reserved: readonly string[] = []): (name: string) => string {
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
function companyNames(count: number, words: readonly string[], suffixes: readonly string[], rng: Rng): string[] {
  const names: string[] = [];
  const order = rng.shuffle(words);
  const suffixOf = new Map(order.map((w) => [w, rng.shuffle(suffixes)]));
  for (let pass = 0; names.length < count; pass++) {
    for (const word of order) {
      if (names.length === count) break;
      const suffix = suffixOf.get(word)![pass % suffixes.length];
      names.push(pass < suffixes.length ? `${word} ${suffix}` : `${word} ${suffix} ${Math.floor(pass / suffixes.length) + 1}`);
    }
  }
  return names;
}

const SYLLABLES = ['ka', 'lo', 'ri', 'ven', 'sa', 'tor', 'mi', 'dra', 'el', 'quo', 'or', 'zan', 'thi', 'bel', 'mar', 'nyx', 'ost', 'ru', 'syl', 'va'];

/** Invented model family names, each used once: the word list first, then pronounceable syllables. */
function familyNamer(rng: Rng): () => string {
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

// ---------------------------------------------------------------------------------------------
// Vocabulary of the synthetic world (all invented)

const CREATOR_WORDS = [
  'Northwind', 'Halcyon', 'Bluefin', 'Copperleaf', 'Driftwood', 'Everpine', 'Foxglove', 'Gullwing', 'Hollowell', 'Ironbark',
  'Kelpie', 'Lanternfish', 'Moraine', 'Nettlebrook', 'Oakhaven', 'Pinecrest', 'Quartzline', 'Redshank', 'Saltmarsh', 'Thistledown',
  'Upwell', 'Veldt', 'Westerly', 'Yellowfin', 'Zinnia', 'Amberfield', 'Brightwater', 'Cloudberry', 'Dovetail', 'Eastmere',
  'Fernleaf', 'Glasswing', 'Heronsgate', 'Inkwell', 'Jetstream', 'Lodestar', 'Marigold', 'Nightjar', 'Oxbow', 'Pinewarden',
  'Quillon', 'Rosewood', 'Tamarack', 'Underhill', 'Vireo', 'Wildacre', 'Ashgrove', 'Cormorant', 'Eiderdown', 'Firethorn',
  'Goldcrest', 'Lacewing', 'Nuthatch', 'Sandpiper', 'Whinchat', 'Wagtail', 'Bittern', 'Larkspur', 'Bayleaf', 'Cedarline',
];
const CREATOR_SUFFIXES = ['Labs', 'AI', 'Research', 'Intelligence', 'Systems', 'Collective', 'Foundation', 'Technologies', 'Institute', 'Works'];

const FAMILY_WORDS = [
  'Aster', 'Cinder', 'Fathom', 'Glint', 'Iolite', 'Kestrel', 'Lumen', 'Marlin', 'Nimbus', 'Onyx', 'Pyxis', 'Rook', 'Sable',
  'Tundra', 'Umbra', 'Vesper', 'Wren', 'Yarrow', 'Zephyr', 'Alder', 'Brio', 'Cairn', 'Dapple', 'Eddy', 'Flint', 'Garnet',
  'Ingot', 'Kite', 'Loam', 'Mica', 'Nectar', 'Petrel', 'Rill', 'Sorrel', 'Thorn', 'Ursa', 'Vale', 'Willow', 'Yew', 'Zircon',
  'Arbor', 'Cobble', 'Elm', 'Fable', 'Gale', 'Heath', 'Jetty', 'Knoll', 'Lark', 'Moss', 'Orchid', 'Pebble', 'Quince', 'Reed',
  'Spruce', 'Tern', 'Verge', 'Wisp', 'Auric', 'Beryl', 'Calyx', 'Dusk', 'Fjall', 'Gossamer', 'Indigo', 'Lyric', 'Ochre',
  'Prism', 'Ripple', 'Tessel', 'Umber', 'Velvet', 'Yonder', 'Zenna', 'Basalt', 'Corvid', 'Dune', 'Ember', 'Harrow', 'Juno',
];

const PROVIDER_WORDS = [
  'Cobalt', 'Fjord', 'Cirrus', 'Larch', 'Tessera', 'Quarry', 'Kiln', 'Beacon', 'Lattice', 'Pylon', 'Riverbed', 'Sundial',
  'Tidewater', 'Vantage', 'Wharfside', 'Zenith', 'Anvil', 'Bellows', 'Caldera', 'Forge', 'Gantry', 'Isobar', 'Keel', 'Mainsail',
  'Nacelle', 'Outrigger', 'Piston', 'Rampart', 'Spindle', 'Trellis', 'Updraft', 'Viaduct', 'Windlass', 'Yardarm', 'Aqueduct',
  'Bastion', 'Capstan', 'Dynamo', 'Flywheel', 'Girder', 'Hangar', 'Jetway', 'Lighthouse', 'Monsoon', 'Parapet', 'Stratus',
];
const PROVIDER_SUFFIXES = ['Cloud', 'Inference', 'Compute', 'AI', 'Hosting', 'Serve', 'Run', 'Grid', 'Stack'];

const CREATOR_COUNTRIES: [string, number][] = [
  ['us', 40], ['cn', 16], ['fr', 6], ['gb', 6], ['de', 5], ['ca', 4], ['kr', 4], ['jp', 4], ['il', 3], ['in', 3], ['ae', 2], ['sg', 2], ['ch', 2], ['se', 1], ['nl', 1],
];
const PROVIDER_COUNTRIES: [string, number][] = [['us', 50], ['de', 6], ['fr', 6], ['gb', 6], ['cn', 6], ['sg', 4], ['ca', 4], ['nl', 3], ['se', 3], ['jp', 3], ['fi', 2], ['in', 2]];
/** Share of creators and providers whose country is unknown. */
const UNKNOWN_COUNTRY = 0.1;

// ---------------------------------------------------------------------------------------------
// Creators

type WeightsPolicy = 'open' | 'closed' | 'mixed';

interface CreatorDraft {
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
function modelCounts(creators: number, models: number): number[] {
  const weights = Array.from({ length: creators }, (_, i) => 1 / (i + 1) ** 0.9);
  const total = weights.reduce((a, b) => a + b, 0);
  const floor = models >= creators ? 1 : 0;
  const spare = models - floor * creators;
  const counts = weights.map((w) => floor + Math.floor((spare * w) / total));
  for (let i = 0, left = models - counts.reduce((a, b) => a + b, 0); left > 0; i = (i + 1) % creators, left--) counts[i]++;
  return counts;
}

function generateCreators(options: SampleOptions): CreatorDraft[] {
  const rng = new Rng(options.seed, 'creators');
  const slugFor = slugMaker();
  const names = companyNames(options.creators, CREATOR_WORDS, CREATOR_SUFFIXES, rng);
  const counts = modelCounts(options.creators, options.models);
  const drafts = names.map((name, rank): CreatorDraft => {
    const frontier = rank < Math.max(1, Math.round(options.creators * 0.12));
    const policy = rng.weighted<WeightsPolicy>(frontier ? [['closed', 6], ['mixed', 3], ['open', 2]] : [['open', 5], ['closed', 2], ['mixed', 3]]);
    return {
      record: { id: rng.uuid(), slug: slugFor(name), name, country: rng.chance(UNKNOWN_COUNTRY) ? null : rng.weighted(CREATOR_COUNTRIES) },
      skill: rng.normal() * 0.35 + (frontier ? 0.6 : -0.1),
      policy,
      popularity: rng.lognormal(frontier ? 1.6 : 1, 0.35),
      openData: policy === 'open' && rng.chance(0.2),
      modelCount: counts[rank],
    };
  });
  return drafts.sort((a, b) => (a.record.name < b.record.name ? -1 : 1));
}

// ---------------------------------------------------------------------------------------------
// Models: releases, variants and the latent capability

interface Variant {
  /** Appended to the release name; empty for the base tier. */
  label: string;
  /** Added to capability: bigger variants score higher. */
  effect: number;
  /** Billions of parameters (open weights; closed tiers when disclosed). */
  total: number;
  active: number;
}

const CLOSED_TIERS: Variant[] = [
  { label: 'Nano', effect: -1.3, total: 4, active: 4 },
  { label: 'Lite', effect: -0.9, total: 12, active: 12 },
  { label: 'Mini', effect: -0.7, total: 20, active: 20 },
  { label: 'Flash', effect: -0.4, total: 60, active: 12 },
  { label: '', effect: 0, total: 200, active: 30 },
  { label: 'Pro', effect: 0.4, total: 600, active: 60 },
  { label: 'Ultra', effect: 0.6, total: 1500, active: 120 },
];

const OPEN_SIZES: Variant[] = [
  { label: '1B', effect: -1.7, total: 1.2, active: 1.2 },
  { label: '3B', effect: -1.3, total: 3.1, active: 3.1 },
  { label: '8B', effect: -0.9, total: 8, active: 8 },
  { label: '14B', effect: -0.6, total: 14.7, active: 14.7 },
  { label: '32B', effect: -0.3, total: 32.5, active: 32.5 },
  { label: '30B A3B', effect: -0.5, total: 30.5, active: 3.3 },
  { label: '70B', effect: -0.1, total: 70.6, active: 70.6 },
  { label: '120B A12B', effect: 0, total: 117, active: 12.1 },
  { label: '235B A22B', effect: 0.25, total: 235, active: 22 },
  { label: '480B A35B', effect: 0.4, total: 480, active: 35 },
  { label: '1T A40B', effect: 0.5, total: 1020, active: 40 },
];

type FamilyKind = 'general' | 'coder' | 'vision';

interface Family {
  name: string;
  kind: FamilyKind;
  major: number;
  minor: number;
}

interface ModelDraft {
  record: LanguageModel;
  creator: CreatorDraft;
  releaseMs: number;
  capability: number;
  variant: Variant;
  /** Answer length relative to a typical model (token counts). */
  verbosity: number;
  /** Thinking tokens per request when serving (reasoning models only). */
  thinkingTokens: number;
}

/** Release dates skew recent: more models come out every year. */
function releaseMs(rng: Rng, asOfMs: number): number {
  const end = asOfMs - 3 * DAY_MS;
  const start = Math.min(EPOCH_MS, end - 730 * DAY_MS);
  return dayMs(isoDay(start + (end - start) * rng.next() ** 0.7));
}

/** Advance a family's version: a new major, a point release, or a `.5` refresh. */
function nextVersion(family: Family, rng: Rng): string {
  const r = rng.next();
  if (r < 0.45) [family.major, family.minor] = [family.major + 1, 0];
  else if (r < 0.8 || family.minor >= 5) family.minor += 1;
  else family.minor = 5;
  return family.minor === 0 ? `${family.major}` : `${family.major}.${family.minor}`;
}

function creatorFamilies(count: number, names: () => string, rng: Rng): Family[] {
  const n = 1 + (count >= 6 ? 1 : 0) + (count >= 14 ? 1 : 0) + (count >= 30 ? 1 : 0);
  return Array.from({ length: n }, (_, i): Family => {
    const kind: FamilyKind = i === 0 ? 'general' : rng.weighted<FamilyKind>([['general', 3], ['coder', 1], ['vision', 1]]);
    const base = names();
    return { name: kind === 'coder' ? `${base} Coder` : kind === 'vision' ? `${base} Vision` : base, kind, major: rng.int(1, 3), minor: 0 };
  });
}

/** Reasoning became common in late 2024; before that almost every release is a plain instruct model. */
function releaseModes(atMs: number, rng: Rng): boolean[] {
  if (atMs < Date.UTC(2024, 8, 1)) return [rng.chance(0.04)];
  return rng.weighted<boolean[]>([[[false], 2], [[true], 3], [[true, false], 4]]);
}

/** Split a creator's model count into releases of 1..4 models each. */
function releaseSizes(count: number, rng: Rng): number[] {
  const sizes: number[] = [];
  for (let left = count; left > 0; ) {
    const size = Math.min(left, rng.weighted([[1, 4], [2, 4], [3, 2], [4, 1]]));
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

/** Sizes or tiers of one release, smallest first, plus the flagship. */
function releaseVariants(open: boolean, count: number, rng: Rng): Variant[] {
  const pool = open ? OPEN_SIZES : CLOSED_TIERS;
  const flagship = rng.pick(pool.slice(-3));
  const others = rng.shuffle(pool.filter((v) => v !== flagship)).slice(0, count - 1);
  return [...others, flagship].sort((a, b) => pool.indexOf(a) - pool.indexOf(b));
}

interface ModelSeed {
  family: Family;
  version: string;
  variant: Variant;
  reasoning: boolean;
  /** Both modes of one variant were released: the names say which is which. */
  twoModes: boolean;
  open: boolean;
  atMs: number;
}

/** Plan a creator's releases: dates, families, versions, variants and modes. */
function planReleases(creator: CreatorDraft, names: () => string, asOfMs: number, rng: Rng): ModelSeed[] {
  const families = creatorFamilies(creator.modelCount, names, rng);
  const sizes = releaseSizes(creator.modelCount, rng);
  const dates = sizes.map(() => releaseMs(rng, asOfMs)).sort((a, b) => a - b);
  const openShare = { open: 0.92, closed: 0.05, mixed: 0.5 }[creator.policy];
  const seeds: ModelSeed[] = [];
  sizes.forEach((size, i) => {
    const family = rng.weighted(families.map((f) => [f, f.kind === 'general' ? 3 : 1] as const));
    const version = nextVersion(family, rng);
    const open = rng.chance(openShare);
    const modes = releaseModes(dates[i], rng);
    const variants = releaseVariants(open, Math.ceil(size / modes.length), rng);
    const combos = variants.flatMap((variant) => modes.map((reasoning) => ({ variant, reasoning })));
    for (const { variant, reasoning } of combos.slice(-size)) {
      seeds.push({ family, version, variant, reasoning, twoModes: modes.length > 1, open, atMs: dates[i] });
    }
  });
  return seeds;
}

function modelName(seed: ModelSeed): string {
  const parts = [seed.family.name, seed.version, seed.variant.label].filter(Boolean).join(' ');
  return seed.twoModes ? `${parts} (${seed.reasoning ? 'reasoning' : 'non-reasoning'})` : parts;
}

/**
 * The latent capability every score follows: a trend of about +1.15 a year since 2023, the
 * creator's skill, the variant's size, a bonus for reasoning, and a little luck.
 */
function capability(seed: ModelSeed, creator: CreatorDraft, rng: Rng): number {
  const years = (seed.atMs - EPOCH_MS) / YEAR_MS;
  return -2.3 + 1.15 * years + creator.skill + seed.variant.effect + (seed.reasoning ? 0.5 : 0) + rng.normal() * 0.25;
}

// ---------------------------------------------------------------------------------------------
// Evaluations

interface ScoreCurve {
  /** Date the evaluation was introduced: models released long before it rarely have it. */
  since: string;
  /** Score at very low and very high capability (floor = chance level). */
  lo: number;
  hi: number;
  /** Capability at the curve's midpoint, and its steepness. */
  mid: number;
  slope: number;
  /** Largest value the dataset schema admits. */
  max: number;
  /** Coder models do better on these, worse elsewhere. */
  coding?: boolean;
  /** Needs image input. */
  vision?: boolean;
}

const FRACTION = 1;
const ELO_MAX = 5000;

/**
 * Scores follow a logistic curve of capability between floor and ceiling. The anchors of
 * `data/indices.json` (Elo 800..1600, fractions 0..1, omniscience -100..100) put today's best
 * models near 60 on the intelligence index and typical 2024 models near 15.
 */
const EVALUATIONS: Record<RawEvaluation, ScoreCurve> = {
  tau2_telecom: { since: '2025-06-01', lo: 0.05, hi: 0.98, mid: 1.3, slope: 1.2, max: FRACTION },
  tau_banking: { since: '2026-01-15', lo: 0, hi: 0.45, mid: 2.0, slope: 1.0, max: FRACTION },
  terminalbench_hard: { since: '2025-05-15', lo: 0, hi: 0.7, mid: 2.0, slope: 1.0, max: FRACTION, coding: true },
  terminalbench_v2_1: { since: '2025-11-10', lo: 0, hi: 0.9, mid: 1.6, slope: 1.0, max: FRACTION, coding: true },
  terminalbench_v4_0: { since: '2026-06-01', lo: 0, hi: 0.75, mid: 2.6, slope: 1.0, max: FRACTION, coding: true },
  platform_briefcase_elo: { since: '2026-03-01', lo: 700, hi: 1700, mid: 1.8, slope: 0.55, max: ELO_MAX },
  automationbench_platform: { since: '2026-05-01', lo: 0, hi: 0.8, mid: 2.8, slope: 1.0, max: FRACTION },
  gdp_pdf: { since: '2026-04-01', lo: 0.05, hi: 0.85, mid: 2.4, slope: 0.9, max: FRACTION },
  scicode: { since: '2024-07-01', lo: 0, hi: 0.62, mid: 0.5, slope: 0.9, max: FRACTION, coding: true },
  platform_lcr: { since: '2025-03-01', lo: 0, hi: 0.8, mid: 1.2, slope: 1.1, max: FRACTION },
  ifbench: { since: '2025-07-01', lo: 0.15, hi: 0.85, mid: 1.0, slope: 0.9, max: FRACTION },
  hle: { since: '2025-01-20', lo: 0.02, hi: 0.6, mid: 2.8, slope: 1.0, max: FRACTION },
  gpqa_diamond: { since: '2023-11-20', lo: 0.25, hi: 0.93, mid: 0.0, slope: 0.9, max: FRACTION },
  critpt: { since: '2025-10-01', lo: 0, hi: 0.35, mid: 3.2, slope: 1.2, max: FRACTION },
  gdpval_platform_elo: { since: '2025-10-01', lo: 700, hi: 1650, mid: 1.6, slope: 0.55, max: ELO_MAX },
  mmmu_pro: { since: '2024-09-01', lo: 0.2, hi: 0.85, mid: 0.8, slope: 0.8, max: FRACTION, vision: true },
  platform_multilingual_index: { since: '2025-09-01', lo: 20, hi: 95, mid: 0.5, slope: 0.8, max: 100 },
};
const OMNISCIENCE_SINCE = '2025-11-01';
/** Evaluations every sparse model may still have: the old, cheap ones. */
const SPARSE_EVALUATIONS: RawEvaluation[] = ['gpqa_diamond', 'scicode', 'hle', 'ifbench'];
/** An evaluation is run on models released up to this long before it was introduced. */
const LOOKBACK_MS = 600 * DAY_MS;

/** Which evaluations (and omniscience) a model has; sparse models list only those keys. */
interface Evaluated {
  done: Set<RawEvaluation | 'omniscience'>;
  sparse: boolean;
}

/** By release date against each evaluation's introduction, and luck. */
function evaluatedSet(model: ModelSeed, imageInput: boolean, asOfMs: number, rng: Rng): Evaluated {
  const exists = (since: string) => dayMs(since) <= asOfMs;
  if (rng.chance(0.1)) {
    // About one model in ten was only run on a few quick evaluations.
    const few = rng.shuffle(SPARSE_EVALUATIONS.filter((k) => exists(EVALUATIONS[k].since))).slice(0, rng.int(1, 3));
    return { done: new Set(few), sparse: true };
  }
  const rerun = rng.chance(0.25); // an older model that stayed popular gets the newer evaluations too
  const partial = rng.chance(0.12); // some runs failed or were never finished
  const runs = (since: string) => exists(since) && (rerun || model.atMs >= dayMs(since) - LOOKBACK_MS) && !(partial && rng.chance(0.35));
  const done: Evaluated['done'] = new Set();
  for (const key of RAW_EVALUATIONS) if (runs(EVALUATIONS[key].since) && (imageInput || !EVALUATIONS[key].vision)) done.add(key);
  if (runs(OMNISCIENCE_SINCE)) done.add('omniscience');
  return { done, sparse: false };
}

function score(curve: ScoreCurve, capability: number, kind: FamilyKind, rng: Rng): number {
  const focus = kind === 'coder' ? (curve.coding ? 0.6 : -0.4) : 0;
  const c = capability + focus + rng.normal() * 0.25;
  const value = curve.lo + (curve.hi - curve.lo) * sigmoid(curve.slope * (c - curve.mid)) + rng.normal() * 0.02 * (curve.hi - curve.lo);
  return round(clamp(value, 0, curve.max), curve.max === FRACTION ? 4 : 1);
}

/** Every evaluation key with its score or null; sparse models list only what they have. */
function evaluations({ done, sparse }: Evaluated, model: ModelSeed, c: number, rng: Rng): LanguageModel['evaluations'] {
  const out: LanguageModel['evaluations'] = {};
  for (const key of RAW_EVALUATIONS) {
    if (done.has(key)) out[key] = score(EVALUATIONS[key], c, model.family.kind, rng);
    else if (!sparse) out[key] = null;
  }
  return out;
}

/** Subject domains, each a little easier or harder; `total` is their mean. */
const DOMAIN_ACCURACY_OFFSET: Record<Exclude<(typeof OMNISCIENCE_DOMAINS)[number], 'total'>, number> = {
  law: -0.05,
  health: 0.02,
  business: 0,
  humanities_and_social_sciences: 0.03,
  science_engineering_and_mathematics: -0.02,
  software_engineering: 0.04,
};

/**
 * Omniscience per domain: accuracy rises with capability, the hallucination rate (wrong answers
 * among those not right) falls; the index is 100 * (correct - incorrect) share, -100..100.
 */
function omniscience(c: number, kind: FamilyKind, rng: Rng): NonNullable<LanguageModel['omniscience_breakdown']> {
  const calibration = rng.normal() * 0.08;
  const domains = (Object.keys(DOMAIN_ACCURACY_OFFSET) as (keyof typeof DOMAIN_ACCURACY_OFFSET)[]).map((domain) => {
    const focus = kind === 'coder' && domain === 'software_engineering' ? 0.08 : 0;
    const accuracy = clamp(0.05 + 0.6 * sigmoid(0.8 * (c - 1.5)) + DOMAIN_ACCURACY_OFFSET[domain] + focus + rng.normal() * 0.03, 0.01, 0.95);
    const hallucination = clamp(0.95 - 0.5 * sigmoid(0.9 * (c - 2)) + calibration + rng.normal() * 0.03, 0.03, 0.99);
    return [domain, accuracy, hallucination] as const;
  });
  const mean = (i: 1 | 2) => domains.reduce((sum, d) => sum + d[i], 0) / domains.length;
  const scores = (accuracy: number, hallucination: number): OmniscienceScores => {
    const [a, h] = [round(accuracy, 4), round(hallucination, 4)];
    return { accuracy: a, omniscience: round(100 * (a - h * (1 - a)), 2), hallucination_rate: h };
  };
  return { total: scores(mean(1), mean(2)), ...Object.fromEntries(domains.map(([d, a, h]) => [d, scores(a, h)])) };
}

interface TokenProfile {
  /** The score the counts belong to: no score, no counts. */
  from: RawEvaluation | 'omniscience';
  tasks: number;
  /** Tokens per task: prompt, answer, and thinking of a typical reasoning model. */
  input: number;
  answer: number;
  thinking: number;
}

const TOKEN_PROFILES: Record<TokenCountEvaluation, TokenProfile> = {
  hle: { from: 'hle', tasks: 2158, input: 900, answer: 450, thinking: 9000 },
  platform_lcr: { from: 'platform_lcr', tasks: 100, input: 98000, answer: 600, thinking: 6000 },
  gpqa_diamond: { from: 'gpqa_diamond', tasks: 198, input: 450, answer: 700, thinking: 7000 },
  tau2_telecom: { from: 'tau2_telecom', tasks: 114, input: 42000, answer: 2500, thinking: 9000 },
  tau_banking: { from: 'tau_banking', tasks: 291, input: 38000, answer: 2200, thinking: 8000 },
  critpt: { from: 'critpt', tasks: 70, input: 2400, answer: 3000, thinking: 25000 },
  gdpval_platform: { from: 'gdpval_platform_elo', tasks: 220, input: 21000, answer: 4500, thinking: 7000 },
  ifbench: { from: 'ifbench', tasks: 294, input: 300, answer: 500, thinking: 3000 },
  scicode: { from: 'scicode', tasks: 338, input: 1600, answer: 900, thinking: 8000 },
  mmmu_pro: { from: 'mmmu_pro', tasks: 1730, input: 1500, answer: 300, thinking: 4000 },
  platform_omniscience: { from: 'omniscience', tasks: 600, input: 320, answer: 120, thinking: 2500 },
  terminalbench_hard: { from: 'terminalbench_hard', tasks: 44, input: 60000, answer: 6000, thinking: 20000 },
  terminalbench_v2_1: { from: 'terminalbench_v2_1', tasks: 89, input: 55000, answer: 5500, thinking: 18000 },
  terminalbench_v4_0: { from: 'terminalbench_v4_0', tasks: 89, input: 70000, answer: 6500, thinking: 22000 },
  platform_briefcase: { from: 'platform_briefcase_elo', tasks: 100, input: 60000, answer: 5000, thinking: 12000 },
  automationbench_platform: { from: 'automationbench_platform', tasks: 150, input: 50000, answer: 3000, thinking: 10000 },
  gdp_pdf: { from: 'gdp_pdf', tasks: 120, input: 26000, answer: 2000, thinking: 9000 },
};

/** Token counts of the evaluations a model ran; about one in twelve runs lost its counts. */
function tokenCounts({ done }: Evaluated, reasoning: boolean, verbosity: number, rng: Rng): NonNullable<LanguageModel['evaluation_token_counts']> {
  const out: NonNullable<LanguageModel['evaluation_token_counts']> = {};
  for (const [key, p] of Object.entries(TOKEN_PROFILES) as [TokenCountEvaluation, TokenProfile][]) {
    if (!done.has(p.from) || rng.chance(0.08)) continue;
    const counts: TokenCounts = {
      input_tokens: Math.round(p.tasks * p.input * rng.lognormal(1, 0.05)),
      answer_tokens: Math.round(p.tasks * p.answer * verbosity * rng.lognormal(1, 0.15)),
      reasoning_tokens: reasoning ? Math.round(p.tasks * p.thinking * verbosity * rng.lognormal(1, 0.25)) : 0,
    };
    out[key] = counts;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Other model attributes

/** Openness components (0..1): mostly for open-weights models; a few closed ones were rated too. */
function openness(open: boolean, creator: CreatorDraft, rng: Rng): Record<string, number> | null {
  if (!rng.chance(open ? 0.95 : 0.3)) return null;
  const data = () => (creator.openData ? 1 : rng.pick([0, 0, 0, 0.25, 0.5]));
  const values: Record<(typeof OPENNESS_COMPONENTS)[number], number> = {
    weights_access: open ? 1 : 0,
    weights_license: open ? rng.pick([1, 1, 0.75, 0.5]) : 0,
    data_pretrain_access: open ? data() : 0,
    data_pretrain_license: open ? data() : 0,
    data_posttrain_access: open ? data() : 0,
    data_posttrain_license: open ? data() : 0,
    methodology_license: open ? rng.pick([0, 0.5, 1]) : 0,
    methodology_disclosure: open ? rng.pick([0.25, 0.5, 0.75, 1]) : rng.pick([0, 0.25, 0.5]),
  };
  return values;
}

/** Parameters in billions: published for open weights, rarely for closed models. */
function parameters(seed: ModelSeed, rng: Rng): LanguageModel['parameters'] {
  if (seed.open) return { total: seed.variant.total, active: seed.variant.active };
  if (!rng.chance(0.1)) return { total: null, active: null };
  return { total: Math.round(seed.variant.total * rng.lognormal(1, 0.2)), active: null };
}

function modalities(seed: ModelSeed, rng: Rng): LanguageModel['modalities'] {
  const years = (seed.atMs - EPOCH_MS) / YEAR_MS;
  const image = seed.family.kind === 'vision' || (seed.family.kind === 'general' && rng.chance(0.12 + 0.12 * years));
  const flags = (set: Partial<Record<(typeof MODALITIES)[number], boolean>>) => Object.fromEntries(MODALITIES.map((m) => [m, set[m] ?? false]));
  return {
    input: flags({ text: true, image, video: image && rng.chance(0.15), speech: rng.chance(0.05) }),
    output: flags({ text: true, image: rng.chance(0.02), speech: rng.chance(0.02) }),
  };
}

const CONTEXT_WINDOWS = [8192, 16384, 32768, 65536, 128000, 131072, 200000, 256000, 262144, 400000, 1000000, 1048576, 2000000];

/** Context windows grew from 8k-32k in 2023 to 256k-2M by 2026; a few models leave it unset. */
function contextWindow(seed: ModelSeed, rng: Rng): number | null {
  if (rng.chance(0.03)) return null;
  const years = (seed.atMs - EPOCH_MS) / YEAR_MS;
  const index = Math.round(clamp(2 + 2.2 * years + rng.normal() * 1.3, 0, CONTEXT_WINDOWS.length - 1));
  return CONTEXT_WINDOWS[index];
}

function generateModels(options: SampleOptions, creators: CreatorDraft[]): ModelDraft[] {
  const rng = new Rng(options.seed, 'models');
  const asOfMs = dayMs(options.asOf);
  const nextFamily = familyNamer(rng);
  const slugFor = slugMaker(['free']);
  const drafts: ModelDraft[] = [];
  for (const creator of creators) {
    for (const seed of planReleases(creator, nextFamily, asOfMs, rng)) drafts.push(buildModel(seed, creator, slugFor, asOfMs, rng));
  }
  return drafts;
}

function buildModel(seed: ModelSeed, creator: CreatorDraft, slugFor: (name: string) => string, asOfMs: number, rng: Rng): ModelDraft {
  const name = modelName(seed);
  const slug = slugFor(name);
  const c = capability(seed, creator, rng);
  const modes = modalities(seed, rng);
  const evaluated = evaluatedSet(seed, modes.input.image, asOfMs, rng);
  const verbosity = rng.lognormal(1, 0.35);
  const counts = tokenCounts(evaluated, seed.reasoning, verbosity, rng);
  const record: LanguageModel = {
    id: rng.uuid(),
    slug,
    name,
    creator_id: creator.record.id,
    release_date: rng.chance(0.015) ? null : isoDay(seed.atMs),
    reasoning_model: seed.reasoning,
    evaluations: evaluations(evaluated, seed, c, rng),
    ...(Object.keys(counts).length > 0 ? { evaluation_token_counts: counts } : {}),
    omniscience_breakdown: evaluated.done.has('omniscience') ? omniscience(c, seed.family.kind, rng) : null,
    openness: openness(seed.open, creator, rng),
    parameters: parameters(seed, rng),
    modalities: modes,
    licensing: { is_open_weights: seed.open },
    context_window_tokens: contextWindow(seed, rng),
    weights_hub_url: seed.open && rng.chance(0.92) ? `https://weights-hub.example/${creator.record.slug}/${slug}` : null,
    router_api_id: rng.chance(0.7) ? `${creator.record.slug}/${slug}` : null,
  };
  return {
    record,
    creator,
    releaseMs: seed.atMs,
    capability: c,
    variant: seed.variant,
    verbosity,
    thinkingTokens: seed.reasoning ? rng.lognormal(2000, 0.45) * Math.sqrt(verbosity) : 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Providers and endpoints

type ProviderRole = 'first-party' | 'cloud' | 'specialist';

interface ProviderDraft {
  record: Provider;
  role: ProviderRole;
  /** The creator whose own API this is (first-party only). */
  creatorId: string | null;
  /** Creators whose closed models this cloud resells. */
  partners: Set<string>;
  /** How many open models it tends to host, relative to others. */
  reach: number;
  /** Serving characteristics relative to a typical provider. */
  speed: number;
  latency: number;
  /** Price relative to the model's list price. */
  markup: number;
}

/**
 * A fifth of providers are the first-party APIs of the creators with the most closed models,
 * about one in eight are big clouds reselling closed models, the rest host open weights.
 */
function generateProviders(options: SampleOptions, creators: CreatorDraft[], models: ModelDraft[]): ProviderDraft[] {
  const rng = new Rng(options.seed, 'providers');
  const closedModels = new Map<string, number>();
  for (const m of models) if (!m.record.licensing.is_open_weights) closedModels.set(m.creator.record.id, (closedModels.get(m.creator.record.id) ?? 0) + 1);
  const owners = [...creators].filter((c) => closedModels.has(c.record.id)).sort((a, b) => closedModels.get(b.record.id)! - closedModels.get(a.record.id)! || (a.record.name < b.record.name ? -1 : 1));
  const firstParty = owners.slice(0, Math.round(options.providers * 0.2));
  const clouds = options.providers >= 3 ? Math.max(1, Math.round(options.providers * 0.12)) : 0;
  const names = companyNames(options.providers - firstParty.length, PROVIDER_WORDS, PROVIDER_SUFFIXES, rng);
  const slugFor = slugMaker();
  const make = (name: string, role: ProviderRole, creator: CreatorDraft | null): ProviderDraft => ({
    record: { id: rng.uuid(), slug: slugFor(name), name, country: creator ? creator.record.country : rng.chance(UNKNOWN_COUNTRY) ? null : rng.weighted(PROVIDER_COUNTRIES) },
    role,
    creatorId: creator?.record.id ?? null,
    partners: new Set(),
    reach: role === 'cloud' ? rng.lognormal(1.5, 0.3) : rng.lognormal(1, 0.6),
    // A few specialists run custom chips and are several times faster than the rest.
    speed: role === 'specialist' && rng.chance(0.12) ? rng.lognormal(3, 0.2) : rng.lognormal(1, 0.3),
    latency: rng.lognormal(1, 0.35),
    markup: role === 'first-party' ? 1 : rng.lognormal(1, 0.2),
  });
  const drafts = [
    ...firstParty.map((c) => make(c.record.name, 'first-party', c)),
    ...names.map((name, i) => make(name, i < clouds ? 'cloud' : 'specialist', null)),
  ];
  // Each closed-model creator sells through one to three clouds, however many clouds there are.
  const cloudDrafts = drafts.filter((p) => p.role === 'cloud');
  for (const owner of owners) for (const cloud of rng.shuffle(cloudDrafts).slice(0, rng.int(1, 3))) cloud.partners.add(owner.record.id);
  return drafts.sort((a, b) => (a.record.name < b.record.name ? -1 : a.record.name > b.record.name ? 1 : a.record.id < b.record.id ? -1 : 1));
}

const MAX_PROVIDERS_PER_MODEL = 8;
/** Models this old are often no longer served by anyone. */
const RETIRED_AFTER_MS = 540 * DAY_MS;

/** Which providers serve a model: none for retired models, many for popular open weights. */
function servingProviders(model: ModelDraft, providers: ProviderDraft[], asOfMs: number, rng: Rng): ProviderDraft[] {
  const age = asOfMs - model.releaseMs;
  if (rng.chance(age > RETIRED_AFTER_MS ? 0.18 : 0.04)) return [];
  const own = providers.find((p) => p.creatorId === model.creator.record.id);
  const chosen = new Set<ProviderDraft>();
  if (own && rng.chance(model.record.licensing.is_open_weights ? 0.6 : 0.97)) chosen.add(own);
  const hosts = providers.filter((p) => p.role !== 'first-party');
  if (!model.record.licensing.is_open_weights) {
    for (const p of hosts) if (p.partners.has(model.creator.record.id) && rng.chance(0.75)) chosen.add(p);
    // A closed model without its creator's own API is sold through someone else's.
    if (chosen.size === 0 && hosts.length > 0) chosen.add(rng.pick(hosts));
    return [...chosen];
  }
  const recency = clamp(1 - age / (2 * YEAR_MS), 0, 1);
  const wanted = Math.max(1, Math.round(rng.lognormal(2.4 * model.creator.popularity * (0.4 + recency) * (1 + 0.15 * model.capability), 0.5)));
  let pool = hosts;
  while (chosen.size < Math.min(wanted, MAX_PROVIDERS_PER_MODEL) && pool.length > 0) {
    const host = rng.weighted(pool.map((p) => [p, p.reach] as const));
    chosen.add(host);
    pool = pool.filter((p) => p !== host);
  }
  return [...chosen];
}

/**
 * List price of a model (USD per 1M input tokens): open weights priced by active parameters,
 * closed models by tier and capability. Output costs 2-5x input.
 */
function listPrices(model: ModelDraft, rng: Rng): { input: number; outputRatio: number } {
  const base = model.record.licensing.is_open_weights
    ? 0.03 * model.variant.active ** 0.75
    : 1.25 * Math.exp(1.8 * model.variant.effect) * Math.exp(0.25 * (model.capability - 2));
  const spread = model.record.licensing.is_open_weights ? 0.35 : 0.5;
  return { input: clamp(base * rng.lognormal(1, spread), 0.02, 15), outputRatio: rng.pick([2, 2.5, 3, 4, 4, 4, 5]) };
}

function endpointContext(model: number | null, rng: Rng): number | null {
  if (model === null || rng.chance(0.7)) return model;
  const smaller = CONTEXT_WINDOWS.filter((w) => w < model);
  return smaller.length > 0 ? rng.pick(smaller.slice(-3)) : model;
}

function buildEndpoint(model: ModelDraft, provider: ProviderDraft, list: { input: number; outputRatio: number }, rng: Rng): ProviderEndpoint {
  const unpriced = rng.chance(0.03);
  const input = clamp(list.input * provider.markup, 0.02, 15);
  const hasCacheHit = !unpriced && rng.chance(0.6);
  const hasCacheWrite = hasCacheHit && rng.chance(2 / 3);
  return {
    id: rng.uuid(),
    model_id: model.record.id,
    provider_id: provider.record.id,
    price_1m_input_tokens: unpriced ? null : price(input),
    price_1m_output_tokens: unpriced ? null : price(input * list.outputRatio),
    price_1m_cache_hit_tokens: hasCacheHit ? price(input * rng.pick([0.1, 0.125, 0.2, 0.25])) : null,
    price_1m_cache_write_tokens: hasCacheWrite ? Number((price(input) * 1.25).toPrecision(3)) : null,
    context_window_tokens: endpointContext(model.record.context_window_tokens ?? null, rng),
  };
}

interface EndpointDraft {
  record: ProviderEndpoint;
  model: ModelDraft;
  provider: ProviderDraft;
}

function generateEndpoints(options: SampleOptions, models: ModelDraft[], providers: ProviderDraft[]): EndpointDraft[] {
  const rng = new Rng(options.seed, 'endpoints');
  const asOfMs = dayMs(options.asOf);
  const order = new Map(providers.map((p, i) => [p, i]));
  return models.flatMap((model) => {
    const list = listPrices(model, rng);
    const serving = servingProviders(model, providers, asOfMs, rng).sort((a, b) => order.get(a)! - order.get(b)!);
    return serving.map((provider) => ({ record: buildEndpoint(model, provider, list, rng), model, provider }));
  });
}

// ---------------------------------------------------------------------------------------------
// Measurements

/** Days of measurements ending at the as-of date; the last ones are measured three times a day. */
const MEASURED_DAYS = 90;
const DENSE_DAYS = 30;
const DENSE_PER_DAY = 3;
const FAILURE_RATE = 0.02;

/** How each prompt type shifts speed and time to first token, relative to `medium`. */
const PROMPT_EFFECTS: Record<PromptType, { speed: number; ttftScale: number; ttftAdd: number }> = {
  medium: { speed: 1, ttftScale: 1, ttftAdd: 0 },
  long: { speed: 0.95, ttftScale: 1.5, ttftAdd: 0.25 },
  '100k': { speed: 0.8, ttftScale: 4, ttftAdd: 1.8 },
  vision_single_image: { speed: 0.97, ttftScale: 1.4, ttftAdd: 0.35 },
  medium_coding: { speed: 1.03, ttftScale: 1, ttftAdd: 0.02 },
  medium_parallel: { speed: 0.7, ttftScale: 1.25, ttftAdd: 0.05 },
};

interface ServingProfile {
  /** Median output tokens per second and seconds to first token, for `medium` prompts. */
  speed: number;
  ttft: number;
  /** Thinking tokens before the answer (0 for non-reasoning models). */
  thinking: number;
  /** Some APIs do not stream reasoning: the first token seen is the first answer token. */
  hidesReasoning: boolean;
  /** Per-day multipliers: a slow drift plus day-to-day noise, shared by all prompt types. */
  speedByDay: number[];
  ttftByDay: number[];
}

/** Speed falls with active parameters (closed tiers by their estimated size), scaled by the provider's hardware. */
function servingProfile(endpoint: EndpointDraft, rng: Rng): ServingProfile {
  const { model, provider } = endpoint;
  const speed = clamp((260 / model.variant.active ** 0.33) * provider.speed * rng.lognormal(1, 0.2), 20, 350);
  const ttft = clamp(rng.lognormal(0.45, 0.35) * provider.latency * (1 + model.variant.active / 400), 0.2, 3);
  const drift = () => {
    const slope = rng.normal() * 0.12;
    const phase = rng.uniform(0, 2 * Math.PI);
    const period = rng.uniform(20, 60);
    return Array.from({ length: MEASURED_DAYS }, (_, d) => Math.exp(slope * (d / MEASURED_DAYS) + 0.04 * Math.sin(phase + (2 * Math.PI * d) / period) + rng.normal() * 0.04));
  };
  return { speed, ttft, thinking: model.thinkingTokens, hidesReasoning: rng.chance(0.25), speedByDay: drift(), ttftByDay: drift() };
}

/** Times of one day's measurements: one at a random time, or one in each third of the day. */
function measurementTimes(dayStart: number, perDay: number, rng: Rng): number[] {
  const slot = DAY_MS / perDay;
  return Array.from({ length: perDay }, (_, k) => dayStart + k * slot + Math.floor(rng.next() * slot));
}

function failedRecord(timestamp: string, ttft: number, rng: Rng): MeasurementRecord {
  // Most failures time out before any token; some break off after the first token.
  const started = rng.chance(0.4);
  return {
    timestamp,
    success: false,
    output_tokens_per_second: null,
    time_to_first_token_seconds: started ? round(ttft, 3) : null,
    time_to_first_answer_token_seconds: null,
  };
}

function seriesRecords(profile: ServingProfile, promptType: PromptType, firstDay: number, rng: Rng): MeasurementRecord[] {
  const effect = PROMPT_EFFECTS[promptType];
  const records: MeasurementRecord[] = [];
  for (let d = 0; d < MEASURED_DAYS; d++) {
    const perDay = d >= MEASURED_DAYS - DENSE_DAYS ? DENSE_PER_DAY : 1;
    for (const at of measurementTimes(firstDay + d * DAY_MS, perDay, rng)) {
      const timestamp = new Date(at).toISOString();
      const speed = Math.max(1, profile.speed * effect.speed * profile.speedByDay[d] * rng.lognormal(1, 0.1));
      const ttft = (profile.ttft * effect.ttftScale + effect.ttftAdd) * profile.ttftByDay[d] * rng.lognormal(1, 0.15);
      if (rng.chance(FAILURE_RATE)) {
        records.push(failedRecord(timestamp, ttft, rng));
        continue;
      }
      const thinkingSeconds = profile.thinking > 0 ? (profile.thinking * rng.lognormal(1, 0.4)) / speed : 0;
      const answerAt = ttft + thinkingSeconds;
      records.push({
        timestamp,
        success: true,
        output_tokens_per_second: round(speed, 1),
        time_to_first_token_seconds: round(profile.hidesReasoning ? answerAt : ttft, 3),
        time_to_first_answer_token_seconds: round(answerAt, 3),
      });
    }
  }
  return records;
}

/** One provider's measurements file. Each endpoint draws from its own stream, keyed by its id. */
function measurementsFile(options: SampleOptions, provider: ProviderDraft, endpoints: EndpointDraft[]): MeasurementsFile {
  const firstDay = dayMs(options.asOf) - (MEASURED_DAYS - 1) * DAY_MS;
  return {
    provider_id: provider.record.id,
    series: endpoints.flatMap((endpoint) => {
      const rng = new Rng(options.seed, `measurements/${endpoint.record.id}`);
      const profile = servingProfile(endpoint, rng);
      return PROMPT_TYPES.map((prompt_type) => ({ endpoint_id: endpoint.record.id, prompt_type, records: seriesRecords(profile, prompt_type, firstDay, rng) }));
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// Writing

const REPO_DATA = fileURLToPath(new URL('../data', import.meta.url));

interface Summary {
  counts: Record<string, number>;
  bytes: Record<string, number>;
}

function writeJson(path: string, value: unknown): number {
  const bytes = Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
  writeFileSync(path, bytes);
  return bytes.length;
}

/** Stale files of an earlier run would name providers that no longer exist, so they go first. */
function clearMeasurements(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dir)) if (name.endsWith('.json') || name.endsWith('.json.gz')) rmSync(join(dir, name));
}

/** Generate every dataset and write it into `options.out`. */
export function generateSample(options: SampleOptions): Summary {
  const creators = generateCreators(options);
  const models = generateModels(options, creators);
  const providers = generateProviders(options, creators, models);
  const endpoints = generateEndpoints(options, models, providers);
  const media = generateMedia({
    seed: options.seed,
    asOfMs: Date.parse(`${options.asOf}T23:59:59.999Z`),
    entries: options.arenaEntries,
    providerIds: providers.map((p) => p.record.id),
    languageCreators: creators.map((c) => c.record),
  });
  // Creator slugs are unique across the one creators file, media makers included.
  const taken = new Set(creators.map((c) => c.record.slug));
  for (const creator of media.creators) {
    while (taken.has(creator.slug)) creator.slug = `${creator.slug}-media`;
    taken.add(creator.slug);
  }

  mkdirSync(options.out, { recursive: true });
  const bytes = { json: 0, measurements: 0, media: 0 };
  bytes.json += writeJson(join(options.out, DATASET_FILES.creators), [...creators.map((c) => c.record), ...media.creators].sort((a, b) => (a.name < b.name ? -1 : 1)));
  bytes.json += writeJson(join(options.out, DATASET_FILES.models), models.map((m) => m.record));
  bytes.json += writeJson(join(options.out, DATASET_FILES.providers), providers.map((p) => p.record));
  bytes.json += writeJson(join(options.out, DATASET_FILES.endpoints), endpoints.map((e) => e.record));

  const measurementsDir = join(options.out, DATASET_FILES.measurements);
  clearMeasurements(measurementsDir);
  let records = 0;
  let files = 0;
  for (const provider of providers) {
    const own = endpoints.filter((e) => e.provider === provider);
    if (own.length === 0) continue;
    const file = measurementsFile(options, provider, own);
    records += file.series.reduce((n, s) => n + s.records.length, 0);
    // Node writes a gzip header with mtime 0, so equal JSON gives equal bytes.
    const gz = gzipSync(JSON.stringify(file), { level: 9 });
    writeFileSync(join(measurementsDir, `${provider.record.slug}.json.gz`), gz);
    bytes.measurements += gz.length;
    files++;
  }

  mkdirSync(join(options.out, MEDIA_DIR), { recursive: true });
  for (const [arena, entries] of Object.entries(media.arenas)) bytes.media += writeJson(join(options.out, mediaFile(arena)), entries);

  const indicesTarget = join(options.out, DATASET_FILES.indices);
  if (resolve(indicesTarget) !== resolve(REPO_DATA, DATASET_FILES.indices)) copyFileSync(join(REPO_DATA, DATASET_FILES.indices), indicesTarget);

  return {
    counts: { creators: creators.length + media.creators.length, 'arena entries': Object.values(media.arenas).reduce((n, e) => n + e.length, 0), models: models.length, providers: providers.length, endpoints: endpoints.length, 'measurement files': files, 'measurement records': records },
    bytes,
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  let options: SampleOptions;
  try {
    options = parseSampleArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof HelpRequested) {
      console.log(USAGE);
      return;
    }
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { counts, bytes } = generateSample(options);
  const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
  console.log(`wrote synthetic sample to ${options.out} (seed ${options.seed}, as of ${options.asOf})`);
  console.log(`  ${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ')}`);
  console.log(`  JSON datasets ${mb(bytes.json)}, media arenas ${mb(bytes.media)}, measurements ${mb(bytes.measurements)} gzipped`);
  console.log(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
