/**
 * The providers the served snapshot answers for: the slugs whose measurements it holds (the
 * fragments of the measurements route), read from `<snapshot>/current/manifest.json`. The keys
 * command checks a grant against them, as the server would answer the route.
 */
import { readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { KeyStoreError } from '../keys/record.ts';
import { CURRENT_LINK, readManifest, type Manifest } from '../shared/manifest.ts';
import { closestName } from '../shared/closest-name.ts';
import { errorCode } from '../lib/error-code.ts';

const MEASUREMENTS_ROUTE = 'language.provider.measurements';

export interface ServedProviders {
  buildId: string;
  slugs: ReadonlySet<string>;
}

/** The current build's providers; throws an Error saying what is missing when there is no readable build. */
export function servedProviders(snapshotDir: string): ServedProviders {
  const link = join(snapshotDir, CURRENT_LINK);
  let manifest: Manifest;
  try {
    manifest = readManifest(join(snapshotDir, readlinkSync(link)));
  } catch (error) {
    throw new Error(`cannot read the served snapshot at ${link} (${errorCode(error)})`, { cause: error });
  }
  return providersOf(manifest);
}

/** A build's providers, from its manifest (the server's admin API reads the one it serves). */
export function providersOf(manifest: Manifest): ServedProviders {
  const slugs = new Set<string>();
  for (const key of Object.keys(manifest.fragments)) {
    const match = / slug=(\S+)$/.exec(key);
    if (key.startsWith(`${MEASUREMENTS_ROUTE} `) && match) slugs.add(match[1]);
  }
  return { buildId: manifest.build_id, slugs };
}

/**
 * A grant names a provider the served snapshot answers for, or the key could never use it:
 * refused (KeyStoreError) otherwise. With `force` a slug the snapshot lacks (a provider the next
 * build adds), or a snapshot that cannot be read, is only warned about.
 */
export function checkServed(
  slugs: readonly string[],
  options: { snapshotDir: string; force: boolean },
  warn: (text: string) => void,
): void {
  if (slugs.length === 0) return;
  let served: ServedProviders;
  try {
    served = servedProviders(options.snapshotDir);
  } catch (error) {
    if (!options.force)
      throw new KeyStoreError(
        `${(error as Error).message}; cannot check the provider (pass --snapshot DIR, or --force to grant unchecked)`,
      );
    warn(`${(error as Error).message}; granting unchecked (--force)`);
    return;
  }
  for (const slug of slugs) {
    if (served.slugs.has(slug)) continue;
    const missing = `provider ${slug} is not in the served snapshot ${served.buildId} (${options.snapshotDir})`;
    if (options.force) {
      warn(`${missing}; granted anyway (--force)`);
      continue;
    }
    const known = [...served.slugs].sort();
    const meant = closestName(slug, known);
    const listed = known.length > 10 ? `${known.slice(0, 10).join(', ')}, ... (${known.length})` : known.join(', ');
    throw new KeyStoreError(
      `${missing}; ${meant ? `did you mean ${meant}?` : `it has ${listed || 'none'}.`} Use --force to grant it ` +
        `anyway (a provider a coming build adds)`,
    );
  }
}
