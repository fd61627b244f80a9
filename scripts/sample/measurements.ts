/**
 * Raw measurement records: 90 days per endpoint and prompt type, denser in the last 30. With
 * `--day K` the window has moved on K days: the same records for the days both windows hold,
 * and K more days, each drawn from its own stream, so every day's data extends the day before's.
 */
import { round } from '../../build/derive/stats.ts';
import { Rng } from './rng.ts';
import type { MeasurementRecord, MeasurementsFile } from '../../build/types.ts';
import { PROMPT_TYPES, type PromptType } from '../../src/shared/routes.ts';
import type { SampleOptions } from './options.ts';
import { DAY_MS, clamp, dayMs } from './world.ts';
import type { EndpointDraft, ProviderDraft } from './providers.ts';

/** Days of measurements ending at the as-of date; the last ones are measured three times a day. */
export const MEASURED_DAYS = 90;
export const DENSE_DAYS = 30;
export const DENSE_PER_DAY = 3;
export const FAILURE_RATE = 0.02;

/** How each prompt type shifts speed and time to first token, relative to `medium`. */
export const PROMPT_EFFECTS: Record<PromptType, { speed: number; ttftScale: number; ttftAdd: number }> = {
  medium: { speed: 1, ttftScale: 1, ttftAdd: 0 },
  long: { speed: 0.95, ttftScale: 1.5, ttftAdd: 0.25 },
  '100k': { speed: 0.8, ttftScale: 4, ttftAdd: 1.8 },
  vision_single_image: { speed: 0.97, ttftScale: 1.4, ttftAdd: 0.35 },
  medium_coding: { speed: 1.03, ttftScale: 1, ttftAdd: 0.02 },
  medium_parallel: { speed: 0.7, ttftScale: 1.25, ttftAdd: 0.05 },
};

export interface ServingProfile {
  /** Median output tokens per second and seconds to first token, for `medium` prompts. */
  speed: number;
  ttft: number;
  /** Thinking tokens before the answer (0 for non-reasoning models). */
  thinking: number;
  /** Some APIs do not stream reasoning: the first token seen is the first answer token. */
  hidesReasoning: boolean;
  /**
   * Per-day multipliers: a slow drift plus day-to-day noise, shared by all prompt types. One per
   * measured day of the as-of date's window, then one per later day.
   */
  speedByDay: number[];
  ttftByDay: number[];
}

/**
 * Speed falls with active parameters (closed tiers by their estimated size), scaled by the
 * provider's hardware. `laterDay(day, what)` gives the stream of a day after the window's last.
 */
export function servingProfile(
  endpoint: EndpointDraft,
  rng: Rng,
  laterDays = 0,
  laterDay: (day: number, what: string) => Rng = () => rng,
): ServingProfile {
  const { model, provider } = endpoint;
  const speed = clamp((260 / model.variant.active ** 0.33) * provider.speed * rng.lognormal(1, 0.2), 20, 350);
  const ttft = clamp(rng.lognormal(0.45, 0.35) * provider.latency * (1 + model.variant.active / 400), 0.2, 3);
  const drift = (what: string) => {
    const slope = rng.normal() * 0.12;
    const phase = rng.uniform(0, 2 * Math.PI);
    const period = rng.uniform(20, 60);
    const at = (d: number, noise: number) =>
      Math.exp(slope * (d / MEASURED_DAYS) + 0.04 * Math.sin(phase + (2 * Math.PI * d) / period) + noise * 0.04);
    const byDay = Array.from({ length: MEASURED_DAYS }, (_, d) => at(d, rng.normal()));
    for (let day = 1; day <= laterDays; day++) byDay.push(at(MEASURED_DAYS - 1 + day, laterDay(day, what).normal()));
    return byDay;
  };
  return {
    speed,
    ttft,
    thinking: model.thinkingTokens,
    hidesReasoning: rng.chance(0.25),
    speedByDay: drift('speed'),
    ttftByDay: drift('ttft'),
  };
}

/** Times of one day's measurements: one at a random time, or one in each third of the day. */
export function measurementTimes(dayStart: number, perDay: number, rng: Rng): number[] {
  const slot = DAY_MS / perDay;
  return Array.from({ length: perDay }, (_, k) => dayStart + k * slot + Math.floor(rng.next() * slot));
}

export function failedRecord(timestamp: string, ttft: number, rng: Rng): MeasurementRecord {
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

/** One day's records: `d` counts days from the first of the as-of date's window. */
function dayRecords(
  profile: ServingProfile,
  promptType: PromptType,
  dayStart: number,
  d: number,
  perDay: number,
  rng: Rng,
): MeasurementRecord[] {
  const effect = PROMPT_EFFECTS[promptType];
  const records: MeasurementRecord[] = [];
  for (const at of measurementTimes(dayStart, perDay, rng)) {
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
  return records;
}

/**
 * The records of the window that ends `laterDays` after the as-of date's: the as-of window's
 * (all drawn from `rng`, in order, whichever are kept) without its first `laterDays` days, then
 * each later day's, measured as often as the last days are, from the day's own stream.
 */
export function seriesRecords(
  profile: ServingProfile,
  promptType: PromptType,
  firstDay: number,
  rng: Rng,
  laterDays = 0,
  laterDay: (day: number, what: string) => Rng = () => rng,
): MeasurementRecord[] {
  const records: MeasurementRecord[] = [];
  for (let d = 0; d < MEASURED_DAYS; d++) {
    const perDay = d >= MEASURED_DAYS - DENSE_DAYS ? DENSE_PER_DAY : 1;
    const day = dayRecords(profile, promptType, firstDay + d * DAY_MS, d, perDay, rng);
    if (d >= laterDays) records.push(...day);
  }
  for (let day = 1; day <= laterDays; day++) {
    const d = MEASURED_DAYS - 1 + day;
    records.push(
      ...dayRecords(profile, promptType, firstDay + d * DAY_MS, d, DENSE_PER_DAY, laterDay(day, promptType)),
    );
  }
  return records;
}

/** One provider's measurements file. Each endpoint draws from its own stream, keyed by its id. */
export function measurementsFile(
  options: SampleOptions,
  provider: ProviderDraft,
  endpoints: EndpointDraft[],
): MeasurementsFile {
  const firstDay = dayMs(options.asOf) - (MEASURED_DAYS - 1) * DAY_MS;
  return {
    provider_id: provider.record.id,
    series: endpoints.flatMap((endpoint) => {
      const label = `measurements/${endpoint.record.id}`;
      const rng = new Rng(options.seed, label);
      const laterDay = (day: number, what: string) => new Rng(options.seed, `${label}/day ${day}/${what}`);
      const profile = servingProfile(endpoint, rng, options.day, laterDay);
      return PROMPT_TYPES.map((prompt_type) => ({
        endpoint_id: endpoint.record.id,
        prompt_type,
        records: seriesRecords(profile, prompt_type, firstDay, rng, options.day, laterDay),
      }));
    }),
  };
}
