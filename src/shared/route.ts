/**
 * What a route of the API is (its parameters, how it is answered, who may call it) and the name
 * of each precomputed body. The table of routes itself is src/shared/routes.ts.
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
 * - `changes`: joined at request time from the build's history, one stored text per build
 *   listed (src/shared/manifest.ts, HistoryParts);
 * - `history`: a model's history, joined at request time from its stored text;
 * - `critpt`: forwarded to the upstream grader;
 * - `mcp`: the MCP endpoint (src/mcp/), whose tools call the data routes;
 * - `front-door`: a precomputed body in the format the client prefers (JSON or HTML);
 * - `health`, `ready`, `metrics`: the server's own state, for operators.
 */
export type AnswerKind =
  | 'snapshot'
  | 'fragments'
  | 'changes'
  | 'history'
  | 'critpt'
  | 'mcp'
  | 'front-door'
  | 'health'
  | 'ready'
  | 'metrics';

/** Joined at request time from the texts of the build's history (and so with an ETag, a 304 and a 406). */
export function isJoined(route: Route): boolean {
  return route.answer === 'changes' || route.answer === 'history';
}

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

export const ANY_TIER: readonly Tier[] = TIERS;
export const PRO_TIERS: readonly Tier[] = ['pro', 'commercial'];
export const COMMERCIAL_ONLY: readonly Tier[] = ['commercial'];

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
  // A key parameter without a default (`since`) is empty when not given.
  for (const name of route.keyParams) key += ` ${name}=${String(params[name] ?? '')}`;
  if (route.optionParams) for (const name of route.optionParams) if (params[name] === true) key += ` ${name}=on`;
  if (slug !== undefined) key += ` slug=${slug}`;
  return key;
}
