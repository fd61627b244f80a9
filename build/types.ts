/** Types of the datasets in `data/`, as the schemas in `schemas/datasets.ts` admit them. */
import type { PromptType } from '../src/shared/routes.ts';
import type { LegacyEvaluation, RawEvaluation, TokenCountEvaluation } from './fields.ts';

export interface ModelCreator {
  id: string;
  slug: string;
  name: string;
  country: string | null;
}

export type Provider = ModelCreator;

export interface TokenCounts {
  input_tokens: number;
  answer_tokens: number;
  reasoning_tokens: number;
}

export interface OmniscienceScores {
  accuracy: number;
  omniscience: number;
  hallucination_rate: number;
}

export interface LanguageModel {
  id: string;
  slug: string;
  name: string;
  creator_id: string;
  release_date: string | null;
  reasoning_model: boolean;
  evaluations: Partial<Record<RawEvaluation | LegacyEvaluation, number | null>>;
  /** Composite index values published elsewhere, used as given instead of computed. */
  published_indices?: Partial<Record<string, number | null>>;
  evaluation_token_counts?: Partial<Record<TokenCountEvaluation, TokenCounts>>;
  /** `total` always; a domain that was not measured is null. */
  omniscience_breakdown?: ({ total: OmniscienceScores } & Record<string, OmniscienceScores | null>) | null;
  openness?: Record<string, number> | null;
  parameters: { total: number | null; active: number | null };
  modalities: { input: Record<string, boolean>; output: Record<string, boolean> };
  licensing: { is_open_weights: boolean };
  context_window_tokens?: number | null;
  weights_hub_url?: string | null;
  router_api_id?: string | null;
}

export interface ProviderEndpoint {
  id: string;
  model_id: string;
  provider_id: string;
  price_1m_input_tokens: number | null;
  price_1m_output_tokens: number | null;
  price_1m_cache_hit_tokens: number | null;
  price_1m_cache_write_tokens: number | null;
  context_window_tokens: number | null;
}

export interface MeasurementRecord {
  id?: string;
  timestamp: string;
  success: boolean;
  output_tokens_per_second: number | null;
  time_to_first_token_seconds: number | null;
  time_to_first_answer_token_seconds: number | null;
  end_to_end_response_time_seconds?: number | null;
}

export interface MeasurementSeries {
  endpoint_id: string;
  prompt_type: PromptType;
  records: MeasurementRecord[];
}

export interface MeasurementsFile {
  provider_id: string;
  series: MeasurementSeries[];
}

/** Measurement records held as typed-array columns (a fraction of the heap of objects), sorted by time. */
export interface SeriesColumns {
  readonly length: number;
  /** Milliseconds since the epoch, ascending. */
  readonly time: Float64Array;
  readonly speed: Float64Array;
  readonly ttft: Float64Array;
  readonly ttfat: Float64Array;
  /** End-to-end time when the data gives one (NaN: estimate it). */
  readonly e2e: Float64Array;
  readonly success: Uint8Array;
  /** Record ids the data gives, by index; null when it gives none. */
  readonly ids: readonly (string | undefined)[] | null;
}

/** One endpoint's records for one prompt type, as columns sorted by time. */
export interface SeriesOfColumns {
  endpoint_id: string;
  prompt_type: PromptType;
  columns: SeriesColumns;
}

export interface IndexComponent {
  id: string;
  /** JSON pointer into a language model record. */
  score: string;
  weight: number;
  min: number;
  max: number;
  tasks?: number;
}

export interface IndexDefinitions {
  intelligence_index: {
    key: string;
    version: string;
    components: IndexComponent[];
    subsets: { key: string; components: string[] }[];
  };
  capability_indices: { version: string; indices: { key: string; components: IndexComponent[] }[] };
  openness_index: { key: string; version: string; components: IndexComponent[] };
  /** The legacy route's math index; without it only published values are reported. */
  math_index?: { key: string; version: string; components: IndexComponent[] };
}

/** Everything the build reads, validated and cross-checked. */
export interface Dataset {
  creators: ModelCreator[];
  models: LanguageModel[];
  providers: Provider[];
  endpoints: ProviderEndpoint[];
  /** Every series of every measurements file, as columns sorted by time. */
  series: SeriesOfColumns[];
  indices: IndexDefinitions;
  /** Media arena entries by arena (`text-to-image`, `music/instrumental`, ...); absent arenas are not built. */
  media: Record<string, MediaEntry[]>;
  /** Problem ids a CritPt batch must cover, each exactly once. */
  critptProblems: string[];
}

/** Elo in one category (image, video: with its kind) or one genre (music). */
export interface CategoryScore {
  kind?: 'style' | 'subject_matter' | 'format';
  label: string;
  elo: number;
  ci_95: number | null;
  samples: number;
}

/** One entry of a media arena dataset; which fields are present depends on the arena family. */
export interface MediaEntry {
  id: string;
  name: string;
  slug: string;
  creator_id: string;
  release_date: string | null;
  elo?: number;
  ci_95?: number | null;
  samples?: number;
  superseded_by?: string | null;
  first_party?: boolean;
  price_per_1k_images?: number | null;
  price_per_minute?: number | null;
  price_per_1m_characters?: number | null;
  open_weights_url?: string | null;
  categories?: CategoryScore[];
  genres?: CategoryScore[];
  bba_score?: number | null;
  fdb_score?: number | null;
  open_weights?: boolean | null;
  providers?: MediaProviderEntry[];
}

export interface MediaProviderEntry {
  provider_id: string;
  price_per_hour_input?: number | null;
  price_per_hour_output?: number | null;
  time_to_first_audio_seconds?: number | null;
  tau_voice_score?: number | null;
  price_per_1k_minutes?: number | null;
  median_speed_factor?: number | null;
  platform_agenttalk?: number | null;
  voxpopuli_cleaned_platform?: number | null;
  earnings_22_cleaned_platform?: number | null;
}
