/**
 * The keys the soak's load uses, and the routes each may read. Scopes: two keys sharing an org
 * counter, Free keys that run out, Commercial keys that do not. Orgs are named for this run, so a
 * Redis that served an earlier one holds no counts of theirs.
 */
import { creation } from '../../src/keys/changes.ts';
import type { KeyAdmin } from '../../src/key-admin/stores.ts';
import type { IssuedKey, NewKey } from '../../src/keys/record.ts';

export type LoadKey = IssuedKey & { scope: string };

export interface SoakKeys {
  load: LoadKey[];
  /** The upload attacker's key: approved for CritPt (approval is free to ask for), never counted. */
  uploader: string;
  /** Each tier's routes: what its keys may read, so the load is answers, not refusals. */
  routesOf: Record<'free' | 'pro' | 'commercial', string[]>;
}

export async function issueSoakKeys(admin: KeyAdmin, providerSlugs: string[], run: string): Promise<SoakKeys> {
  const issue = async (scope: string, input: NewKey): Promise<LoadKey> => ({
    scope: scope.replace(/:(\w+)/, `:$1-${run}`),
    ...(await admin.apply(creation({ ...input, org: `${input.org}-${run}` }))),
  });
  const load = [
    await issue('org:shared', { tier: 'pro', org: 'shared', user: 'a', scope: 'org' }),
    await issue('org:shared', { tier: 'pro', org: 'shared', user: 'b', scope: 'org' }),
    await issue('user:free/f1', { tier: 'free', org: 'free', user: 'f1' }),
    await issue('user:free/f2', { tier: 'free', org: 'free', user: 'f2' }),
    await issue('user:big/c1', {
      tier: 'commercial',
      org: 'big',
      user: 'c1',
      quota: 10_000_000,
      grants: providerSlugs,
    }),
    await issue('user:big/c2', {
      tier: 'commercial',
      org: 'big',
      user: 'c2',
      quota: 10_000_000,
      grants: providerSlugs,
    }),
  ];
  const uploader = (await issue('user:up/u', { tier: 'commercial', org: 'up', user: 'u', critpt: true })).key;
  const slug = providerSlugs[0]!;
  const free = [
    '/api/v2/language/models/free',
    '/api/v2/data/llms/models',
    '/api/v2/media/music/instrumental/models/free',
  ];
  const pro = [
    ...free,
    '/api/v2/language/models?page=1',
    '/api/v2/language/models?prompt_type=100k',
    '/api/v2/media/text-to-image/models?include_categories=true',
  ];
  const commercial = [
    ...pro,
    `/api/v2/language/providers/${slug}/measurements`,
    `/api/v2/language/providers/${slug}`,
    `/api/v2/language/providers/${slug}/performance`,
  ];
  return { load, uploader, routesOf: { free, pro, commercial } };
}
