/**
 * The providers the served snapshot answers for: the slugs whose measurements it holds (the
 * fragments of the measurements route), read from `<snapshot>/current/manifest.json`. The keys
 * command checks a grant against them, as the server would answer the route.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CURRENT_LINK, MANIFEST_FILE, type Manifest } from './shared/manifest.ts';

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
    manifest = JSON.parse(readFileSync(join(snapshotDir, readlinkSync(link), MANIFEST_FILE), 'utf8')) as Manifest;
  } catch (error) {
    throw new Error(`cannot read the served snapshot at ${link} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { cause: error });
  }
  const slugs = new Set<string>();
  for (const key of Object.keys(manifest.fragments)) {
    const match = / slug=(\S+)$/.exec(key);
    if (key.startsWith(`${MEASUREMENTS_ROUTE} `) && match) slugs.add(match[1]);
  }
  return { buildId: manifest.build_id, slugs };
}
