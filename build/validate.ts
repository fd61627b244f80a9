/**
 * Validation helpers shared by the dataset loaders: parse a file, check it against its
 * schema, and name the record and JSON pointer of every problem.
 */
import { gunzipSync } from 'node:zlib';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { pointerOf, type Problem } from './problems.ts';

/** One file read from the data folder: its path relative to the folder and its bytes. */
export interface DataFile {
  path: string;
  bytes: Buffer;
}

export function parseJson(file: DataFile, problems: Problem[]): unknown {
  try {
    const text = file.path.endsWith('.gz') ? gunzipSync(file.bytes).toString('utf8') : file.bytes.toString('utf8');
    return JSON.parse(text);
  } catch (error) {
    problems.push({ file: file.path, pointer: '', message: `not valid ${file.path.endsWith('.gz') ? 'gzip-compressed ' : ''}JSON: ${(error as Error).message}` });
    return undefined;
  }
}


/** Name the record a pointer falls in: its slug or id (or, for measurements, its series and time). */
export type RecordNamer = (pointer: string) => string | undefined;

export function arrayRecordNamer(items: unknown): RecordNamer {
  return (pointer) => {
    const index = Number(pointer.split('/')[1]);
    if (!Array.isArray(items) || !Number.isInteger(index)) return undefined;
    const item = items[index] as { slug?: unknown; id?: unknown } | undefined;
    const label = typeof item?.slug === 'string' ? item.slug : typeof item?.id === 'string' ? item.id : undefined;
    return label ?? `item ${index}`;
  };
}


export function describeAjvError(error: ErrorObject): { pointer: string; message: string } {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    return { pointer: `${error.instancePath}/${String(params.additionalProperty)}`, message: 'unknown field' };
  }
  if (error.keyword === 'required') {
    return { pointer: `${error.instancePath}/${String(params.missingProperty)}`, message: 'required field is missing' };
  }
  if (error.keyword === 'enum') {
    return { pointer: error.instancePath, message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
  }
  return { pointer: error.instancePath, message: error.message ?? error.keyword };
}

export function validate(file: DataFile, value: unknown, validator: ValidateFunction, nameRecord: RecordNamer, problems: Problem[]): boolean {
  if (validator(value)) return true;
  const seen = new Set<string>();
  for (const error of validator.errors ?? []) {
    // oneOf of null-or-object reports the null branch too; the object branch's errors say more.
    if (error.keyword === 'oneOf' || (error.keyword === 'type' && error.params.type === 'null')) continue;
    const { pointer, message } = describeAjvError(error);
    const line = `${pointer} ${message}`;
    if (seen.has(line)) continue;
    seen.add(line);
    problems.push({ file: file.path, record: nameRecord(pointer), pointer, message });
  }
  return false;
}


export interface Keyed {
  id: string;
  slug?: string;
}

/**
 * A record as parsed, before (or despite) schema validation: fields may have any type, so
 * every use checks the type of what it reads.
 */
export interface LooseRecord {
  id: string;
  slug?: string;
  [field: string]: unknown;
}

/** The objects of a dataset file that parsed as a JSON array (none otherwise). */
export function parsedRecords(file: DataFile | undefined): LooseRecord[] {
  if (!file) return [];
  try {
    const value: unknown = JSON.parse(file.bytes.toString('utf8'));
    return Array.isArray(value) ? (value.filter((v) => v !== null && typeof v === 'object') as LooseRecord[]) : [];
  } catch {
    return []; // reported by parseJson
  }
}

/** Report duplicate ids and slugs in one dataset; return the records by id. */
export function indexRecords<T extends Keyed>(path: string, items: T[], problems: Problem[]): Map<string, T> {
  const byId = new Map<string, T>();
  const slugs = new Map<string, number>();
  items.forEach((item, i) => {
    if (typeof item.id !== 'string') return; // reported by the schema
    if (byId.has(item.id)) problems.push({ file: path, record: item.slug ?? item.id, pointer: pointerOf(i, 'id'), message: `duplicate id ${item.id}` });
    else byId.set(item.id, item);
    if (typeof item.slug !== 'string') return;
    const first = slugs.get(item.slug);
    if (first !== undefined) problems.push({ file: path, record: item.slug, pointer: pointerOf(i, 'slug'), message: `duplicate slug (also at /${first})` });
    else slugs.set(item.slug, i);
  });
  return byId;
}

