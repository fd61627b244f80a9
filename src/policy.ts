/**
 * Access policy: who is asking (authenticate: 401) and what their key may do (admit: 403),
 * decided in one place from the route table's flags and the key's record. The app calls them in
 * the pipeline's order and answers what they throw.
 */
import { HttpError } from './http/error.ts';
import { whenReady, type Eventually } from './lib/eventually.ts';
import { isReplacedValue, type KeyLookup, type KeyRecord } from './state/key-record.ts';
import type { Clock } from './lib/clock.ts';
import { keyState } from './keys/record.ts';
import { lowestTier, type Route, type Tier } from './shared/routes.ts';

const TIER_NAMES: Record<Tier, string> = { free: 'Free', pro: 'Pro', commercial: 'Commercial' };

/**
 * The record of the key a request presents in `x-api-key`: at once from the state folder, later
 * from a shared store. 401 when there is none, or it is not an active key (a header sent twice
 * arrives as a list and is never a key).
 */
export function authenticate(
  presented: string | string[] | undefined,
  keys: KeyLookup,
  clock: Clock,
): Eventually<KeyRecord> {
  if (presented === undefined || presented === '')
    throw new HttpError(401, 'API key is required', { details: { header: 'x-api-key' } });
  if (typeof presented !== 'string') throw invalidKey();
  return whenReady(keys.lookup(presented), (key) => {
    if (!key) throw invalidKey();
    // Decided at each request by its clock, not when the store is read: a key that expires, or a
    // replaced value whose overlap ends, fails at its next request on every server at once.
    if (!endedKey(key, clock)) return key;
    if (!keys.lookupAgain) return working(key, clock);
    return whenReady(keys.lookupAgain(presented), (now) => working(now, clock));
  });
}

/** A record found that still works now, else the 401 that says why not. */
function working(key: KeyRecord | undefined, clock: Clock): KeyRecord {
  if (!key) throw invalidKey();
  const ended = endedKey(key, clock);
  if (ended) throw ended;
  return key;
}

/** The 401 of a key past its expiry, or of a replaced value past its overlap; null for a key that works. */
export function endedKey(key: KeyRecord, clock: Clock): HttpError | null {
  if (key.expires_at === null && key.previous === null) return null; // most keys: no clock read
  const now = clock.now();
  if (keyState(key, now) === 'expired')
    return new HttpError(401, 'API key expired', {
      details: {
        header: 'x-api-key',
        expired_at: key.expires_at,
        reason: 'the key expired; ask the operator for another',
      },
    });
  if (isReplacedValue(key) && now >= Date.parse(key.previous!.until))
    return new HttpError(401, 'API key replaced', {
      details: {
        header: 'x-api-key',
        replaced_at: key.previous!.until,
        reason: "the key was regenerated and this value's overlap has ended; use the new value",
      },
    });
  return null;
}

/** The 401 of a key that is not (or no longer) an active key. */
export function invalidKey(): HttpError {
  return new HttpError(401, 'Invalid API key', { details: { header: 'x-api-key' } });
}

/**
 * What the route asks of the key itself, checked right after authentication: a tier the route
 * admits (403 naming the tier it needs), and CritPt approval where the route needs it (403
 * saying where to ask).
 */
export function admitKey(route: Route, key: KeyRecord, critptContact: string): void {
  if (!route.tiers.includes(key.tier)) {
    const needed = lowestTier(route);
    throw new HttpError(403, `${TIER_NAMES[needed]} access required`, {
      details: { required_tier: needed, tier: key.tier },
    });
  }
  if (route.needsCritptApproval && !key.critpt) {
    throw new HttpError(
      403,
      `CritPt grading access is not granted to this key. Request approval by e-mail to ${critptContact} from an ` +
        `institutional address, naming the account e-mail that holds the key and the research use; approval is free.`,
      { details: { contact: critptContact } },
    );
  }
}

/**
 * What the route asks of the key for one provider, checked once the provider is known to exist
 * (so an unknown slug is a 404 for everyone): an explicit grant where the route needs one.
 */
export function admitProvider(route: Route, key: KeyRecord, slug: string): void {
  if (route.needsProviderGrant && !key.grants.includes(slug)) {
    throw new HttpError(403, `This key has no grant for provider ${slug}'s measurements; ask the operator for one`, {
      details: { provider: slug },
    });
  }
}
