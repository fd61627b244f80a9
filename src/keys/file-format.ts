/**
 * What `keys.json` holds, and the checks that name what is wrong with it. Format 2 (written
 * since) is JSON lines: a header line, then one record per line, a change being a later line for
 * the same id (the last one counts), so a change is an append the server reads on its own
 * instead of the whole store. Format 1 (written before) is one JSON object with every record; it
 * is still read, and the first change rewrites it as format 2.
 */
import type { ErrorObject } from 'ajv';
import { freezeParsed, KeyStoreError } from './record.ts';
import type { KeyRecord } from '../state/key-record.ts';
import type { KeysHeader } from './file-schemas.ts';
import { headerValidator, recordValidator, wholeFileValidator } from './file-validators.ts';

export {
  KEYS_FORMAT,
  WHOLE_FORMAT,
  keyRecordSchema,
  keysHeaderSchema,
  wholeFileSchema,
  type KeysHeader,
} from './file-schemas.ts';

function describeSchemaError(e: ErrorObject, prefix: string): string {
  const where = `${prefix}${e.instancePath}` || '/';
  if (e.keyword === 'enum') return `${where} must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
  if (e.keyword === 'additionalProperties')
    return `${where} has an unknown field ${JSON.stringify(e.params.additionalProperty)}`;
  return `${where} ${e.message}`;
}

/**
 * What is wrong, as the schema says: `if` errors only say "must match then", the `then` error
 * beside it names the field.
 */
function schemaProblems(errors: ErrorObject[] | null | undefined, prefix = ''): string {
  return (errors ?? [])
    .filter((e) => e.keyword !== 'if')
    .map((e) => describeSchemaError(e, prefix))
    .join('; ');
}

/** V8's JSON messages quote a stretch of the text, which may hold a hash: keep only the reason. */
function describeJsonError(error: Error): string {
  return error.message.replace(/,? ".*" is not valid JSON$/s, '').replace(/[A-Za-z0-9_-]{20,}/g, '…');
}

function parseJson(path: string, text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new KeyStoreError(`${path} is not valid JSON${where} (${describeJsonError(error as Error)})`);
  }
}

export function invalidStore(path: string, problem: string): KeyStoreError {
  return new KeyStoreError(`${path} is not a valid key store: ${problem}`);
}

/** The lines of format 2 are numbered from 1, the header's included, as an editor shows them. */
const lineWhere = (line: number) => ` at line ${line}`;

/** One record line, checked and frozen. */
export function parseRecordLine(path: string, text: string, line: number): KeyRecord {
  const data = parseJson(path, text, lineWhere(line));
  const validateRecord = recordValidator();
  if (!validateRecord(data)) throw invalidStore(path, `line ${line}: ${schemaProblems(validateRecord.errors)}`);
  return freezeParsed(data);
}

/** The header line, checked. */
export function parseHeader(path: string, text: string): KeysHeader {
  const data = parseJson(path, text, lineWhere(1));
  const validateHeader = headerValidator();
  if (!validateHeader(data)) throw invalidStore(path, `line 1: ${schemaProblems(validateHeader.errors)}`);
  return data;
}

/** The header of a key file from its first bytes (its header line among them); null for format 1. */
export function headerAt(path: string, start: Buffer): KeysHeader | null {
  if (!isLinesFormat(start.toString('latin1', 0, Math.min(start.length, 64)))) return null;
  const end = start.indexOf(10);
  if (end === -1) throw invalidStore(path, 'the header line is not complete');
  return parseHeader(path, start.toString('utf8', 0, end));
}

/**
 * Whether a file whose first line is this is format 2 (its header starts so; a format 1 file starts
 * `{` and its format field is 1).
 */
export function isLinesFormat(firstLine: string): boolean {
  return /^\{"format":\s*2\b/.test(firstLine);
}

/** Format 1, checked: its records, frozen, in the file's order. */
export function parseWholeFile(path: string, text: string): KeyRecord[] {
  const data = parseJson(path, text, '');
  const validateWholeFile = wholeFileValidator();
  if (!validateWholeFile(data)) throw invalidStore(path, schemaProblems(validateWholeFile.errors));
  const ids = new Set<string>();
  const hashes = new Set<string>();
  for (let i = 0; i < data.keys.length; i++) {
    const record = data.keys[i];
    if (ids.has(record.id)) throw repeated(path, data.keys, i, 'id');
    ids.add(record.id);
    if (hashes.has(record.hash)) throw repeated(path, data.keys, i, 'hash');
    hashes.add(record.hash);
    freezeParsed(record);
  }
  return data.keys;
}

function repeated(path: string, records: readonly KeyRecord[], i: number, field: 'id' | 'hash'): KeyStoreError {
  const first = records.findIndex((r) => r[field] === records[i][field]);
  return invalidStore(path, `/keys/${i}/${field} repeats /keys/${first}/${field}`);
}

/**
 * A record as a line, the id first: the keys command finds a key's latest line by its start. The
 * fields are spelt out rather than spread from publicRecord: the spread took 258-312 ms per
 * 100,000 lines against 135-166 ms, which compaction at 100,000 keys would feel.
 */
export function recordLine(r: KeyRecord): string {
  const ordered: KeyRecord = {
    id: r.id,
    hash: r.hash,
    tier: r.tier,
    org: r.org,
    user: r.user,
    scope: r.scope,
    quota: r.quota,
    grants: r.grants,
    critpt: r.critpt,
    created_at: r.created_at,
    revoked_at: r.revoked_at,
    name: r.name,
    expires_at: r.expires_at,
    prefix: r.prefix,
    last4: r.last4,
    previous: r.previous,
  };
  return `${JSON.stringify(ordered)}\n`;
}

/** How every record line starts, up to its id: `{"id":"key_…",`. */
export function lineStart(id: string): string {
  return `{"id":${JSON.stringify(id)},`;
}

export function headerLine(header: KeysHeader): string {
  return `${JSON.stringify(header)}\n`;
}
