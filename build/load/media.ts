/**
 * Load the media arena datasets (`data/media/<arena>.json`). Each arena file is optional: an
 * arena without one is simply not built (its routes answer 501). A file that names no arena
 * is an error, since it is usually a misnamed one.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv } from '../../src/shared/ajv.ts';
import { MEDIA_ARENAS } from '../../src/shared/routes.ts';
import { pointerOf, type Problem } from '../problems.ts';
import { mediaFile, mediaSchema } from '../schemas/media.ts';
import type { MediaEntry } from '../types.ts';
import {
  arrayRecordNamer,
  indexRecords,
  isUnknownReference,
  parseJson,
  validate,
  type DataFile,
  type Referable,
} from './validate.ts';

export const MEDIA_DIR = 'media';

// Verbose: an error carries its parent schema, whose fields name what a misspelt one meant.
const ajv = createAjv({ verbose: true });
const validators = new Map<string, ValidateFunction>();

function validatorFor(arena: (typeof MEDIA_ARENAS)[number]): ValidateFunction {
  let validator = validators.get(arena.arena);
  if (!validator) validators.set(arena.arena, (validator = ajv.compile(mediaSchema(arena.arena, arena.family))));
  return validator;
}

/** Check references: creators and providers exist, a superseding entry is in the same arena, no provider twice. */
function checkReferences(
  path: string,
  entries: MediaEntry[],
  creators: Referable,
  providers: Referable,
  problems: Problem[],
): void {
  const ids = indexRecords(path, entries, problems);
  entries.forEach((entry, i) => {
    const report = (pointer: string, message: string) =>
      problems.push({ file: path, record: entry.slug, pointer, message });
    if (isUnknownReference(creators, entry.creator_id))
      report(pointerOf(i, 'creator_id'), `unknown model creator ${entry.creator_id}`);
    if (entry.superseded_by) {
      if (entry.superseded_by === entry.id) report(pointerOf(i, 'superseded_by'), 'an entry cannot supersede itself');
      else if (!ids.has(entry.superseded_by))
        report(pointerOf(i, 'superseded_by'), `no entry ${entry.superseded_by} in this arena`);
    }
    const seen = new Set<string>();
    entry.providers?.forEach((p, j) => {
      if (isUnknownReference(providers, p.provider_id))
        report(pointerOf(i, 'providers', j, 'provider_id'), `unknown provider ${p.provider_id}`);
      if (seen.has(p.provider_id))
        report(pointerOf(i, 'providers', j, 'provider_id'), 'provider listed twice for this entry');
      seen.add(p.provider_id);
    });
  });
}

/** The valid arenas' entries by arena; problems of every file go into `problems`. */
export function parseMedia(
  files: readonly DataFile[],
  creators: Referable,
  providers: Referable,
  problems: Problem[],
): Record<string, MediaEntry[]> {
  const media: Record<string, MediaEntry[]> = {};
  for (const file of files.filter((f) => f.path.startsWith(`${MEDIA_DIR}/`))) {
    const arena = MEDIA_ARENAS.find((a) => mediaFile(a.arena) === file.path);
    if (!arena) {
      problems.push({
        file: file.path,
        pointer: '',
        message: `not an arena dataset; expected one of ${MEDIA_ARENAS.map((a) => mediaFile(a.arena)).join(', ')}`,
      });
      continue;
    }
    const value = parseJson(file, problems);
    if (value === undefined || !validate(file, value, validatorFor(arena), arrayRecordNamer(value), problems)) continue;
    const entries = value as MediaEntry[];
    checkReferences(file.path, entries, creators, providers, problems);
    media[arena.arena] = entries;
  }
  return media;
}
