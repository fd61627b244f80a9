/**
 * The files a build reads from the data folder, in the fixed order the input digest depends on,
 * and reading them: a missing or unreadable file is a problem, reported with all the others.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Problem } from '../problems.ts';
import { MEDIA_DIR } from './media.ts';
import type { DataFile } from './validate.ts';

export const DATASET_FILES = {
  creators: 'model-creators.json',
  models: 'language-models.json',
  providers: 'providers.json',
  endpoints: 'provider-endpoints.json',
  indices: 'indices.json',
  critptProblems: 'critpt-problems.json',
  measurements: 'measurements',
} as const;

/** List the files the build reads, in a fixed order (the input digest depends on it). */
export function listDataFiles(dir: string): string[] {
  const fixed = [
    DATASET_FILES.creators,
    DATASET_FILES.models,
    DATASET_FILES.providers,
    DATASET_FILES.endpoints,
    DATASET_FILES.indices,
  ];
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
      problems.push({
        file: path,
        pointer: '',
        message: code === 'ENOENT' ? 'file is missing' : `cannot read: ${(error as Error).message}`,
      });
    }
  }
  return { files, problems };
}
