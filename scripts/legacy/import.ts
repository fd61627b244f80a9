/**
 * The legacy importer's work (the command is scripts/import-legacy.ts): merge a saved body of the
 * legacy language route into a data folder: creators, models (with their evaluations and
 * published index values), a first-party provider and endpoint per priced or measured model,
 * and measurement records that reproduce the dump's medians. The merged folder is validated in
 * full before anything is written; on any problem nothing is.
 *
 * The build takes medians over a window that ends at the newest measurement of the folder, so
 * records dated at the dump's own date would fall outside it when the folder already holds newer
 * measurements (the shipped sample does): every imported model would be served with null
 * medians. The records are therefore dated at the later of the dump's date (noon UTC) and the
 * newest measurement already in the folder, which keeps them inside the window of the next build.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DATASET_FILES, readDataFiles } from '../../build/load/data-files.ts';
import { parseDataset } from '../../build/load/datasets.ts';
import type { DataFile } from '../../build/load/validate.ts';
import { groupBy } from '../../build/collections.ts';
import { DatasetError, type Problem } from '../../build/problems.ts';
import type {
  LanguageModel,
  MeasurementRecord,
  MeasurementsFile,
  ModelCreator,
  Provider,
  ProviderEndpoint,
} from '../../build/types.ts';
import type { PromptType } from '../../src/shared/routes.ts';
import { mapLegacyBody, validateLegacyBody, type LegacyItem, type Mapped } from './map.ts';
import { shellWord } from '../shell-word.ts';

const REPO_INDICES = fileURLToPath(new URL('../../data/indices.json', import.meta.url));
const PROMPT_TYPE: PromptType = 'medium'; // the legacy route's default: 1,000 input tokens, one query

export class ImportError extends Error {
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
function mergeById<T extends { id: string }>(
  existing: T[],
  incoming: readonly T[],
  update: (old: T | undefined, next: T) => T,
): { merged: T[]; tally: Tally } {
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
    modalities: {
      input: { text: true, image: false, video: false, speech: false },
      output: { text: true, image: false, video: false, speech: false },
    },
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

function readMeasurementsFile(path: string, bytes: Buffer): MeasurementsFile {
  return JSON.parse((path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8')) as MeasurementsFile;
}

/** The newest record timestamp of a folder's measurement files (ms), or null when it has none. */
function newestMeasurement(files: readonly DataFile[]): number | null {
  let newest: number | null = null;
  for (const { path, bytes } of files) {
    if (!path.startsWith(`${DATASET_FILES.measurements}/`)) continue;
    for (const series of readMeasurementsFile(path, bytes).series) {
      for (const { timestamp } of series.records) {
        const time = Date.parse(timestamp);
        if (newest === null || time > newest) newest = time;
      }
    }
  }
  return newest;
}

/**
 * The measurement files changed by the import: each imported endpoint's series for `medium`
 * replaced, or removed when the model is no longer measured upstream (so an earlier dump's
 * medians never outlive it).
 */
function mergeMeasurements(
  dir: string,
  providers: Provider[],
  endpoints: ProviderEndpoint[],
  mapped: Mapped,
): { files: Map<string, Buffer>; tally: Tally } {
  const files = new Map<string, Buffer>();
  const tally: Tally = { added: 0, changed: 0, unchanged: 0 };
  const providerOf = new Map(endpoints.map((e) => [e.id, e.provider_id]));
  const incoming: [string, MeasurementRecord[]][] = [
    ...mapped.records,
    ...mapped.retired.filter((id) => providerOf.has(id)).map((id): [string, MeasurementRecord[]] => [id, []]),
  ];
  const byProvider = groupBy(incoming, ([endpointId]) => providerOf.get(endpointId)!);
  for (const [providerId, series] of byProvider) {
    const provider = providers.find((p) => p.id === providerId)!;
    const plain = `${DATASET_FILES.measurements}/${provider.slug}.json`;
    const path = existsSync(join(dir, plain)) ? plain : `${plain}.gz`;
    const exists = existsSync(join(dir, path));
    const file: MeasurementsFile = exists
      ? readMeasurementsFile(path, readFileSync(join(dir, path)))
      : { provider_id: providerId, series: [] };
    let touched = false;
    for (const [endpointId, records] of series) {
      const i = file.series.findIndex((s) => s.endpoint_id === endpointId && s.prompt_type === PROMPT_TYPE);
      const next = { endpoint_id: endpointId, prompt_type: PROMPT_TYPE, records };
      if (records.length === 0) {
        if (i >= 0) {
          file.series.splice(i, 1);
          tally.changed++;
          touched = true;
        }
      } else if (i < 0) {
        file.series.push(next);
        tally.added++;
        touched = true;
      } else if (JSON.stringify(file.series[i]) === JSON.stringify(next)) tally.unchanged++;
      else {
        file.series[i] = next;
        tally.changed++;
        touched = true;
      }
    }
    if (!touched && exists) continue;
    if (!exists && file.series.length === 0) continue;
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

export function importLegacy(
  file: string,
  dataDir: string,
  options: { asOf?: string; dryRun: boolean },
  log: (line: string) => void,
): void {
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ImportError(`${file}: cannot read it as JSON: ${(error as Error).message}`);
  }
  const problems = validateLegacyBody(file, body);
  if (problems.length)
    throw new ImportError(`${file} is not a legacy language route body; nothing was written`, problems);
  const items = (body as { data: LegacyItem[] }).data;
  const day =
    options.asOf ??
    items.reduce((newest, m) => (m.release_date && m.release_date > newest ? m.release_date : newest), '1970-01-01');
  const current = existsSync(dataDir) ? readDataFiles(dataDir).files : [];
  const newest = newestMeasurement(current);
  const dumpTime = Date.parse(`${day}T12:00:00.000Z`);
  const recordsAt = newest !== null && newest > dumpTime ? newest : dumpTime;
  const mapped = mapLegacyBody(items, recordsAt);

  const creators = mergeById(
    readArray<ModelCreator>(dataDir, DATASET_FILES.creators),
    mapped.creators,
    (old, next) => ({ ...next, country: old?.country ?? null }),
  );
  const models = mergeById(
    readArray<LanguageModel>(dataDir, DATASET_FILES.models),
    mapped.models as LanguageModel[],
    (old, next) =>
      old
        ? {
            ...old,
            name: next.name,
            slug: next.slug,
            creator_id: next.creator_id,
            release_date: next.release_date,
            evaluations: { ...old.evaluations, ...next.evaluations },
            published_indices: { ...old.published_indices, ...next.published_indices },
          }
        : newModel(next as Mapped['models'][number]),
  );
  const existingProviders = readArray<Provider>(dataDir, DATASET_FILES.providers);
  const providers = mergeById(
    existingProviders,
    uniqueProviderSlugs(existingProviders, mapped.providers),
    (old, next) => old ?? next,
  );
  const retired = new Set(mapped.retired);
  const existingEndpoints = readArray<ProviderEndpoint>(dataDir, DATASET_FILES.endpoints).map((e) =>
    retired.has(e.id) ? { ...e, price_1m_input_tokens: null, price_1m_output_tokens: null } : e,
  );
  const endpoints = mergeById(existingEndpoints, mapped.endpoints, (old, next) =>
    old
      ? {
          ...old,
          price_1m_input_tokens: next.price_1m_input_tokens,
          price_1m_output_tokens: next.price_1m_output_tokens,
        }
      : next,
  );
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
  const after: DataFile[] = [
    ...current.filter((f) => !changed.has(f.path)),
    ...[...changed].map(([path, bytes]) => ({ path, bytes })),
  ];
  try {
    parseDataset(after, []);
  } catch (error) {
    if (error instanceof DatasetError)
      throw new ImportError(`the merged data would not build; nothing was written`, error.problems);
    throw error;
  }

  const line = (what: string, t: Tally) =>
    log(`  ${what.padEnd(20)} ${t.added} added, ${t.changed} changed, ${t.unchanged} unchanged`);
  log(`${options.dryRun ? 'would import' : 'imported'} ${items.length} models from ${file} into ${dataDir}:`);
  const dated =
    recordsAt === dumpTime
      ? `the dump's date ${day}`
      : `the newest measurement already in ${dataDir}, after the dump's date ${day}`;
  log(
    `  measurement records (prompt type ${PROMPT_TYPE}) dated ${new Date(recordsAt).toISOString()}: ${dated}, ` +
      "so the next build's medians include them",
  );
  if (newest !== null && dumpTime > newest) {
    log(
      `  note: the dump is newer than the folder's newest measurement (${new Date(newest).toISOString()}); ` +
        "the next build's statistics window ends at the dump's date, " +
        'so older measurements count only within --stats-days (default 14) of it',
    );
  }
  line('creators', creators.tally);
  line('models', models.tally);
  line('providers', providers.tally);
  line('endpoints', endpoints.tally);
  line('measurement series', measurements.tally);
  const unmeasured = items.length - [...mapped.records.values()].filter((r) => r.length > 0).length;
  const unpriced = items.length - mapped.endpoints.length;
  log(
    `  ${unmeasured} models unmeasured upstream (zero speeds, now null); ` +
      `${unpriced} with neither prices nor speeds (no endpoint)`,
  );
  for (const [key, count] of mapped.skipped) log(`  skipped ${key}: no counterpart here (${count} values)`);
  if (options.dryRun) return;
  for (const [path, bytes] of changed) writeAtomic(join(dataDir, path), bytes);
  // The next step as it must be typed: a folder other than the default goes along.
  log(`now run: npm run build${dataDir === 'data' ? '' : ` -- --data ${shellWord(dataDir)}`}`);
}
