/**
 * The route table: every route of the API as plain data.
 *
 * Both halves of the product read this one module. The build walks it to know which response
 * bodies to precompute (one per route, tier, key parameter values and slug); the server walks
 * it to match a request, validate its query and find the snapshot entry that answers it.
 * Nothing else decides which routes exist.
 */
import { ANY_TIER, COMMERCIAL_ONLY, PRO_TIERS, type Route, type Tier } from './route.ts';
import { mediaRoutes } from './media-routes.ts';
import {
  frontDoorFormat,
  includeCategories,
  interval,
  legacyParallelQueries,
  legacyPromptLength,
  page,
  promptType,
  since,
  startDate,
  window,
} from './route-params.ts';

// What a route is, and the names of its bodies, for the many modules that import them with the table.
export * from './route.ts';
export { FRONT_DOOR_FORMATS } from './route-params.ts';
export { MEDIA_ARENAS, mediaRouteId, type MediaArena } from './media-routes.ts';

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
      id: 'language.model.history',
      method: 'GET',
      path: '/api/v2/language/models/{slug}/history',
      summary:
        'One language model over the builds the history holds: a point wherever the Pro list of the prompt type ' +
        'changed it, with the model as that build listed it.',
      tiers: PRO_TIERS,
      query: { prompt_type: promptType },
      answer: 'history',
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

/** What changed from build to build (build/history/). */
function historyRoutes(): Route[] {
  return [
    {
      id: 'changes',
      method: 'GET',
      path: '/api/v2/changes',
      summary:
        'What changed from build to build, oldest first: models added and removed, and every changed field of the ' +
        "key's list (Free: the Free list; Pro and Commercial: the Pro list of the prompt type), paginated by build.",
      tiers: ANY_TIER,
      query: { since, prompt_type: promptType, page },
      answer: 'changes',
      keyParams: ['since', 'prompt_type', 'page'],
      paginated: true,
    },
  ];
}

/** The tier under which public bodies (the OpenAPI document) are stored in the snapshot. */
export const PUBLIC_BODY_TIER: Tier = 'free';

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
  ...historyRoutes(),
  ...operatorRoutes(),
];

export function routeById(id: string): Route {
  const route = ROUTES.find((r) => r.id === id);
  if (!route) throw new Error(`no route with id ${id}`);
  return route;
}
