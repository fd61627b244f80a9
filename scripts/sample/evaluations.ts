/** Evaluation scores, omniscience breakdowns and token counts, drawn from a model's latent capability. */
import { round } from '../../build/derive/stats.ts';
import {
  OMNISCIENCE_DOMAINS,
  RAW_EVALUATIONS,
  type RawEvaluation,
  type TokenCountEvaluation,
} from '../../build/fields.ts';
import { Rng } from './rng.ts';
import type { LanguageModel, OmniscienceScores, TokenCounts } from '../../build/types.ts';
import { DAY_MS, clamp, dayMs, sigmoid } from './world.ts';
import type { FamilyKind, ModelSeed } from './seeds.ts';

export interface ScoreCurve {
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

export const FRACTION = 1;
export const ELO_MAX = 5000;

/**
 * Scores follow a logistic curve of capability between floor and ceiling. The anchors of
 * `data/indices.json` (Elo 800..1600, fractions 0..1, omniscience -100..100) put today's best
 * models near 60 on the intelligence index and typical 2024 models near 15.
 */
export const EVALUATIONS: Record<RawEvaluation, ScoreCurve> = {
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
export const OMNISCIENCE_SINCE = '2025-11-01';
/** Evaluations every sparse model may still have: the old, cheap ones. */
export const SPARSE_EVALUATIONS: RawEvaluation[] = ['gpqa_diamond', 'scicode', 'hle', 'ifbench'];
/** An evaluation is run on models released up to this long before it was introduced. */
export const LOOKBACK_MS = 600 * DAY_MS;

/** Which evaluations (and omniscience) a model has; sparse models list only those keys. */
export interface Evaluated {
  done: Set<RawEvaluation | 'omniscience'>;
  sparse: boolean;
}

/** By release date against each evaluation's introduction, and luck. */
export function evaluatedSet(model: ModelSeed, imageInput: boolean, asOfMs: number, rng: Rng): Evaluated {
  const exists = (since: string) => dayMs(since) <= asOfMs;
  if (rng.chance(0.1)) {
    // About one model in ten was only run on a few quick evaluations.
    const few = rng.shuffle(SPARSE_EVALUATIONS.filter((k) => exists(EVALUATIONS[k].since))).slice(0, rng.int(1, 3));
    return { done: new Set(few), sparse: true };
  }
  const rerun = rng.chance(0.25); // an older model that stayed popular gets the newer evaluations too
  const partial = rng.chance(0.12); // some runs failed or were never finished
  const runs = (since: string) =>
    exists(since) && (rerun || model.atMs >= dayMs(since) - LOOKBACK_MS) && !(partial && rng.chance(0.35));
  const done: Evaluated['done'] = new Set();
  for (const key of RAW_EVALUATIONS)
    if (runs(EVALUATIONS[key].since) && (imageInput || !EVALUATIONS[key].vision)) done.add(key);
  if (runs(OMNISCIENCE_SINCE)) done.add('omniscience');
  return { done, sparse: false };
}

export function score(curve: ScoreCurve, capability: number, kind: FamilyKind, rng: Rng): number {
  const focus = kind === 'coder' ? (curve.coding ? 0.6 : -0.4) : 0;
  const c = capability + focus + rng.normal() * 0.25;
  const value =
    curve.lo +
    (curve.hi - curve.lo) * sigmoid(curve.slope * (c - curve.mid)) +
    rng.normal() * 0.02 * (curve.hi - curve.lo);
  return round(clamp(value, 0, curve.max), curve.max === FRACTION ? 4 : 1);
}

/** Every evaluation key with its score or null; sparse models list only what they have. */
export function evaluations(
  { done, sparse }: Evaluated,
  model: ModelSeed,
  c: number,
  rng: Rng,
): LanguageModel['evaluations'] {
  const out: LanguageModel['evaluations'] = {};
  for (const key of RAW_EVALUATIONS) {
    if (done.has(key)) out[key] = score(EVALUATIONS[key], c, model.family.kind, rng);
    else if (!sparse) out[key] = null;
  }
  return out;
}

/** Subject domains, each a little easier or harder; `total` is their mean. */
export const DOMAIN_ACCURACY_OFFSET: Record<Exclude<(typeof OMNISCIENCE_DOMAINS)[number], 'total'>, number> = {
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
export function omniscience(
  c: number,
  kind: FamilyKind,
  rng: Rng,
): NonNullable<LanguageModel['omniscience_breakdown']> {
  const calibration = rng.normal() * 0.08;
  const domains = (Object.keys(DOMAIN_ACCURACY_OFFSET) as (keyof typeof DOMAIN_ACCURACY_OFFSET)[]).map((domain) => {
    const focus = kind === 'coder' && domain === 'software_engineering' ? 0.08 : 0;
    const accuracy = clamp(
      0.05 + 0.6 * sigmoid(0.8 * (c - 1.5)) + DOMAIN_ACCURACY_OFFSET[domain] + focus + rng.normal() * 0.03,
      0.01,
      0.95,
    );
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

export interface TokenProfile {
  /** The score the counts belong to: no score, no counts. */
  from: RawEvaluation | 'omniscience';
  tasks: number;
  /** Tokens per task: prompt, answer, and thinking of a typical reasoning model. */
  input: number;
  answer: number;
  thinking: number;
}

export const TOKEN_PROFILES: Record<TokenCountEvaluation, TokenProfile> = {
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
  automationbench_platform: {
    from: 'automationbench_platform',
    tasks: 150,
    input: 50000,
    answer: 3000,
    thinking: 10000,
  },
  gdp_pdf: { from: 'gdp_pdf', tasks: 120, input: 26000, answer: 2000, thinking: 9000 },
};

/** Token counts of the evaluations a model ran; about one in twelve runs lost its counts. */
export function tokenCounts(
  { done }: Evaluated,
  reasoning: boolean,
  verbosity: number,
  rng: Rng,
): NonNullable<LanguageModel['evaluation_token_counts']> {
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
