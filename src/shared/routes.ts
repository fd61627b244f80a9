/**
 * The route table: every route of the API as plain data.
 *
 * Both halves of the product read this one module. The build walks it to know which response
 * bodies to precompute (one per route, tier, key parameter values and slug); the server walks
 * it to match a request, validate its query and find the snapshot entry that answers it.
 * Nothing else decides which routes exist.
 */

export const TIERS = ['free', 'pro', 'commercial'] as const;
export type Tier = (typeof TIERS)[number];

export const PROMPT_TYPES = [
  'medium',
  'long',
  '100k',
  'vision_single_image',
  'medium_coding',
  'medium_parallel',
] as const;
export type PromptType = (typeof PROMPT_TYPES)[number];
/** The prompt type of answers that take none (the Free list) and the default of those that do. */
export const DEFAULT_PROMPT_TYPE: PromptType = 'long';

export const PERFORMANCE_WINDOWS = ['7d', '30d', '90d'] as const;
export const PERFORMANCE_INTERVALS = ['daily', 'weekly', 'monthly'] as const;

/** Largest page number a client may ask for; past the last page the answer is an empty page. */
export const MAX_PAGE = 10000;

/** One query parameter: its JSON type, allowed values and default. */
export interface ParamSpec {
  type: 'string' | 'integer' | 'boolean';
  description: string;
  enum?: readonly (string | number)[];
  default?: string | number | boolean;
  /** The default depends on another parameter's (already resolved) value. */
  defaultFrom?: { param: string; map: Readonly<Record<string, string>> };
  minimum?: number;
  maximum?: number;
  /** `date` means a real calendar date written `YYYY-MM-DD`. */
  format?: 'date';
}

/**
 * How a route is answered:
 * - `snapshot`: one precomputed body per tier, key parameter values and slug;
 * - `fragments`: assembled at request time from precomputed fragments (answers that depend on
 *   the request's own date);
 * - `critpt`: forwarded to the upstream grader;
 * - `front-door`: a precomputed body in the format the client prefers (JSON or HTML);
 * - `health`, `ready`, `metrics`: the server's own state, for operators.
 */
export type AnswerKind = 'snapshot' | 'fragments' | 'critpt' | 'front-door' | 'health' | 'ready' | 'metrics';

/** Answered with a body the build precomputed (and so with an ETag, a 304 and a 406). */
export function isPrecomputed(route: Route): boolean {
  return route.answer === 'snapshot' || route.answer === 'front-door';
}

export interface Route {
  /** Stable name; entry names, logs and metrics use it. */
  id: string;
  method: 'GET' | 'POST';
  /** Path template; `{slug}` stands for one path segment. */
  path: string;
  summary: string;
  /** Tiers whose keys this route answers with data. */
  tiers: readonly Tier[];
  query: Readonly<Record<string, ParamSpec>>;
  answer: AnswerKind;
  /** Query parameters that select a precomputed body; the rest are applied at request time. */
  keyParams: readonly string[];
  /** Lists split into pages carry a `pagination` object and take `page`. */
  paginated: boolean;
  /** For `{slug}` routes: what the slug names, used in the 404 message ("Model not found: x"). */
  slugOf?: 'Model' | 'Provider';
  /** Measurements need an explicit per-provider grant on the key. */
  needsProviderGrant?: boolean;
  /** CritPt grading needs an approved account, whatever the tier. */
  needsCritptApproval?: boolean;
  /** Needs no key, carries no tier and is never counted (the OpenAPI document, health, metrics). */
  public?: boolean;
  /** When only some combinations of parameter values exist (legacy prompt options). */
  allowedCombinations?: readonly Readonly<Record<string, string | number | boolean>>[];
  /**
   * Server options that select a precomputed body as key parameters do (the front door lists
   * /metrics only when the server serves it). The build writes a body for each; a name carries
   * ` option=on` only when the option is on, so a build made before a route had one still serves.
   */
  optionParams?: readonly ServerOption[];
}

/** The server options a body may depend on (Route.optionParams). */
export type ServerOption = 'metrics';

const ANY_TIER: readonly Tier[] = TIERS;
const PRO_TIERS: readonly Tier[] = ['pro', 'commercial'];
const COMMERCIAL_ONLY: readonly Tier[] = ['commercial'];

const page: ParamSpec = {
  type: 'integer',
  description: 'Page number, 1-indexed; past the last page the answer is an empty page.',
  default: 1,
  minimum: 1,
  maximum: MAX_PAGE,
};

const promptType: ParamSpec = {
  type: 'string',
  description: 'Prompt type preset the performance figures are measured with.',
  enum: PROMPT_TYPES,
  default: DEFAULT_PROMPT_TYPE,
};

const window: ParamSpec = {
  type: 'string',
  description: 'How far back the series reaches, ending at the snapshot time.',
  enum: PERFORMANCE_WINDOWS,
  default: '90d',
};

const interval: ParamSpec = {
  type: 'string',
  description: 'Width of one series point; when omitted, 7d and 30d give daily and 90d gives weekly.',
  enum: PERFORMANCE_INTERVALS,
  defaultFrom: { param: 'window', map: { '7d': 'daily', '30d': 'daily', '90d': 'weekly' } },
};

const startDate: ParamSpec = {
  type: 'string',
  description: 'First day of records (YYYY-MM-DD); defaults to, and is clamped to, one month before the request.',
  format: 'date',
};

const includeCategories: ParamSpec = {
  type: 'boolean',
  description: 'Add per-category Elo to each entry (Pro and Commercial keys).',
  default: false,
};

const includeGenres: ParamSpec = {
  type: 'boolean',
  description: 'Add per-genre Elo to each entry (Pro and Commercial keys).',
  default: false,
};

const legacyPromptLength: ParamSpec = {
  type: 'string',
  description: 'Legacy prompt length; with parallel_queries it selects a prompt type.',
  enum: ['medium', 'long', '100k'],
  default: 'medium',
};

const legacyParallelQueries: ParamSpec = {
  type: 'integer',
  description: 'Legacy parallel queries (1, or 10 with prompt_length=medium).',
  enum: [1, 10],
  default: 1,
};

function languageRoutes(): Route[] {
  return [
    {
      id: 'language.models.free',
      method: 'GET',
      path: '/api/v2/language/models/free',
      summary: 'Language models, Free shape, paginated.',
      tiers: ANY_TIER,
      query: { page },
      answer: 'snapshot',
      keyParams: ['page'],
      paginated: true,
    },
    {
      id: 'language.models',
      method: 'GET',
      path: '/api/v2/language/models',
      summary: 'Language models, Pro shape, paginated.',
      tiers: PRO_TIERS,
      query: { prompt_type: promptType, page },
      answer: 'snapshot',
      keyParams: ['prompt_type', 'page'],
      paginated: true,
    },
    {
      id: 'language.model',
      method: 'GET',
      path: '/api/v2/language/models/{slug}',
      summary: 'One language model with its detail-only fields; providers for Commercial keys.',
      tiers: PRO_TIERS,
      query: { prompt_type: promptType },
      answer: 'snapshot',
      keyParams: ['prompt_type'],
      paginated: false,
      slugOf: 'Model',
    },
    {
      id: 'language.model.performance',
      method: 'GET',
      path: '/api/v2/language/models/{slug}/performance',
      summary: 'Performance over time of one model, one series per provider.',
      tiers: COMMERCIAL_ONLY,
      query: { window, interval, prompt_type: promptType },
      answer: 'snapshot',
      keyParams: ['window', 'interval', 'prompt_type'],
      paginated: false,
      slugOf: 'Model',
    },
    {
      id: 'language.providers',
      method: 'GET',
      path: '/api/v2/language/providers',
      summary: 'Language model API providers with their models, paginated.',
      tiers: COMMERCIAL_ONLY,
      query: { page },
      answer: 'snapshot',
      keyParams: ['page'],
      paginated: true,
    },
    {
      id: 'language.provider',
      method: 'GET',
      path: '/api/v2/language/providers/{slug}',
      summary: 'One provider with its models, percentiles and quartiles included.',
      tiers: COMMERCIAL_ONLY,
      query: { prompt_type: promptType },
      answer: 'snapshot',
      keyParams: ['prompt_type'],
      paginated: false,
      slugOf: 'Provider',
    },
    {
      id: 'language.provider.performance',
      method: 'GET',
      path: '/api/v2/language/providers/{slug}/performance',
      summary: 'Performance over time of one provider, one series per model.',
      tiers: COMMERCIAL_ONLY,
      query: { window, interval, prompt_type: promptType },
      answer: 'snapshot',
      keyParams: ['window', 'interval', 'prompt_type'],
      paginated: false,
      slugOf: 'Provider',
    },
    {
      id: 'language.provider.measurements',
      method: 'GET',
      path: '/api/v2/language/providers/{slug}/measurements',
      summary: 'Raw measurement records of one provider since start_date, grouped by model.',
      tiers: COMMERCIAL_ONLY,
      query: { prompt_type: promptType, start_date: startDate },
      answer: 'fragments',
      keyParams: ['prompt_type'],
      paginated: false,
      slugOf: 'Provider',
      needsProviderGrant: true,
    },
  ];
}

/** The media arenas, as data: path segment, the query flag it takes, and its family. */
export const MEDIA_ARENAS = [
  { arena: 'text-to-image', family: 'image', flag: 'include_categories' },
  { arena: 'image-editing', family: 'image', flag: 'include_categories' },
  { arena: 'text-to-video', family: 'video', flag: 'include_categories' },
  { arena: 'image-to-video', family: 'video', flag: 'include_categories' },
  { arena: 'text-to-video-audio', family: 'video', flag: 'include_categories' },
  { arena: 'image-to-video-audio', family: 'video', flag: 'include_categories' },
  { arena: 'text-to-speech', family: 'text-to-speech', flag: null },
  { arena: 'speech-to-speech', family: 'speech-to-speech', flag: null },
  { arena: 'speech-to-text', family: 'speech-to-text', flag: null },
  { arena: 'music/instrumental', family: 'music', flag: 'include_genres' },
  { arena: 'music/with-vocals', family: 'music', flag: 'include_genres' },
] as const;

export type MediaArena = (typeof MEDIA_ARENAS)[number]['arena'];

/** Route id of an arena's Pro route; its Free sibling adds `.free`. */
export function mediaRouteId(arena: string): string {
  return `media.${arena.replace('/', '.')}`;
}

function mediaRoutes(): Route[] {
  return MEDIA_ARENAS.flatMap(({ arena, flag }): Route[] => {
    const path = `/api/v2/media/${arena}/models`;
    const id = mediaRouteId(arena);
    const query: Record<string, ParamSpec> =
      flag === 'include_categories'
        ? { include_categories: includeCategories }
        : flag === 'include_genres'
          ? { include_genres: includeGenres }
          : {};
    return [
      {
        id: `${id}.free`,
        method: 'GET',
        path: `${path}/free`,
        summary: `${arena} arena, Free shape.`,
        tiers: ANY_TIER,
        // Accepted (and checked) so one client URL works on both routes, but ignored here: it
        // is not a key parameter, and the Free shape has no categories or genres.
        query,
        answer: 'snapshot',
        keyParams: [],
        paginated: false,
      },
      {
        id,
        method: 'GET',
        path,
        summary: `${arena} arena, Pro shape.`,
        tiers: PRO_TIERS,
        query,
        answer: 'snapshot',
        keyParams: Object.keys(query),
        paginated: false,
      },
    ];
  });
}

/** Legacy prompt options that were measured: each names one prompt type of today's routes. */
export const LEGACY_PROMPT_OPTIONS = [
  { prompt_length: 'medium', parallel_queries: 1, prompt_type: 'medium' },
  { prompt_length: 'long', parallel_queries: 1, prompt_type: 'long' },
  { prompt_length: '100k', parallel_queries: 1, prompt_type: '100k' },
  { prompt_length: 'medium', parallel_queries: 10, prompt_type: 'medium_parallel' },
] as const;

function legacyRoutes(): Route[] {
  const arenas = ['text-to-image', 'image-editing', 'text-to-speech', 'text-to-video', 'image-to-video'] as const;
  return [
    {
      id: 'legacy.llms.models',
      method: 'GET',
      path: '/api/v2/data/llms/models',
      summary: 'Legacy language model list (older interface).',
      tiers: ANY_TIER,
      query: { prompt_length: legacyPromptLength, parallel_queries: legacyParallelQueries },
      answer: 'snapshot',
      keyParams: ['prompt_length', 'parallel_queries'],
      paginated: false,
      allowedCombinations: LEGACY_PROMPT_OPTIONS.map(({ prompt_length, parallel_queries }) => ({
        prompt_length,
        parallel_queries,
      })),
    },
    ...arenas.map((arena): Route => ({
      id: legacyArenaRouteId(arena),
      method: 'GET',
      path: `/api/v2/data/media/${arena}`,
      summary: `Legacy ${arena} arena (older interface).`,
      tiers: ANY_TIER,
      query: { include_categories: includeCategories },
      answer: 'snapshot',
      keyParams: ['include_categories'],
      paginated: false,
    })),
  ];
}

export function legacyArenaRouteId(arena: string): string {
  return `legacy.media.${arena}`;
}

function critptRoutes(): Route[] {
  return [
    {
      id: 'critpt.evaluate',
      method: 'POST',
      path: '/api/v2/critpt/evaluate',
      summary:
        'Grade a whole CritPt batch on the upstream grader. The key must be approved for CritPt by the operator (403 ' +
        'otherwise), whatever its tier.',
      tiers: ANY_TIER,
      query: {},
      answer: 'critpt',
      keyParams: [],
      paginated: false,
      needsCritptApproval: true,
    },
    {
      id: 'critpt.problems',
      method: 'GET',
      path: '/api/v2/critpt/problems',
      summary: 'The problem ids a grading batch must hold, each exactly once (any key; counted like any data route).',
      tiers: ANY_TIER,
      query: {},
      answer: 'snapshot',
      keyParams: [],
      paginated: false,
    },
  ];
}

/** The tier under which public bodies (the OpenAPI document) are stored in the snapshot. */
export const PUBLIC_BODY_TIER: Tier = 'free';

/** The front door's two faces: JSON by default, HTML when asked for (`Accept: text/html` or `format=html`). */
export const FRONT_DOOR_FORMATS = ['json', 'html'] as const;

const frontDoorFormat: ParamSpec = {
  type: 'string',
  description: 'json (default) or html; without it, a client that accepts text/html before JSON gets html.',
  enum: FRONT_DOOR_FORMATS,
  default: 'json',
};

function operatorRoutes(): Route[] {
  const common = {
    method: 'GET',
    tiers: [PUBLIC_BODY_TIER],
    query: {},
    keyParams: [],
    paginated: false,
    public: true,
  } as const;
  const frontDoor = {
    ...common,
    query: { format: frontDoorFormat },
    keyParams: ['format'],
    optionParams: ['metrics'],
    answer: 'front-door',
    summary: 'The front door: the service, the snapshot and every route with a curl example.',
  } as const;
  return [
    { ...frontDoor, id: 'index', path: '/' },
    { ...frontDoor, id: 'index.api', path: '/api/v2' },
    {
      ...common,
      id: 'openapi',
      path: '/api/v2/openapi.json',
      summary: 'This API described in OpenAPI 3.1 (generated from the route table and the response schemas).',
      answer: 'snapshot',
    },
    {
      ...common,
      id: 'healthz',
      path: '/healthz',
      summary: 'Liveness: 200 while the process answers.',
      answer: 'health',
    },
    {
      ...common,
      id: 'readyz',
      path: '/readyz',
      summary:
        'Readiness: 200 when the server can answer correctly (its build passes its checksums and can be read, its ' +
        'key store and state can be read and written), else 503 with every reason.',
      answer: 'ready',
    },
    {
      ...common,
      id: 'metrics',
      path: '/metrics',
      summary:
        'Prometheus metrics, only when the server runs with --metrics (404 otherwise); it needs no key, so keep it ' +
        'off a public proxy.',
      answer: 'metrics',
    },
  ];
}

export const ROUTES: readonly Route[] = [
  ...languageRoutes(),
  ...mediaRoutes(),
  ...legacyRoutes(),
  ...critptRoutes(),
  ...operatorRoutes(),
];

export function routeById(id: string): Route {
  const route = ROUTES.find((r) => r.id === id);
  if (!route) throw new Error(`no route with id ${id}`);
  return route;
}

/** The lowest tier a route admits, for the 403 message ("Pro access required"). */
export function lowestTier(route: Route): Tier {
  return TIERS.find((t) => route.tiers.includes(t)) ?? 'commercial';
}

/** Every value a key parameter can take, for the build's enumeration (page is data-dependent). */
export function keyParamValues(spec: ParamSpec): readonly (string | number | boolean)[] {
  if (spec.enum) return spec.enum;
  if (spec.type === 'boolean') return [false, true];
  throw new Error('a key parameter needs an enum or a boolean type (page is enumerated by the build)');
}

/** The name of one precomputed body in its route's index. Build and server both call this. */
export function entryName(route: Route, tier: Tier, params: Readonly<Record<string, unknown>>, slug?: string): string {
  let key = `${route.id} ${tier}`;
  for (const name of route.keyParams) key += ` ${name}=${String(params[name])}`;
  if (route.optionParams) for (const name of route.optionParams) if (params[name] === true) key += ` ${name}=on`;
  if (slug !== undefined) key += ` slug=${slug}`;
  return key;
}
