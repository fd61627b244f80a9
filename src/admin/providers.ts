/**
 * Grants are checked against the snapshot the server is serving now, as the keys command checks
 * them against the one `current` names: a grant for a provider the snapshot lacks could never be
 * used, so it is refused with the nearest served name.
 */
import { closestName } from '../shared/closest-name.ts';
import { PROVIDER_SLUG_PATTERN } from '../keys/record.ts';
import { HttpError } from '../http/error.ts';
export type { ServedProviders } from '../key-admin/served-providers.ts';
import type { ServedProviders } from '../key-admin/served-providers.ts';

export function checkProviders(served: ServedProviders, slugs: readonly string[]): void {
  for (const slug of slugs) {
    if (served.slugs.has(slug)) continue;
    const meant = PROVIDER_SLUG_PATTERN.test(slug) ? closestName(slug, served.slugs) : null;
    throw new HttpError(400, 'Unknown provider', {
      details: {
        provider: slug,
        snapshot: served.buildId,
        ...(meant ? { did_you_mean: meant } : {}),
        providers: served.slugs.size,
      },
    });
  }
}
