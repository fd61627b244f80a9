/**
 * Validation helpers shared by the dataset loaders: parse a file, check it against its
 * schema, and name the record and JSON pointer of every problem.
 */
import { gunzipSync } from 'node:zlib';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { closestName } from '../../src/shared/closest-name.ts';
import { pointerOf, readPointer, type Problem } from '../problems.ts';

/** One file read from the data folder: its path relative to the folder and its bytes. */
export interface DataFile {
  path: string;
  bytes: Buffer;
}

export function parseJson(file: DataFile, problems: Problem[]): unknown {
  const kind = file.path.endsWith('.gz') ? 'gzip-compressed JSON' : 'JSON';
  let text: string;
  try {
    text = file.path.endsWith('.gz') ? gunzipSync(file.bytes).toString('utf8') : file.bytes.toString('utf8');
  } catch (error) {
    problems.push({ file: file.path, pointer: '', message: `not valid ${kind}: ${(error as Error).message}` });
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const { reason, at } = locateSyntaxError(text, (error as Error).message);
    problems.push({ file: file.path, pointer: '', message: `not valid ${kind}: ${reason}`, at });
    return undefined;
  }
}

/** Characters of the offending line shown on each side of the column. */
const EXCERPT_REACH = 40;

/**
 * Line, column and the line itself for a JSON.parse error: V8 names the character offset
 * ("at position 1234"; newer versions add the line and column), or says the input ended.
 */
export function locateSyntaxError(text: string, message: string): { reason: string; at: NonNullable<Problem['at']> } {
  const position = /at position (\d+)/.exec(message);
  const offset = position ? Math.min(Number(position[1]), text.length) : text.length;
  const reason = message
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/ in JSON at position \d+/, '')
    .replace(/^Unexpected end of JSON input$/, 'the file ends too early');
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lineEnd = text.indexOf('\n', offset) === -1 ? text.length : text.indexOf('\n', offset);
  const line = text.slice(0, lineStart).split('\n').length;
  const column = offset - lineStart + 1;
  const from = Math.max(lineStart, offset - EXCERPT_REACH);
  const shown = text.slice(from, Math.min(lineEnd, offset + EXCERPT_REACH)).replaceAll('\t', ' ');
  const gutter = `    ${line} | `;
  const ellipsis = from > lineStart ? '…' : '';
  const caret = `${' '.repeat(gutter.length - 2)}| ${' '.repeat(offset - from + ellipsis.length)}^`;
  const excerpt = `${gutter}${ellipsis}${shown}\n${caret}`;
  return { reason, at: { line, column, excerpt } };
}

/**
 * The ids a reference may name, or null when the file defining them could not be read: its
 * references are then not checked, so a broken file is one problem, not one per reference.
 */
export type Referable = ReadonlyMap<string, unknown> | null;

/** True when `id` is a string that names nothing in a file that was read. */
export function isUnknownReference(known: Referable, id: unknown): boolean {
  return known !== null && typeof id === 'string' && !known.has(id);
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

/** A value as a problem shows it: its JSON, cut short. */
export function preview(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 48 ? `${text.slice(0, 45)}...` : text;
}

const fieldsOfObject = (value: unknown): string[] =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];

/**
 * One schema error as a maintainer reads it: where, what is wrong, and what would be right. An
 * unknown field names the field it most likely meant; a missing one names the unknown field
 * that looks like it; a value of the wrong kind is shown. Needs the validator's `verbose`
 * errors (their parent schema), and the whole file's value.
 */
export function describeAjvError(error: ErrorObject, value: unknown): { pointer: string; message: string } {
  const params = error.params as Record<string, unknown>;
  const here = readPointer(value, error.instancePath);
  if (error.keyword === 'additionalProperties') {
    const field = String(params.additionalProperty);
    const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {}).filter(
      (name) => !Object.hasOwn(here as object, name),
    );
    const meant = closestName(field, known);
    return {
      pointer: `${error.instancePath}/${field}`,
      message: meant ? `unknown field; did you mean "${meant}"?` : 'unknown field',
    };
  }
  if (error.keyword === 'required') {
    const field = String(params.missingProperty);
    const known = new Set(Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {}));
    const lookalike = closestName(
      field,
      fieldsOfObject(here).filter((name) => !known.has(name)),
    );
    return {
      pointer: `${error.instancePath}/${field}`,
      message: lookalike
        ? `required field is missing ("${lookalike}" is given: misspelt?)`
        : 'required field is missing',
    };
  }
  const got = `, got ${preview(here)}`;
  if (error.keyword === 'enum') {
    return {
      pointer: error.instancePath,
      message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}${got}`,
    };
  }
  if (error.keyword === 'type')
    return { pointer: error.instancePath, message: `must be ${String(params.type).split(',').join(' or ')}${got}` };
  return { pointer: error.instancePath, message: `${error.message ?? error.keyword}${got}` };
}

export function validate(
  file: DataFile,
  value: unknown,
  validator: ValidateFunction,
  nameRecord: RecordNamer,
  problems: Problem[],
): boolean {
  if (validator(value)) return true;
  const seen = new Set<string>();
  for (const error of validator.errors ?? []) {
    // oneOf of null-or-object reports the null branch too; the object branch's errors say more.
    if (error.keyword === 'oneOf' || (error.keyword === 'type' && error.params.type === 'null')) continue;
    const { pointer, message } = describeAjvError(error, value);
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
  const idAt = new Map<string, number>();
  const slugs = new Map<string, number>();
  items.forEach((item, i) => {
    if (typeof item.id !== 'string') return; // reported by the schema
    if (byId.has(item.id))
      problems.push({
        file: path,
        record: item.slug ?? item.id,
        pointer: pointerOf(i, 'id'),
        message: `duplicate id ${item.id} (also at /${idAt.get(item.id)})`,
      });
    else (byId.set(item.id, item), idAt.set(item.id, i));
    if (typeof item.slug !== 'string') return;
    const first = slugs.get(item.slug);
    if (first !== undefined)
      problems.push({
        file: path,
        record: item.slug,
        pointer: pointerOf(i, 'slug'),
        message: `duplicate slug (also at /${first})`,
      });
    else slugs.set(item.slug, i);
  });
  return byId;
}
