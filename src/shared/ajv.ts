/**
 * One way to make an ajv instance (JSON Schema 2020-12) with the few string formats this
 * project uses. Written here because the standard format package is not a dependency.
 */
import { Ajv2020, type Options, type ValidateFunction } from 'ajv/dist/2020.js';
import { STRING_FORMATS } from './string-formats.ts';

/**
 * For the server's own schemas, which are constants of the code: test/unit/src/shared/schemas.test.ts
 * checks them against the JSON Schema meta-schema once. Checking again at every start would
 * compile the meta-schema per ajv instance, about 90 ms of the server's start-up.
 */
export const TRUSTED_SCHEMAS: Options = { validateSchema: false };

export function createAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, ...options });
  for (const [name, check] of Object.entries(STRING_FORMATS)) ajv.addFormat(name, check);
  return ajv;
}

/**
 * An instance made when it is first asked for: a module whose validators are compiled on first use
 * (src/keys/file-validators.ts, src/http/query-validators.ts, src/critpt/request.ts) costs nothing
 * at import, and the bundle can put code generated ahead in its place (scripts/ahead-validators.ts).
 */
export function ajvOnUse(options: Options): () => Ajv2020 {
  let ajv: Ajv2020 | null = null;
  return () => (ajv ??= createAjv(options));
}

/** A validator compiled by `ajvOf()`'s instance when it is first asked for. */
export function compiledOnUse<T>(ajvOf: () => Ajv2020, schema: object): () => ValidateFunction<T> {
  let validate: ValidateFunction<T> | null = null;
  return () => (validate ??= ajvOf().compile<T>(schema));
}
