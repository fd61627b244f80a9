/** Raw measurement records: 90 days per endpoint and prompt type, denser in the last 30. */
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
  /** Per-day multipliers: a slow drift plus day-to-day noise, shared by all prompt types. */
  speedByDay: number[];
  ttftByDay: number[];
}

/** Speed falls with active parameters (closed tiers by their estimated size), scaled by the provider's hardware. */
export function servingProfile(endpoint: EndpointDraft, rng: Rng): ServingProfile {
  const { model, provider } = endpoint;
  const speed = clamp((260 / model.variant.active ** 0.33) * provider.speed * rng.lognormal(1, 0.2), 20, 350);
  const ttft = clamp(rng.lognormal(0.45, 0.35) * provider.latency * (1 + model.variant.active / 400), 0.2, 3);
  const drift = () => {
    const slope = rng.normal() * 0.12;
    const phase = rng.uniform(0, 2 * Math.PI);
    const period = rng.uniform(20, 60);
    return Array.from({ length: MEASURED_DAYS }, (_, d) =>
      Math.exp(slope * (d / MEASURED_DAYS) + 0.04 * Math.sin(phase + (2 * Math.PI * d) / period) + rng.normal() * 0.04),
    );
  };
  return {
    speed,
    ttft,
    thinking: model.thinkingTokens,
    hidesReasoning: rng.chance(0.25),
    speedByDay: drift(),
    ttftByDay: drift(),
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

export function seriesRecords(
  profile: ServingProfile,
  promptType: PromptType,
  firstDay: number,
  rng: Rng,
): MeasurementRecord[] {
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
export function measurementsFile(
  options: SampleOptions,
  provider: ProviderDraft,
  endpoints: EndpointDraft[],
): MeasurementsFile {
  const firstDay = dayMs(options.asOf) - (MEASURED_DAYS - 1) * DAY_MS;
  return {
    provider_id: provider.record.id,
    series: endpoints.flatMap((endpoint) => {
      const rng = new Rng(options.seed, `measurements/${endpoint.record.id}`);
      const profile = servingProfile(endpoint, rng);
      return PROMPT_TYPES.map((prompt_type) => ({
        endpoint_id: endpoint.record.id,
        prompt_type,
        records: seriesRecords(profile, prompt_type, firstDay, rng),
      }));
    }),
  };
}
