/**
 * Load `data/`: parse every dataset (read by build/load/data-files.ts), validate it against its
 * schema, then check every reference between datasets. All problems are collected and thrown
 * together as one DatasetError.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv } from '../../src/shared/ajv.ts';
import { DATASET_FILES, readDataFiles } from './data-files.ts';
import { checkIndexDefinitions } from './index-definitions.ts';
import { parseMedia } from './media.ts';
import { checkMeasurements, measurementRecordNamer, seriesOf, type MeasurementContext } from './measurements.ts';
import { DatasetError, pointerOf, type Problem } from '../problems.ts';
import {
  arrayRecordNamer,
  indexRecords,
  isUnknownReference,
  parsedRecords,
  parseJson,
  validate,
  type DataFile,
  type RecordNamer,
} from './validate.ts';
import {
  critptProblemsSchema,
  indexDefinitionsSchema,
  languageModelsSchema,
  measurementsSchema,
  modelCreatorsSchema,
  providerEndpointsSchema,
  providersSchema,
} from '../schemas/datasets.ts';
import type {
  Dataset,
  IndexDefinitions,
  LanguageModel,
  MeasurementsFile,
  ModelCreator,
  SeriesOfColumns,
  Provider,
  ProviderEndpoint,
} from '../types.ts';

// Verbose: an error carries its parent schema, whose fields name what a misspelt one meant.
const ajv = createAjv({ verbose: true });
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

  /** A file parsed and held to its schema: its value (undefined when it did not parse) and whether it passed. */
  const parseInto = (
    path: string,
    validator: ValidateFunction,
    namer: (value: unknown) => RecordNamer,
    found: Problem[],
  ): { value: unknown; valid: boolean } => {
    const file = byPath.get(path);
    const value = file ? parseJson(file, found) : undefined;
    if (!file || value === undefined) {
      unread.add(path);
      return { value: undefined, valid: false };
    }
    return { value, valid: validate(file, value, validator, namer(value), found) };
  };
  const load = <T>(
    path: string,
    validator: ValidateFunction,
    namer: (value: unknown) => RecordNamer,
  ): T | undefined => {
    const { value, valid } = parseInto(path, validator, namer, problems);
    return valid ? (value as T) : undefined;
  };
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
      problems.push({
        file: DATASET_FILES.models,
        record: m.slug ?? m.id,
        pointer: pointerOf(i, 'creator_id'),
        message: `unknown model creator ${creator}`,
      });
    }
  });
  const pairs = new Map<string, number>();
  arrays.endpoints.forEach((e, i) => {
    const report = (field: string, message: string) =>
      problems.push({ file: DATASET_FILES.endpoints, record: e.id, pointer: pointerOf(i, field), message });
    const { model_id: model, provider_id: provider } = e;
    if (isUnknownReference(knownModels, model)) report('model_id', `unknown language model ${model}`);
    if (isUnknownReference(knownProviders, provider)) report('provider_id', `unknown provider ${provider}`);
    const pair = `${String(model)} ${String(provider)}`;
    if (pairs.has(pair))
      report('provider_id', `this provider already serves this model (endpoint at /${pairs.get(pair)})`);
    pairs.set(pair, i);
  });
  if (indices) checkIndexDefinitions(DATASET_FILES.indices, indices, problems);

  const series: SeriesOfColumns[] = [];
  {
    const ctx: MeasurementContext = {
      endpoints: referable(DATASET_FILES.endpoints, endpointsById),
      providers: knownProviders,
      seenSeries: new Map(),
    };
    const checkProblems: Problem[] = [];
    for (const file of files) {
      if (!file.path.startsWith(`${DATASET_FILES.measurements}/`)) continue;
      const { value, valid } = parseInto(
        file.path,
        validators.measurements,
        measurementRecordNamer,
        measurementSchemaProblems,
      );
      if (value === undefined) continue;
      const before = checkProblems.length;
      checkMeasurements(file.path, value, ctx, checkProblems);
      if (valid && checkProblems.length === before) series.push(...seriesOf(value as MeasurementsFile));
    }
    problems.splice(schemaProblemsAt, 0, ...measurementSchemaProblems);
    problems.push(...checkProblems);
  }

  const media = parseMedia(files, knownCreators, knownProviders, problems);
  const critptProblems = byPath.has(DATASET_FILES.critptProblems)
    ? load<string[]>(DATASET_FILES.critptProblems, validators.critptProblems, () => () => undefined)
    : DEFAULT_CRITPT_PROBLEMS;

  if (problems.length > 0 || !creators || !models || !providers || !endpoints || !indices)
    throw new DatasetError(problems);
  return { creators, models, providers, endpoints, series, indices, media, critptProblems: critptProblems ?? [] };
}
