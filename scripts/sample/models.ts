/** Language models: release plans, variants, the latent capability and the attributes that follow from them. */
import { MODALITIES, OPENNESS_COMPONENTS } from '../../build/fields.ts';
import { Rng } from './rng.ts';
import type { LanguageModel } from '../../build/types.ts';
import type { SampleOptions } from './options.ts';
import { DAY_MS, EPOCH_MS, YEAR_MS, clamp, dayMs, familyNamer, isoDay, slugMaker } from './world.ts';
import type { CreatorDraft } from './creators.ts';
import type { Family, FamilyKind, ModelSeed, Variant } from './seeds.ts';
import { evaluatedSet, evaluations, omniscience, tokenCounts } from './evaluations.ts';

export const CLOSED_TIERS: Variant[] = [
  { label: 'Nano', effect: -1.3, total: 4, active: 4 },
  { label: 'Lite', effect: -0.9, total: 12, active: 12 },
  { label: 'Mini', effect: -0.7, total: 20, active: 20 },
  { label: 'Flash', effect: -0.4, total: 60, active: 12 },
  { label: '', effect: 0, total: 200, active: 30 },
  { label: 'Pro', effect: 0.4, total: 600, active: 60 },
  { label: 'Ultra', effect: 0.6, total: 1500, active: 120 },
];

export const OPEN_SIZES: Variant[] = [
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

export interface ModelDraft {
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
export function releaseMs(rng: Rng, asOfMs: number): number {
  const end = asOfMs - 3 * DAY_MS;
  const start = Math.min(EPOCH_MS, end - 730 * DAY_MS);
  return dayMs(isoDay(start + (end - start) * rng.next() ** 0.7));
}

/** Advance a family's version: a new major, a point release, or a `.5` refresh. */
export function nextVersion(family: Family, rng: Rng): string {
  const r = rng.next();
  if (r < 0.45) [family.major, family.minor] = [family.major + 1, 0];
  else if (r < 0.8 || family.minor >= 5) family.minor += 1;
  else family.minor = 5;
  return family.minor === 0 ? `${family.major}` : `${family.major}.${family.minor}`;
}

export function creatorFamilies(count: number, names: () => string, rng: Rng): Family[] {
  const n = 1 + (count >= 6 ? 1 : 0) + (count >= 14 ? 1 : 0) + (count >= 30 ? 1 : 0);
  return Array.from({ length: n }, (_, i): Family => {
    const kind: FamilyKind =
      i === 0
        ? 'general'
        : rng.weighted<FamilyKind>([
            ['general', 3],
            ['coder', 1],
            ['vision', 1],
          ]);
    const base = names();
    return {
      name: kind === 'coder' ? `${base} Coder` : kind === 'vision' ? `${base} Vision` : base,
      kind,
      major: rng.int(1, 3),
      minor: 0,
    };
  });
}

/** Reasoning became common in late 2024; before that almost every release is a plain instruct model. */
export function releaseModes(atMs: number, rng: Rng): boolean[] {
  if (atMs < Date.UTC(2024, 8, 1)) return [rng.chance(0.04)];
  return rng.weighted<boolean[]>([
    [[false], 2],
    [[true], 3],
    [[true, false], 4],
  ]);
}

/** Split a creator's model count into releases of 1..4 models each. */
export function releaseSizes(count: number, rng: Rng): number[] {
  const sizes: number[] = [];
  for (let left = count; left > 0;) {
    const size = Math.min(
      left,
      rng.weighted([
        [1, 4],
        [2, 4],
        [3, 2],
        [4, 1],
      ]),
    );
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

/** Sizes or tiers of one release, smallest first, plus the flagship. */
export function releaseVariants(open: boolean, count: number, rng: Rng): Variant[] {
  const pool = open ? OPEN_SIZES : CLOSED_TIERS;
  const flagship = rng.pick(pool.slice(-3));
  const others = rng.shuffle(pool.filter((v) => v !== flagship)).slice(0, count - 1);
  return [...others, flagship].sort((a, b) => pool.indexOf(a) - pool.indexOf(b));
}

/** Plan a creator's releases: dates, families, versions, variants and modes. */
export function planReleases(creator: CreatorDraft, names: () => string, asOfMs: number, rng: Rng): ModelSeed[] {
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

export function modelName(seed: ModelSeed): string {
  const parts = [seed.family.name, seed.version, seed.variant.label].filter(Boolean).join(' ');
  return seed.twoModes ? `${parts} (${seed.reasoning ? 'reasoning' : 'non-reasoning'})` : parts;
}

/**
 * The latent capability every score follows: a trend of about +1.15 a year since 2023, the
 * creator's skill, the variant's size, a bonus for reasoning, and a little luck.
 */
export function capability(seed: ModelSeed, creator: CreatorDraft, rng: Rng): number {
  const years = (seed.atMs - EPOCH_MS) / YEAR_MS;
  return -2.3 + 1.15 * years + creator.skill + seed.variant.effect + (seed.reasoning ? 0.5 : 0) + rng.normal() * 0.25;
}

/** Openness components (0..1): mostly for open-weights models; a few closed ones were rated too. */
export function openness(open: boolean, creator: CreatorDraft, rng: Rng): Record<string, number> | null {
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
export function parameters(seed: ModelSeed, rng: Rng): LanguageModel['parameters'] {
  if (seed.open) return { total: seed.variant.total, active: seed.variant.active };
  if (!rng.chance(0.1)) return { total: null, active: null };
  return { total: Math.round(seed.variant.total * rng.lognormal(1, 0.2)), active: null };
}

export function modalities(seed: ModelSeed, rng: Rng): LanguageModel['modalities'] {
  const years = (seed.atMs - EPOCH_MS) / YEAR_MS;
  const image = seed.family.kind === 'vision' || (seed.family.kind === 'general' && rng.chance(0.12 + 0.12 * years));
  const flags = (set: Partial<Record<(typeof MODALITIES)[number], boolean>>) =>
    Object.fromEntries(MODALITIES.map((m) => [m, set[m] ?? false]));
  return {
    input: flags({ text: true, image, video: image && rng.chance(0.15), speech: rng.chance(0.05) }),
    output: flags({ text: true, image: rng.chance(0.02), speech: rng.chance(0.02) }),
  };
}

export const CONTEXT_WINDOWS = [
  8192, 16384, 32768, 65536, 128000, 131072, 200000, 256000, 262144, 400000, 1000000, 1048576, 2000000,
];

/** Context windows grew from 8k-32k in 2023 to 256k-2M by 2026; a few models leave it unset. */
export function contextWindow(seed: ModelSeed, rng: Rng): number | null {
  if (rng.chance(0.03)) return null;
  const years = (seed.atMs - EPOCH_MS) / YEAR_MS;
  const index = Math.round(clamp(2 + 2.2 * years + rng.normal() * 1.3, 0, CONTEXT_WINDOWS.length - 1));
  return CONTEXT_WINDOWS[index];
}

export function generateModels(options: SampleOptions, creators: CreatorDraft[]): ModelDraft[] {
  const rng = new Rng(options.seed, 'models');
  const asOfMs = dayMs(options.asOf);
  const nextFamily = familyNamer(rng);
  const slugFor = slugMaker(['free']);
  const drafts: ModelDraft[] = [];
  for (const creator of creators) {
    for (const seed of planReleases(creator, nextFamily, asOfMs, rng))
      drafts.push(buildModel(seed, creator, slugFor, asOfMs, rng));
  }
  return drafts;
}

export function buildModel(
  seed: ModelSeed,
  creator: CreatorDraft,
  slugFor: (name: string) => string,
  asOfMs: number,
  rng: Rng,
): ModelDraft {
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
    weights_hub_url:
      seed.open && rng.chance(0.92) ? `https://weights-hub.example/${creator.record.slug}/${slug}` : null,
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
