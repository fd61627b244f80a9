/**
 * `npm run import:legacy -- FILE [--data DIR] [--as-of YYYY-MM-DD] [--dry-run]`
 *
 * Merge a saved body of the legacy language route into a data folder: creators, models (with
 * their evaluations and published index values), a first-party provider and endpoint per
 * priced or measured model, and measurement records that reproduce the dump's medians. The
 * merged folder is validated in full before anything is written; on any problem nothing is.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DATASET_FILES, parseDataset, readDataFiles, type DataFile } from '../build/load.ts';
import { DatasetError, formatProblem, type Problem } from '../build/problems.ts';
import type { LanguageModel, MeasurementsFile, ModelCreator, Provider, ProviderEndpoint } from '../build/types.ts';
import { isCalendarDate } from '../src/ajv.ts';
import { mapLegacyBody, validateLegacyBody, type LegacyItem, type Mapped } from './legacy/map.ts';

const USAGE = 'usage: npm run import:legacy -- FILE [--data DIR] [--as-of YYYY-MM-DD] [--dry-run]';
const REPO_INDICES = fileURLToPath(new URL('../data/indices.json', import.meta.url));
const PROMPT_TYPE = 'medium'; // the legacy route's default: 1,000 input tokens, one query

class ImportError extends Error {
  constructor(
    message: string,
    readonly problems: Problem[] = [],
  ) {
    super(message);
  }
}

interface Tally {
  added: number;
  changed: number;
  unchanged: number;
}

function readArray<T>(dir: string, file: string): T[] {
  const path = join(dir, file);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T[]) : [];
}

/** Merge records by id: `update` gives the new version of an existing record (or of a new one). */
function mergeById<T extends { id: string }>(existing: T[], incoming: readonly T[], update: (old: T | undefined, next: T) => T): { merged: T[]; tally: Tally } {
  const merged = [...existing];
  const at = new Map(existing.map((r, i) => [r.id, i]));
  const tally: Tally = { added: 0, changed: 0, unchanged: 0 };
  for (const next of incoming) {
    const i = at.get(next.id);
    if (i === undefined) {
      at.set(next.id, merged.push(update(undefined, next)) - 1);
      tally.added++;
      continue;
    }
    const updated = update(merged[i], next);
    if (JSON.stringify(updated) === JSON.stringify(merged[i])) tally.unchanged++;
    else tally.changed++;
    merged[i] = updated;
  }
  return { merged, tally };
}

function newModel(next: Mapped['models'][number]): LanguageModel {
  return {
    ...next,
    reasoning_model: false,
    parameters: { total: null, active: null },
    modalities: { input: { text: true, image: false, video: false, speech: false }, output: { text: true, image: false, video: false, speech: false } },
    licensing: { is_open_weights: false },
  };
}

/** A provider slug is taken by another provider: the first-party one gets a suffix. */
function uniqueProviderSlugs(existing: Provider[], incoming: Provider[]): Provider[] {
  const taken = new Map(existing.map((p) => [p.slug, p.id]));
  return incoming.map((p) => {
    const owner = taken.get(p.slug);
    return owner === undefined || owner === p.id ? p : { ...p, slug: `${p.slug}-first-party` };
  });
}

/** The measurement files changed by the import: each provider's series for `medium` replaced. */
function mergeMeasurements(dir: string, providers: Provider[], endpoints: ProviderEndpoint[], mapped: Mapped): { files: Map<string, Buffer>; tally: Tally } {
  const files = new Map<string, Buffer>();
  const tally: Tally = { added: 0, changed: 0, unchanged: 0 };
  const providerOf = new Map(endpoints.map((e) => [e.id, e.provider_id]));
  const byProvider = new Map<string, [string, Mapped['records'] extends Map<string, infer R> ? R : never][]>();
  for (const [endpointId, records] of mapped.records) {
    const providerId = providerOf.get(endpointId)!;
    byProvider.set(providerId, [...(byProvider.get(providerId) ?? []), [endpointId, records]]);
  }
  for (const [providerId, series] of byProvider) {
    const provider = providers.find((p) => p.id === providerId)!;
    const plain = `${DATASET_FILES.measurements}/${provider.slug}.json`;
    const path = existsSync(join(dir, plain)) ? plain : `${plain}.gz`;
    const file: MeasurementsFile = existsSync(join(dir, path))
      ? JSON.parse((path.endsWith('.gz') ? gunzipSync(readFileSync(join(dir, path))) : readFileSync(join(dir, path))).toString('utf8'))
      : { provider_id: providerId, series: [] };
    for (const [endpointId, records] of series) {
      const i = file.series.findIndex((s) => s.endpoint_id === endpointId && s.prompt_type === PROMPT_TYPE);
      const next = { endpoint_id: endpointId, prompt_type: PROMPT_TYPE, records } as const;
      if (i < 0) {
        file.series.push(next);
        tally.added++;
      } else if (JSON.stringify(file.series[i]) === JSON.stringify(next)) tally.unchanged++;
      else {
        file.series[i] = next;
        tally.changed++;
      }
    }
    const json = JSON.stringify(file);
    files.set(path, path.endsWith('.gz') ? gzipSync(json, { level: 9 }) : Buffer.from(json));
  }
  return { files, tally };
}

function writeAtomic(path: string, bytes: Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.import-${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, path);
}

const pretty = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`);

export function importLegacy(file: string, dataDir: string, options: { asOf?: string; dryRun: boolean }, log: (line: string) => void): void {
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ImportError(`${file}: cannot read it as JSON: ${(error as Error).message}`);
  }
  const problems = validateLegacyBody(file, body);
  if (problems.length) throw new ImportError(`${file} is not a legacy language route body; nothing was written`, problems);
  const items = (body as { data: LegacyItem[] }).data;
  const day = options.asOf ?? items.reduce((newest, m) => (m.release_date && m.release_date > newest ? m.release_date : newest), '1970-01-01');
  const mapped = mapLegacyBody(items, day);

  const creators = mergeById(readArray<ModelCreator>(dataDir, DATASET_FILES.creators), mapped.creators, (old, next) => ({ ...next, country: old?.country ?? null }));
  const models = mergeById(readArray<LanguageModel>(dataDir, DATASET_FILES.models), mapped.models as LanguageModel[], (old, next) =>
    old ? { ...old, name: next.name, slug: next.slug, creator_id: next.creator_id, release_date: next.release_date, evaluations: { ...old.evaluations, ...next.evaluations }, published_indices: { ...old.published_indices, ...next.published_indices } } : newModel(next as Mapped['models'][number]),
  );
  const existingProviders = readArray<Provider>(dataDir, DATASET_FILES.providers);
  const providers = mergeById(existingProviders, uniqueProviderSlugs(existingProviders, mapped.providers), (old, next) => old ?? next);
  const endpoints = mergeById(readArray<ProviderEndpoint>(dataDir, DATASET_FILES.endpoints), mapped.endpoints, (old, next) => (old ? { ...old, price_1m_input_tokens: next.price_1m_input_tokens, price_1m_output_tokens: next.price_1m_output_tokens } : next));
  const measurements = mergeMeasurements(dataDir, providers.merged, endpoints.merged, mapped);

  const changed = new Map<string, Buffer>([
    [DATASET_FILES.creators, pretty(creators.merged)],
    [DATASET_FILES.models, pretty(models.merged)],
    [DATASET_FILES.providers, pretty(providers.merged)],
    [DATASET_FILES.endpoints, pretty(endpoints.merged)],
    ...measurements.files,
  ]);
  if (!existsSync(join(dataDir, DATASET_FILES.indices))) changed.set(DATASET_FILES.indices, readFileSync(REPO_INDICES));

  // Validate the folder as it would be after the import, before writing a byte of it.
  const current = existsSync(dataDir) ? readDataFiles(dataDir).files : [];
  const after: DataFile[] = [...current.filter((f) => !changed.has(f.path)), ...[...changed].map(([path, bytes]) => ({ path, bytes }))];
  try {
    parseDataset(after, []);
  } catch (error) {
    if (error instanceof DatasetError) throw new ImportError(`the merged data would not build; nothing was written`, error.problems);
    throw error;
  }

  const line = (what: string, t: Tally) => log(`  ${what.padEnd(20)} ${t.added} added, ${t.changed} changed, ${t.unchanged} unchanged`);
  log(`${options.dryRun ? 'would import' : 'imported'} ${items.length} models from ${file} into ${dataDir} (records dated ${day}, prompt type ${PROMPT_TYPE}):`);
  line('creators', creators.tally);
  line('models', models.tally);
  line('providers', providers.tally);
  line('endpoints', endpoints.tally);
  line('measurement series', measurements.tally);
  const unmeasured = items.length - mapped.records.size;
  log(`  ${unmeasured} models unmeasured upstream (zero speeds, now null); ${items.length - mapped.endpoints.length} with neither prices nor speeds (no endpoint)`);
  for (const [key, count] of mapped.skipped) log(`  skipped ${key}: no counterpart here (${count} values)`);
  if (options.dryRun) return;
  for (const [path, bytes] of changed) writeAtomic(join(dataDir, path), bytes);
  log('now run: npm run build');
}

function main(): void {
  let parsed;
  try {
    parsed = parseArgs({ args: process.argv.slice(2), options: { data: { type: 'string', default: 'data' }, 'as-of': { type: 'string' }, 'dry-run': { type: 'boolean', default: false } }, allowPositionals: true, strict: true });
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { positionals, values } = parsed;
  if (positionals.length !== 1 || (values['as-of'] !== undefined && !isCalendarDate(values['as-of']))) {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  try {
    importLegacy(positionals[0], values.data, { asOf: values['as-of'], dryRun: values['dry-run'] }, (l) => console.log(l));
  } catch (error) {
    if (!(error instanceof ImportError)) throw error;
    console.error(`import failed: ${error.message}`);
    for (const problem of error.problems) console.error(`  ${formatProblem(problem)}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();

