/**
 * `npm run generate:sample -- [--out DIR] [--seed N] [--as-of YYYY-MM-DD] [--day K] [--scale F]
 *  [--models N] [--creators N] [--providers N] [--arena-entries N]`
 *
 * Writes a SYNTHETIC dataset in the formats of `build/schemas/datasets.ts`: fictional creators,
 * models, providers, endpoints and 90 days of raw measurements ending at the as-of date (or K
 * days later, with `--day K`: a sequence of daily data). Every value comes from a seeded PRNG,
 * so the same seed and options give byte-identical files; with no flags it reproduces the
 * committed `data/` sample. `data/README.md` explains the fields.
 */
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { DATASET_FILES } from '../build/load/data-files.ts';
import { MEDIA_DIR } from '../build/load/media.ts';
import { mediaFile } from '../build/schemas/media.ts';
import { generateMedia } from './sample/media.ts';
import { UsageError } from '../src/shared/flags.ts';
import { versionLine } from '../src/shared/version.ts';
import { type SampleOptions, USAGE, parseSampleArgs } from './sample/options.ts';
import { generateCreators } from './sample/creators.ts';
import { generateModels } from './sample/models.ts';
import { generateEndpoints, generateProviders } from './sample/providers.ts';
import { measurementsFile } from './sample/measurements.ts';
import { changePrices, dataDate } from './sample/later-days.ts';

export { DEFAULT_OPTIONS, parseSampleArgs, type SampleOptions } from './sample/options.ts';

const REPO_DATA = fileURLToPath(new URL('../data', import.meta.url));

interface Summary {
  counts: Record<string, number>;
  bytes: Record<string, number>;
}

function writeJson(path: string, value: unknown): number {
  const bytes = Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
  writeFileSync(path, bytes);
  return bytes.length;
}

/** Stale files of an earlier run would name providers that no longer exist, so they go first. */
function clearMeasurements(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dir)) if (name.endsWith('.json') || name.endsWith('.json.gz')) rmSync(join(dir, name));
}

/** Generate every dataset and write it into `options.out`. */
export function generateSample(options: SampleOptions): Summary {
  const creators = generateCreators(options);
  const models = generateModels(options, creators);
  const providers = generateProviders(options, creators, models);
  const endpoints = generateEndpoints(options, models, providers);
  changePrices(endpoints, options);
  const media = generateMedia({
    seed: options.seed,
    asOfMs: Date.parse(`${options.asOf}T23:59:59.999Z`),
    entries: options.arenaEntries,
    providerIds: providers.map((p) => p.record.id),
    languageCreators: creators.map((c) => c.record),
  });
  // Creator slugs are unique across the one creators file, media makers included.
  const taken = new Set(creators.map((c) => c.record.slug));
  for (const creator of media.creators) {
    while (taken.has(creator.slug)) creator.slug = `${creator.slug}-media`;
    taken.add(creator.slug);
  }

  mkdirSync(options.out, { recursive: true });
  const bytes = { json: 0, measurements: 0, media: 0 };
  bytes.json += writeJson(
    join(options.out, DATASET_FILES.creators),
    [...creators.map((c) => c.record), ...media.creators].sort((a, b) => (a.name < b.name ? -1 : 1)),
  );
  bytes.json += writeJson(
    join(options.out, DATASET_FILES.models),
    models.map((m) => m.record),
  );
  bytes.json += writeJson(
    join(options.out, DATASET_FILES.providers),
    providers.map((p) => p.record),
  );
  bytes.json += writeJson(
    join(options.out, DATASET_FILES.endpoints),
    endpoints.map((e) => e.record),
  );

  const measurementsDir = join(options.out, DATASET_FILES.measurements);
  clearMeasurements(measurementsDir);
  let records = 0;
  let files = 0;
  for (const provider of providers) {
    const own = endpoints.filter((e) => e.provider === provider);
    if (own.length === 0) continue;
    const file = measurementsFile(options, provider, own);
    records += file.series.reduce((n, s) => n + s.records.length, 0);
    // Node writes a gzip header with mtime 0, so equal JSON gives equal bytes.
    const gz = gzipSync(JSON.stringify(file), { level: 9 });
    writeFileSync(join(measurementsDir, `${provider.record.slug}.json.gz`), gz);
    bytes.measurements += gz.length;
    files++;
  }

  mkdirSync(join(options.out, MEDIA_DIR), { recursive: true });
  for (const [arena, entries] of Object.entries(media.arenas))
    bytes.media += writeJson(join(options.out, mediaFile(arena)), entries);

  const indicesTarget = join(options.out, DATASET_FILES.indices);
  if (resolve(indicesTarget) !== resolve(REPO_DATA, DATASET_FILES.indices))
    copyFileSync(join(REPO_DATA, DATASET_FILES.indices), indicesTarget);

  return {
    counts: {
      creators: creators.length + media.creators.length,
      'arena entries': Object.values(media.arenas).reduce((n, e) => n + e.length, 0),
      models: models.length,
      providers: providers.length,
      endpoints: endpoints.length,
      'measurement files': files,
      'measurement records': records,
    },
    bytes,
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  let options: SampleOptions | 'help' | 'version';
  try {
    options = parseSampleArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n(npm run generate:sample -- --help lists the options)`);
    process.exitCode = 2;
    return;
  }
  if (options === 'help' || options === 'version') {
    console.log(options === 'help' ? USAGE : versionLine({}));
    return;
  }
  const { counts, bytes } = generateSample(options);
  const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
  console.log(`wrote synthetic sample to ${options.out} (seed ${options.seed}, as of ${dataDate(options)})`);
  console.log(
    `  ${Object.entries(counts)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}`,
  );
  console.log(
    `  JSON datasets ${mb(bytes.json)}, media arenas ${mb(bytes.media)}, ` +
      `measurements ${mb(bytes.measurements)} gzipped`,
  );
  console.log(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
