/**
 * What the admin API accepts: bodies and query strings checked field by field against the
 * operation's table row (operations.ts) before anything runs, every failure an HttpError (the
 * public server's, src/http/error.ts) with a precise status, answered by the listener's one
 * error path as the public API's `{error, details}`.
 */
import { HttpError } from '../http/error.ts';
import { KeyConflict, KeyInputError, KeyNotFound, KeyStoreError } from '../keys/record.ts';
import { StoreLocked } from '../keys/store-lock.ts';
import { isTimestamp } from '../shared/string-formats.ts';

/** Where the JSON API lives on the admin listener. */
export const API_PREFIX = '/admin/api';
/** The largest body the admin listener reads: a new key with thousands of grants fits many times over. */
export const ADMIN_BODY_LIMIT = 64 * 1024;

/** A field's JSON schema (the subset used here) and whether it must be given. */
export interface FieldSpec {
  schema: Record<string, unknown> & { type: 'string' | 'integer' | 'boolean' | 'array'; nullable?: boolean };
  required?: boolean;
  description?: string;
}

export type BodySchema = Record<string, FieldSpec>;

function invalid(field: string, expected: string, got: unknown): HttpError {
  return new HttpError(400, 'Invalid body', {
    details: { field, expected, got: got === undefined ? 'nothing' : JSON.stringify(got)?.slice(0, 100) },
  });
}

/** A value against the subset of JSON schema the table uses: type, enum, pattern, bounds, items. */
function checkValue(field: string, schema: FieldSpec['schema'], value: unknown): void {
  if (value === null) {
    if (schema.nullable) return;
    throw invalid(field, `${schema.type}, not null`, value);
  }
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') throw invalid(field, 'a string', value);
      if (Array.isArray(schema.enum) && !schema.enum.includes(value))
        throw invalid(field, `one of ${schema.enum.join(', ')}`, value);
      if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
        throw invalid(field, `a string matching ${schema.pattern}`, value);
      if (schema.format === 'date-time' && !isTimestamp(value))
        throw invalid(field, 'a date and time with its offset, like 2027-01-31T00:00:00Z', value);
      return;
    case 'integer': {
      const { minimum = -Infinity, maximum = Infinity } = schema as { minimum?: number; maximum?: number };
      if (!Number.isSafeInteger(value) || (value as number) < minimum || (value as number) > maximum)
        throw invalid(field, `an integer from ${minimum} to ${maximum}`, value);
      return;
    }
    case 'boolean':
      if (typeof value !== 'boolean') throw invalid(field, 'true or false', value);
      return;
    case 'array': {
      const { maxItems = Infinity } = schema as { maxItems?: number };
      if (!Array.isArray(value) || value.length > maxItems)
        throw invalid(field, `a list of at most ${maxItems} strings`, value);
      value.forEach((item, i) => checkValue(`${field}[${i}]`, schema.items as FieldSpec['schema'], item));
      return;
    }
  }
}

/** The body as the operation's fields: a JSON object with no other field, each value of its type. */
export function checkBody(spec: BodySchema, body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HttpError(400, 'Invalid body', { details: { expected: 'a JSON object', fields: Object.keys(spec) } });
  const fields = body as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (!(name in spec))
      throw new HttpError(400, 'Invalid body', {
        details: { field: name, expected: `no such field; fields: ${Object.keys(spec).join(', ')}` },
      });
  }
  for (const [name, field] of Object.entries(spec)) {
    if (!(name in fields)) {
      if (field.required) throw invalid(name, 'a value (required)', undefined);
      continue;
    }
    checkValue(name, field.schema, fields[name]);
  }
  return fields;
}

/** Query parameters: each known, given once, of its schema. */
export function checkQuery(
  spec: Record<string, { schema: Record<string, unknown> }> = {},
  query: URLSearchParams,
): void {
  for (const name of new Set(query.keys())) {
    const param = spec[name];
    if (!param)
      throw new HttpError(400, 'Invalid query parameter', {
        details: {
          parameter: name,
          expected: Object.keys(spec).length ? `one of ${Object.keys(spec).join(', ')}` : 'no query parameters',
        },
      });
    const values = query.getAll(name);
    if (values.length > 1)
      throw new HttpError(400, 'Invalid query parameter', { details: { parameter: name, expected: 'given once' } });
    try {
      checkValue(name, param.schema as FieldSpec['schema'], values[0]);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      throw new HttpError(400, 'Invalid query parameter', {
        details: { parameter: name, expected: error.details.expected, got: values[0].slice(0, 100) },
      });
    }
  }
}

/**
 * The answer to any failure of an operation. The keys command's messages name its flags
 * (`--tier`); the API names fields (`tier`). Anything else is a bug: null, for a 500.
 */
export function httpErrorOf(error: unknown): HttpError | null {
  if (error instanceof HttpError) return error;
  const message = error instanceof Error ? error.message.replace(/--([a-z]+)/g, '$1') : '';
  const answer = (status: number, title: string, headers?: Record<string, string>) =>
    new HttpError(status, title, { details: { reason: message }, headers, cause: error });
  if (error instanceof KeyInputError) return answer(400, 'Invalid value');
  if (error instanceof KeyNotFound) return answer(404, 'Key not found');
  if (error instanceof KeyConflict) return answer(409, 'Conflict');
  if (error instanceof StoreLocked) return answer(503, 'Key store busy', { 'Retry-After': '1' });
  if (error instanceof KeyStoreError) return answer(503, 'Key store unavailable', { 'Retry-After': '5' });
  return null;
}
