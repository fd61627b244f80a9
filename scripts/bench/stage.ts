/**
 * The stage of a comparison: the bundle, a forced full build of data/ (timed), the keys, and
 * the same bodies exported as files for nginx (identity, .gz and .br side by side).
 */
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_BUILD_OPTIONS } from '../../build/build-options.ts';
import { runBuild } from '../../build/build.ts';
import { createKey } from '../../src/keys/changes.ts';
import { MANIFEST_FILE, PACK_FILE, readAllEntries, variantOf, type Manifest } from '../../src/shared/manifest.ts';
import { bundle } from '../bundle.ts';
import { ROOT } from '../processes.ts';
import { exportBody } from './nginx.ts';

export interface Stage {
  work: string;
  bundlePath: string;
  snapshotRoot: string;
  snapshotDir: string;
  state: string;
  /** nginx's root: list.json, free.json and detail/<slug>.json. */
  docroot: string;
  build: { seconds: number; entries: number };
  keys: { commercial: string; free: string };
  slugs: string[];
  providerSlugs: string[];
}

/** The identity body of a entry name, read out of the pack. */
function bodyReader(snapshotDir: string): (key: string) => Buffer {
  const manifest = JSON.parse(readFileSync(join(snapshotDir, MANIFEST_FILE), 'utf8')) as Manifest;
  const pack = readFileSync(join(snapshotDir, PACK_FILE));
  const entries = readAllEntries(snapshotDir, manifest);
  return (key) => variantOf(pack, entries.get(key)!, 'identity');
}

const slugsOf = (file: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'data', file), 'utf8')) as { slug: string }[]).map((r) => r.slug);

export async function setStage(): Promise<Stage> {
  const work = mkdtempSync(join(tmpdir(), 'bench-'));
  // nginx's worker runs as an unprivileged user and must reach the exported bodies.
  chmodSync(work, 0o755);
  const bundlePath = join(work, 'server.mjs');
  await bundle(work);
  const snapshotRoot = join(work, 'snapshot');
  const built = await runBuild({
    ...DEFAULT_BUILD_OPTIONS,
    dataDir: join(ROOT, 'data'),
    outDir: snapshotRoot,
    force: true,
    log: () => {},
  });
  const providerSlugs = slugsOf('providers.json');
  const slugs = slugsOf('language-models.json');
  const state = join(work, 'state');
  const commercial = createKey(state, {
    tier: 'commercial',
    org: 'bench',
    user: 'c',
    quota: 1_000_000_000,
    grants: providerSlugs,
  }).key;
  const free = createKey(state, { tier: 'free', org: 'bench', user: 'f' }).key;
  const pack = `pack ${(built.packBytes / 1e6).toFixed(1)} MB`;
  console.log(`built the sample in ${built.seconds} s (${built.entries} entries, ${pack}); work folder ${work}`);

  const readBody = bodyReader(built.snapshotDir);
  const docroot = join(work, 'www');
  exportBody(join(docroot, 'list.json'), readBody('language.models commercial prompt_type=long page=1'));
  exportBody(join(docroot, 'free.json'), readBody('language.models.free free page=1'));
  for (const slug of slugs)
    exportBody(
      join(docroot, 'detail', `${slug}.json`),
      readBody(`language.model commercial prompt_type=long slug=${slug}`),
    );
  return {
    work,
    bundlePath,
    snapshotRoot,
    snapshotDir: built.snapshotDir,
    state,
    docroot,
    build: { seconds: built.seconds, entries: built.entries },
    keys: { commercial, free },
    slugs,
    providerSlugs,
  };
}

/**
 * The bundle and a build of the small fixture in `work`, for measurements of the server itself
 * rather than of the dataset: the snapshot folder, to pass to the bundled server.mjs in `work`.
 */
export async function smallStage(work: string): Promise<string> {
  await bundle(work);
  const snapshot = join(work, 'snapshot');
  await runBuild({
    ...DEFAULT_BUILD_OPTIONS,
    dataDir: join(ROOT, 'test/fixtures/sample-small'),
    outDir: snapshot,
    log: () => {},
  });
  return snapshot;
}
