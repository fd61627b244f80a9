/**
 * What a request target means, apart from the key that asks: its route, its slug, its query
 * values and the entry name of its body for each tier. All of it is a pure function of the
 * method and the target, and clients ask for the same few targets over and over, so reads
 * (GET and HEAD) are remembered per target, bounded: matching, query validation and building
 * the entry name run once per target instead of once per request (BENCHMARKS.md, "Throughput").
 */
import { RecentMap } from '../lib/recent-map.ts';
import type { QueryValidator, QueryValues } from './query.ts';
import { parseTarget, type Router } from './router.ts';
import { entryName, type Route, type Tier } from '../shared/routes.ts';

/** Targets remembered per generation (two generations), and the longest remembered. */
const PLANS = 2048;
const PLAN_TARGET_LENGTH = 512;

export class Plan {
  private params: QueryValues | undefined;
  private readonly names: Partial<Record<Tier, string>> = {};

  constructor(
    readonly route: Route,
    readonly slug: string | undefined,
    /** The raw query string, as the client sent it. */
    readonly query: string,
    private readonly queries: QueryValidator,
  ) {}

  /** The query's values, defaults filled in; a 400 when invalid (checked after the key, as the pipeline orders it). */
  values(): QueryValues {
    // Frozen: every request with this target shares the object.
    return (this.params ??= Object.freeze(this.queries.parse(this.route, this.query)));
  }

  /** The entry name of this target's body for a tier. */
  entryName(tier: Tier): string {
    return (this.names[tier] ??= entryName(this.route, tier, this.values(), this.slug));
  }
}

/**
 * Check the plan's query, for its 400 alone: the values are parsed (and kept) on the way. The
 * pipeline calls it where a bad query must be refused, after the key's 401 and 403s.
 */
export function validateQuery(plan: Plan): void {
  plan.values();
}

export class RequestPlans {
  private readonly recent = new RecentMap<string, Plan>(PLANS);

  constructor(
    private readonly router: Router,
    private readonly queries: QueryValidator,
  ) {}

  /** The plan of a request: 414, 400, 404 or 405 as parseTarget and the router decide. */
  plan(method: string, target: string): Plan {
    const remembered = (method === 'GET' || method === 'HEAD') && target.length <= PLAN_TARGET_LENGTH;
    let plan = remembered ? this.recent.get(target) : undefined;
    if (plan) return plan;
    const { path, query } = parseTarget(target);
    const { route, slug } = this.router.match(method, path);
    plan = new Plan(route, slug, query, this.queries);
    // Only targets that matched are remembered, so a scan of unknown paths leaves nothing behind.
    if (remembered) this.recent.set(target, plan);
    return plan;
  }
}
