/**
 * The query parameters routes share, each stated once for every route that takes it.
 */
import {
  DEFAULT_PROMPT_TYPE,
  MAX_PAGE,
  PERFORMANCE_INTERVALS,
  PERFORMANCE_WINDOWS,
  PROMPT_TYPES,
  type ParamSpec,
} from './route.ts';

export const page: ParamSpec = {
  type: 'integer',
  description: 'Page number, 1-indexed; past the last page the answer is an empty page.',
  default: 1,
  minimum: 1,
  maximum: MAX_PAGE,
};

export const promptType: ParamSpec = {
  type: 'string',
  description: 'Prompt type preset the performance figures are measured with.',
  enum: PROMPT_TYPES,
  default: DEFAULT_PROMPT_TYPE,
};

export const window: ParamSpec = {
  type: 'string',
  description: 'How far back the series reaches, ending at the snapshot time.',
  enum: PERFORMANCE_WINDOWS,
  default: '90d',
};

export const interval: ParamSpec = {
  type: 'string',
  description: 'Width of one series point; when omitted, 7d and 30d give daily and 90d gives weekly.',
  enum: PERFORMANCE_INTERVALS,
  defaultFrom: { param: 'window', map: { '7d': 'daily', '30d': 'daily', '90d': 'weekly' } },
};

export const since: ParamSpec = {
  type: 'string',
  description:
    'A build id (the build_id of an earlier answer): the builds after it. Without it, every build the history ' +
    'holds; an id it does not hold is a 404 naming the oldest it does.',
};

export const startDate: ParamSpec = {
  type: 'string',
  description: 'First day of records (YYYY-MM-DD); defaults to, and is clamped to, one month before the request.',
  format: 'date',
};

export const includeCategories: ParamSpec = {
  type: 'boolean',
  description: 'Add per-category Elo to each entry (Pro and Commercial keys).',
  default: false,
};

export const includeGenres: ParamSpec = {
  type: 'boolean',
  description: 'Add per-genre Elo to each entry (Pro and Commercial keys).',
  default: false,
};

export const legacyPromptLength: ParamSpec = {
  type: 'string',
  description: 'Legacy prompt length; with parallel_queries it selects a prompt type.',
  enum: ['medium', 'long', '100k'],
  default: 'medium',
};

export const legacyParallelQueries: ParamSpec = {
  type: 'integer',
  description: 'Legacy parallel queries (1, or 10 with prompt_length=medium).',
  enum: [1, 10],
  default: 1,
};

/** The front door's two faces: JSON by default, HTML when asked for (`Accept: text/html` or `format=html`). */
export const FRONT_DOOR_FORMATS = ['json', 'html'] as const;

export const frontDoorFormat: ParamSpec = {
  type: 'string',
  description: 'json (default) or html; without it, a client that accepts text/html before JSON gets html.',
  enum: FRONT_DOOR_FORMATS,
  default: 'json',
};
