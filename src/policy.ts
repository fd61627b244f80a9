/**
 * Access policy: what a key may do, decided in one place from the route table's flags and the
 * key's record. Pure functions; the server calls them after authentication, and throws what
 * they refuse. Whose requests are counted together (scopes) and how many (limits) live here too.
 */
import type { ServerOptions } from './config.ts';
import { oneMonthBefore } from './shared/dates.ts';
import { HttpError } from './http/error.ts';
import type { KeyRecord } from './keys/store.ts';
import { lowestTier, type Route, type Tier } from './shared/routes.ts';

const TIER_NAMES: Record<Tier, string> = { free: 'Free', pro: 'Pro', commercial: 'Commercial' };

type Scoped = Pick<KeyRecord, 'id' | 'scope' | 'org' | 'user'>;

/** The id under which the data quota counts this key's requests; regeneration keeps it. */
export function quotaScope(record: Pick<KeyRecord, 'scope' | 'org' | 'user'>): string {
  return record.scope === 'org' ? `org:${record.org}` : `user:${record.org}/${record.user}`;
}

/**
 * CritPt counts per user, whatever the key's data scope: every key of one user in one org shares
 * a counter. A key with no user stands for a user of its own (by its id, which regeneration
 * keeps), so user-less keys never share a counter with each other or with a user named `null`.
 */
export function critptScope(record: Scoped): string {
  return record.user === null ? `key:${record.id}` : `user:${record.org}/${record.user}`;
}

/** Requests per window of the data quota for this key. */
export function dataLimit(key: Pick<KeyRecord, 'tier' | 'quota'>, limits: ServerOptions['limits']): number {
  if (key.tier === 'commercial') return key.quota ?? limits.commercialDefault;
  return key.tier === 'pro' ? limits.pro : limits.free;
}

/**
 * What the route asks of the key itself, checked right after authentication: a tier the route
 * admits (403 naming the tier it needs), and CritPt approval where the route needs it (403
 * saying where to ask).
 */
export function admitKey(route: Route, key: KeyRecord, critptContact: string): void {
  if (!route.tiers.includes(key.tier)) {
    const needed = lowestTier(route);
    throw new HttpError(403, `${TIER_NAMES[needed]} access required`, { required_tier: needed, tier: key.tier });
  }
  if (route.needsCritptApproval && !key.critpt) {
    throw new HttpError(
      403,
      `CritPt grading access is not granted to this key. Request approval by e-mail to ${critptContact} from an institutional address, naming the account e-mail that holds the key and the research use; approval is free.`,
      { contact: critptContact },
    );
  }
}

/**
 * What the route asks of the key for one provider, checked once the provider is known to exist
 * (so an unknown slug is a 404 for everyone): an explicit grant where the route needs one.
 */
export function admitProvider(route: Route, key: KeyRecord, slug: string): void {
  if (route.needsProviderGrant && !key.grants.includes(slug)) {
    throw new HttpError(403, `This key has no grant for provider ${slug}'s measurements; ask the operator for one`, { provider: slug });
  }
}

/** The first day of measurements served: as asked, but never before one month before `now`. */
export function measurementsStartDay(asked: string | undefined, now: number): string {
  const earliest = oneMonthBefore(now);
  return asked && asked > earliest ? asked : earliest;
}
