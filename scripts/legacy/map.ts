/**
 * Mapping a saved body of the legacy route `GET /api/v2/data/llms/models` onto this service's
 * datasets. Pure functions: validation of the body, and the records it stands for. The
 * upstream's identifiers carry the operator's name (`artificial_analysis_…`); here they are
 * `platform_…`. Zeros the upstream reports for unmeasured speeds and unpriced models are
 * "not measured": null, never zero.
 */
import { createAjv } from '../../src/shared/ajv.ts';
import { uuidFrom } from '../../build/derive/ids.ts';
import type { Problem } from '../../build/problems.ts';
import { describeAjvError } from '../../build/load/validate.ts';
import type { LanguageModel, MeasurementRecord, ModelCreator, Provider, ProviderEndpoint } from '../../build/types.ts';

const number = { type: ['number', 'null'] };

export const legacyBodySchema = {
  type: 'object',
  required: ['data'],
  properties: {
    status: { type: 'integer' },
    prompt_options: { type: 'object' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'id',
          'name',
          'slug',
          'model_creator',
          'evaluations',
          'pricing',
          'median_output_tokens_per_second',
          'median_time_to_first_token_seconds',
          'median_time_to_first_answer_token',
        ],
        properties: {
          id: { type: 'string', format: 'uuid' },
          name: { type: 'string', minLength: 1 },
          slug: { type: 'string', minLength: 1 },
          release_date: { type: ['string', 'null'], format: 'date' },
          model_creator: {
            type: 'object',
            required: ['id', 'name', 'slug'],
            properties: {
              id: { type: 'string', format: 'uuid' },
              name: { type: 'string', minLength: 1 },
              slug: { type: 'string', minLength: 1 },
            },
          },
          evaluations: { type: 'object', additionalProperties: number },
          pricing: {
            type: 'object',
            required: ['price_1m_input_tokens', 'price_1m_output_tokens'],
            properties: {
              price_1m_blended_3_to_1: number,
              price_1m_input_tokens: number,
              price_1m_output_tokens: number,
            },
          },
          median_output_tokens_per_second: number,
          median_time_to_first_token_seconds: number,
          median_time_to_first_answer_token: number,
        },
      },
    },
  },
};

export interface LegacyItem {
  id: string;
  name: string;
  slug: string;
  release_date?: string | null;
  model_creator: { id: string; name: string; slug: string };
  evaluations: Record<string, number | null>;
  pricing: { price_1m_input_tokens: number | null; price_1m_output_tokens: number | null };
  median_output_tokens_per_second: number | null;
  median_time_to_first_token_seconds: number | null;
  median_time_to_first_answer_token: number | null;
}

/** Upstream evaluation key -> where it goes here; a key not listed has no counterpart and is skipped. */
export const EVALUATION_MAP: Readonly<Record<string, { published: string } | { evaluation: string }>> = {
  artificial_analysis_intelligence_index: { published: 'platform_intelligence_index' },
  artificial_analysis_coding_index: { published: 'platform_coding_index' },
  artificial_analysis_math_index: { published: 'platform_math_index' },
  gpqa: { evaluation: 'gpqa_diamond' },
  lcr: { evaluation: 'platform_lcr' },
  tau2: { evaluation: 'tau2_telecom' },
  hle: { evaluation: 'hle' },
  scicode: { evaluation: 'scicode' },
  ifbench: { evaluation: 'ifbench' },
  terminalbench_hard: { evaluation: 'terminalbench_hard' },
  terminalbench_v2_1: { evaluation: 'terminalbench_v2_1' },
  tau_banking: { evaluation: 'tau_banking' },
  mmlu_pro: { evaluation: 'mmlu_pro' },
  livecodebench: { evaluation: 'livecodebench' },
  math_500: { evaluation: 'math_500' },
  aime: { evaluation: 'aime' },
  aime_25: { evaluation: 'aime_25' },
};

/** Check the body; every problem names the record (slug) and the field as a JSON pointer. */
export function validateLegacyBody(file: string, body: unknown): Problem[] {
  const validate = createAjv({ allErrors: true, strict: false, verbose: true }).compile(legacyBodySchema);
  if (validate(body)) return [];
  const items = (body as { data?: { slug?: unknown }[] })?.data;
  return (validate.errors ?? []).map((e) => {
    const index = Number(e.instancePath.split('/')[2]);
    const slug = Array.isArray(items) && Number.isInteger(index) ? items[index]?.slug : undefined;
    // Described as the build describes the data folder's errors: the value received, the field meant.
    const { pointer, message } = describeAjvError(e, body);
    return {
      file,
      record: typeof slug === 'string' ? slug : Number.isInteger(index) ? `item ${index}` : undefined,
      pointer,
      message,
    };
  });
}

/** Zero means "not measured" upstream. */
const measured = (v: number | null) => (v === null || v === 0 ? null : v);

export interface Mapped {
  creators: ModelCreator[];
  /** The fields the import sets on a model; the rest stay as they are (or get defaults when new). */
  models: (Pick<LanguageModel, 'id' | 'name' | 'slug' | 'creator_id' | 'release_date' | 'evaluations'> & {
    published_indices: Record<string, number | null>;
  })[];
  providers: Provider[];
  endpoints: ProviderEndpoint[];
  /** Records reproducing the dump's medians, by endpoint (prompt type `medium`); empty when unmeasured upstream. */
  records: Map<string, MeasurementRecord[]>;
  /**
   * First-party endpoints of models now neither priced nor measured upstream: an earlier import's
   * prices and records go.
   */
  retired: string[];
  /** Upstream evaluation keys with no counterpart here, and how often they had a value. */
  skipped: Map<string, number>;
}

/** The first-party provider standing for a creator's own API. */
export function firstPartyProvider(creator: ModelCreator): Provider {
  return { id: uuidFrom(`first-party provider|${creator.id}`), slug: creator.slug, name: creator.name, country: null };
}

const HOUR_MS = 3_600_000;

/**
 * The records of one measured model: three identical measurements, the last at `at` and the
 * others an hour and two before it, so every median is the dump's.
 */
export function reproducingRecords(item: LegacyItem, at: number): MeasurementRecord[] {
  const speed = measured(item.median_output_tokens_per_second);
  if (speed === null) return [];
  const ttft = measured(item.median_time_to_first_token_seconds);
  const ttfat = measured(item.median_time_to_first_answer_token);
  if (ttft === null || ttfat === null) return [];
  return [2, 1, 0].map((hoursBefore) => ({
    timestamp: new Date(at - hoursBefore * HOUR_MS).toISOString(),
    success: true,
    output_tokens_per_second: speed,
    time_to_first_token_seconds: ttft,
    time_to_first_answer_token_seconds: ttfat,
  }));
}

/** `recordsAt`: when the reproducing records are taken (milliseconds since the epoch). */
export function mapLegacyBody(items: readonly LegacyItem[], recordsAt: number): Mapped {
  const creators = new Map<string, ModelCreator>();
  const providers = new Map<string, Provider>();
  const out: Mapped = {
    creators: [],
    models: [],
    providers: [],
    endpoints: [],
    records: new Map(),
    retired: [],
    skipped: new Map(),
  };
  for (const item of items) {
    const creator: ModelCreator = {
      id: item.model_creator.id,
      slug: item.model_creator.slug,
      name: item.model_creator.name,
      country: null,
    };
    creators.set(creator.id, creator);
    const evaluations: Record<string, number | null> = {};
    const published: Record<string, number | null> = {};
    for (const [key, value] of Object.entries(item.evaluations)) {
      const target = EVALUATION_MAP[key];
      if (!target) {
        if (value !== null) out.skipped.set(key, (out.skipped.get(key) ?? 0) + 1);
        continue;
      }
      if ('published' in target) published[target.published] = value;
      else evaluations[target.evaluation] = value;
    }
    out.models.push({
      id: item.id,
      name: item.name,
      slug: item.slug,
      creator_id: creator.id,
      release_date: item.release_date ?? null,
      evaluations,
      published_indices: published,
    });

    const input = measured(item.pricing.price_1m_input_tokens);
    const output = measured(item.pricing.price_1m_output_tokens);
    const records = reproducingRecords(item, recordsAt);
    const provider = providers.get(creator.id) ?? firstPartyProvider(creator);
    const endpointId = uuidFrom(`first-party endpoint|${item.id}|${provider.id}`);
    if (input === null && output === null && records.length === 0) {
      out.retired.push(endpointId);
      continue;
    }
    providers.set(creator.id, provider);
    const endpoint: ProviderEndpoint = {
      id: endpointId,
      model_id: item.id,
      provider_id: provider.id,
      price_1m_input_tokens: input,
      price_1m_output_tokens: output,
      price_1m_cache_hit_tokens: null,
      price_1m_cache_write_tokens: null,
      context_window_tokens: null,
    };
    out.endpoints.push(endpoint);
    out.records.set(endpoint.id, records);
  }
  out.creators = [...creators.values()];
  out.providers = [...providers.values()];
  return out;
}
