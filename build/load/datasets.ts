/**
 * Load `data/`: read every dataset, validate it against its schema, then check every reference
 * between datasets. All problems are collected and thrown together as one DatasetError.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv } from '../../src/shared/ajv.ts';
import { HEADLINE_INDICES, LEGACY_EVALUATIONS, OMNISCIENCE_DOMAINS, OMNISCIENCE_METRICS, OPENNESS_COMPONENTS, RAW_EVALUATIONS, TOKEN_COUNT_EVALUATIONS } from '../fields.ts';
import { toColumns } from '../columns.ts';
import { MEDIA_DIR, parseMedia } from './media.ts';
import { DatasetError, pointerOf, type Problem } from '../problems.ts';
import { arrayRecordNamer, indexRecords, isUnknownReference, parsedRecords, parseJson, validate, type DataFile, type LooseRecord, type RecordNamer, type Referable } from './validate.ts';
import {
  critptProblemsSchema,
  indexDefinitionsSchema,
  languageModelsSchema,
  measurementsSchema,
  modelCreatorsSchema,
  providerEndpointsSchema,
  providersSchema,
} from '../schemas/datasets.ts';
import type { Dataset, IndexDefinitions, LanguageModel, MeasurementsFile, ModelCreator, SeriesOfColumns, Provider, ProviderEndpoint } from '../types.ts';

export const DATASET_FILES = {
  creators: 'model-creators.json',
  models: 'language-models.json',
  providers: 'providers.json',
  endpoints: 'provider-endpoints.json',
  indices: 'indices.json',
  critptProblems: 'critpt-problems.json',
  measurements: 'measurements',
} as const;

export type { DataFile } from './validate.ts';

const ajv = createAjv();
const validators = {
  creators: ajv.compile(modelCreatorsSchema),
  models: ajv.compile(languageModelsSchema),
  providers: ajv.compile(providersSchema),
  endpoints: ajv.compile(providerEndpointsSchema),
  indices: ajv.compile(indexDefinitionsSchema),
  measurements: ajv.compile(measurementsSchema),
  critptProblems: ajv.compile(critptProblemsSchema),
};

/** The public CritPt problem set when the data names none: Challenge_1_main .. Challenge_70_main. */
export const DEFAULT_CRITPT_PROBLEMS = Array.from({ length: 70 }, (_, i) => `Challenge_${i + 1}_main`);

/** Every pointer an index component may read: the numeric scores of a language model. */
export const SCORE_POINTERS: ReadonlySet<string> = new Set([
  ...RAW_EVALUATIONS.map((k) => pointerOf('evaluations', k)),
  ...LEGACY_EVALUATIONS.map((k) => pointerOf('evaluations', k)),
  ...OMNISCIENCE_DOMAINS.flatMap((d) => OMNISCIENCE_METRICS.map((m) => pointerOf('omniscience_breakdown', d, m))),
  ...OPENNESS_COMPONENTS.map((c) => pointerOf('openness', c)),
]);

/** List the files the build reads, in a fixed order (the input digest depends on it). */
export function listDataFiles(dir: string): string[] {
  const fixed = [DATASET_FILES.creators, DATASET_FILES.models, DATASET_FILES.providers, DATASET_FILES.endpoints, DATASET_FILES.indices];
  let measurementFiles: string[] = [];
  try {
    measurementFiles = readdirSync(join(dir, DATASET_FILES.measurements))
      .filter((f) => f.endsWith('.json') || f.endsWith('.json.gz'))
      .sort()
      .map((f) => `${DATASET_FILES.measurements}/${f}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const optional = existsSync(join(dir, DATASET_FILES.critptProblems)) ? [DATASET_FILES.critptProblems] : [];
  return [...fixed, ...optional, ...measurementFiles, ...optionalFolder(dir, MEDIA_DIR)];
}

/** The JSON files of an optional sub-folder, sorted, as paths relative to the data folder. */
function optionalFolder(dir: string, folder: string): string[] {
  try {
    return readdirSync(join(dir, folder))
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => `${folder}/${f}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return [];
  }
}

export function readDataFiles(dir: string): { files: DataFile[]; problems: Problem[] } {
  const files: DataFile[] = [];
  const problems: Problem[] = [];
  for (const path of listDataFiles(dir)) {
    try {
      files.push({ path, bytes: readFileSync(join(dir, path)) });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push({ file: path, pointer: '', message: code === 'ENOENT' ? 'file is missing' : `cannot read: ${(error as Error).message}` });
    }
  }
  return { files, problems };
}

function measurementRecordNamer(file: unknown): RecordNamer {
  return (pointer) => {
    const [, top, s, , r] = pointer.split('/');
    if (top !== 'series' || s === undefined) return undefined;
    const series = (file as MeasurementsFile).series?.[Number(s)];
    if (!series) return undefined;
    const record = r === undefined ? undefined : series.records?.[Number(r)];
    const at = record && typeof record.timestamp === 'string' ? ` at ${record.timestamp}` : '';
    return `endpoint ${String(series.endpoint_id)} ${String(series.prompt_type)}${at}`;
  };
}

function checkIndexDefinitions(path: string, defs: IndexDefinitions, problems: Problem[]): void {
  const report = (pointer: string, message: string) => problems.push({ file: path, pointer, message });
  const checkComponents = (base: (string | number)[], components: IndexDefinitions['openness_index']['components']) => {
    const ids = new Set<string>();
    components.forEach((c, i) => {
      if (!SCORE_POINTERS.has(c.score)) report(pointerOf(...base, i, 'score'), `${c.score} does not name a numeric score of a language model`);
      if (!(c.max > c.min)) report(pointerOf(...base, i, 'max'), 'max must be greater than min');
      if (ids.has(c.id)) report(pointerOf(...base, i, 'id'), `duplicate component id ${c.id}`);
      ids.add(c.id);
    });
  };
  const intelligence = defs.intelligence_index;
  checkComponents(['intelligence_index', 'components'], intelligence.components);
  const componentIds = new Set(intelligence.components.map((c) => c.id));
  intelligence.components.forEach((c, i) => {
    // The index's token counts are the sum of its components' evaluation token counts.
    if (!(TOKEN_COUNT_EVALUATIONS as readonly string[]).includes(c.id)) {
      report(pointerOf('intelligence_index', 'components', i, 'id'), `must be an evaluation_token_counts key (${TOKEN_COUNT_EVALUATIONS.join(', ')})`);
    }
    if (c.tasks === undefined) report(pointerOf('intelligence_index', 'components', i, 'tasks'), 'intelligence index components need a task count (for cost per task)');
  });
  intelligence.subsets.forEach((subset, s) =>
    subset.components.forEach((id, i) => {
      if (!componentIds.has(id)) report(pointerOf('intelligence_index', 'subsets', s, 'components', i), `${id} is not a component of the intelligence index`);
    }),
  );
  defs.capability_indices.indices.forEach((index, i) => checkComponents(['capability_indices', 'indices', i, 'components'], index.components));
  checkComponents(['openness_index', 'components'], defs.openness_index.components);
  if (defs.math_index) checkComponents(['math_index', 'components'], defs.math_index.components);

  const defined = [intelligence.key, ...intelligence.subsets.map((s) => s.key), ...defs.capability_indices.indices.map((i) => i.key)];
  for (const key of HEADLINE_INDICES) if (!defined.includes(key)) report('', `no definition for ${key}`);
  for (const key of defined) if (!(HEADLINE_INDICES as readonly string[]).includes(key)) report('', `${key} is not an index the API publishes (${HEADLINE_INDICES.join(', ')})`);
  if (defs.openness_index.key !== 'platform_openness_index') report(pointerOf('openness_index', 'key'), 'must be platform_openness_index');
}

interface MeasurementContext {
  /** Null when provider-endpoints.json could not be read. */
  endpoints: ReadonlyMap<string, LooseRecord> | null;
  providers: Referable;
  seenSeries: Map<string, string>;
}

function checkMeasurements(path: string, file: MeasurementsFile, ctx: MeasurementContext, problems: Problem[]): SeriesOfColumns[] {
  const nameRecord = measurementRecordNamer(file);
  const report = (pointer: string, message: string) => problems.push({ file: path, record: nameRecord(pointer), pointer, message });
  if (isUnknownReference(ctx.providers, file.provider_id)) report('/provider_id', `unknown provider ${file.provider_id}`);
  const out: SeriesOfColumns[] = [];
  file.series.forEach((series, s) => {
    const endpoint = ctx.endpoints?.get(series.endpoint_id);
    if (ctx.endpoints && !endpoint) report(pointerOf('series', s, 'endpoint_id'), `unknown provider endpoint ${series.endpoint_id}`);
    else if (endpoint && endpoint.provider_id !== file.provider_id) {
      report(pointerOf('series', s, 'endpoint_id'), `endpoint belongs to provider ${endpoint.provider_id}, not to this file's provider ${file.provider_id}`);
    }
    const seriesKey = `${series.endpoint_id} ${series.prompt_type}`;
    const earlier = ctx.seenSeries.get(seriesKey);
    if (earlier) report(pointerOf('series', s), `series for this endpoint and prompt type already given in ${earlier}`);
    ctx.seenSeries.set(seriesKey, path);
    // Compare instants, not spellings: 12:00:00.000Z and 12:00:00+00:00 are the same time.
    const times = new Set<number>();
    series.records.forEach((record, r) => {
      const at = Date.parse(record.timestamp);
      if (times.has(at)) report(pointerOf('series', s, 'records', r, 'timestamp'), 'two records of one series at the same time');
      times.add(at);
      if (record.success) {
        for (const field of ['output_tokens_per_second', 'time_to_first_token_seconds', 'time_to_first_answer_token_seconds'] as const) {
          if (record[field] === null) report(pointerOf('series', s, 'records', r, field), 'a successful request must have this figure');
        }
        if (record.output_tokens_per_second === 0) report(pointerOf('series', s, 'records', r, 'output_tokens_per_second'), 'a successful request produced tokens, so its speed is above 0');
      }
    });
    out.push({ endpoint_id: series.endpoint_id, prompt_type: series.prompt_type, columns: toColumns(series.records) });
  });
  return out;
}

/**
 * Load and check the whole data folder. Throws DatasetError listing every problem; returns the
 * dataset and the raw files.
 */
export function loadDataset(dir: string): { dataset: Dataset; files: DataFile[] } {
  const { files, problems } = readDataFiles(dir);
  return { dataset: parseDataset(files, problems), files };
}

/** Parse and check files already read; `problems` holds what reading them found. */
export function parseDataset(files: DataFile[], problems: Problem[]): Dataset {
  const byPath = new Map(files.map((f) => [f.path, f]));
  /** Files missing, unreadable or not JSON: references into them are not checked. */
  const unread = new Set<string>();

  const loadInto = <T>(path: string, validator: ValidateFunction, namer: (value: unknown) => RecordNamer, found: Problem[]): T | undefined => {
    const file = byPath.get(path);
    if (!file) {
      unread.add(path);
      return undefined;
    }
    const value = parseJson(file, found);
    if (value === undefined) {
      unread.add(path);
      return undefined;
    }
    return validate(file, value, validator, namer(value), found) ? (value as T) : undefined;
  };
  const load = <T>(path: string, validator: ValidateFunction, namer: (value: unknown) => RecordNamer): T | undefined => loadInto(path, validator, namer, problems);
  const creators = load<ModelCreator[]>(DATASET_FILES.creators, validators.creators, arrayRecordNamer);
  const models = load<LanguageModel[]>(DATASET_FILES.models, validators.models, arrayRecordNamer);
  const providers = load<Provider[]>(DATASET_FILES.providers, validators.providers, arrayRecordNamer);
  const endpoints = load<ProviderEndpoint[]>(DATASET_FILES.endpoints, validators.endpoints, arrayRecordNamer);
  const indices = load<IndexDefinitions>(DATASET_FILES.indices, validators.indices, () => () => undefined);
  // Measurement files are parsed, checked and turned into columns one at a time, below: as
  // objects, all of them at once would fill the heap. Their schema problems go here, in the
  // place they would have had if parsed now.
  const schemaProblemsAt = problems.length;
  const measurementSchemaProblems: Problem[] = [];

  // Reference checks run on every parsed record, even in a file with schema errors, so one
  // build reports all problems at once; fields of the wrong type were reported already.
  const arrays = {
    creators: parsedRecords(byPath.get(DATASET_FILES.creators)),
    models: parsedRecords(byPath.get(DATASET_FILES.models)),
    providers: parsedRecords(byPath.get(DATASET_FILES.providers)),
    endpoints: parsedRecords(byPath.get(DATASET_FILES.endpoints)),
  };
  const creatorsById = indexRecords(DATASET_FILES.creators, arrays.creators, problems);
  const modelsById = indexRecords(DATASET_FILES.models, arrays.models, problems);
  const providersById = indexRecords(DATASET_FILES.providers, arrays.providers, problems);
  const endpointsById = indexRecords(DATASET_FILES.endpoints, arrays.endpoints, problems);
  const referable = <T>(path: string, byId: ReadonlyMap<string, T>) => (unread.has(path) ? null : byId);
  const knownCreators = referable(DATASET_FILES.creators, creatorsById);
  const knownModels = referable(DATASET_FILES.models, modelsById);
  const knownProviders = referable(DATASET_FILES.providers, providersById);

  arrays.models.forEach((m, i) => {
    const creator = m.creator_id;
    if (isUnknownReference(knownCreators, creator)) {
      problems.push({ file: DATASET_FILES.models, record: m.slug ?? m.id, pointer: pointerOf(i, 'creator_id'), message: `unknown model creator ${creator}` });
    }
  });
  const pairs = new Map<string, number>();
  arrays.endpoints.forEach((e, i) => {
    const report = (field: string, message: string) => problems.push({ file: DATASET_FILES.endpoints, record: e.id, pointer: pointerOf(i, field), message });
    const { model_id: model, provider_id: provider } = e;
    if (isUnknownReference(knownModels, model)) report('model_id', `unknown language model ${model}`);
    if (isUnknownReference(knownProviders, provider)) report('provider_id', `unknown provider ${provider}`);
    const pair = `${String(model)} ${String(provider)}`;
    if (pairs.has(pair)) report('provider_id', `this provider already serves this model (endpoint at /${pairs.get(pair)})`);
    pairs.set(pair, i);
  });
  if (indices) checkIndexDefinitions(DATASET_FILES.indices, indices, problems);

  const series: SeriesOfColumns[] = [];
  {
    const ctx: MeasurementContext = { endpoints: referable(DATASET_FILES.endpoints, endpointsById), providers: knownProviders, seenSeries: new Map() };
    const checkProblems: Problem[] = [];
    for (const file of files) {
      if (!file.path.startsWith(`${DATASET_FILES.measurements}/`)) continue;
      const value = loadInto<MeasurementsFile>(file.path, validators.measurements, measurementRecordNamer, measurementSchemaProblems);
      if (value) for (const one of checkMeasurements(file.path, value, ctx, checkProblems)) series.push(one);
    }
    problems.splice(schemaProblemsAt, 0, ...measurementSchemaProblems);
    problems.push(...checkProblems);
  }

  const media = parseMedia(files, knownCreators, knownProviders, problems);
  const critptProblems = byPath.has(DATASET_FILES.critptProblems) ? load<string[]>(DATASET_FILES.critptProblems, validators.critptProblems, () => () => undefined) : DEFAULT_CRITPT_PROBLEMS;

  if (problems.length > 0 || !creators || !models || !providers || !endpoints || !indices) throw new DatasetError(problems);
  return { creators, models, providers, endpoints, series, indices, media, critptProblems: critptProblems ?? [] };
}
