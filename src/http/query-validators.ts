/**
 * The query validators: one per distinct query schema of the route table (eleven for 46 routes),
 * found by the schema's JSON text and compiled on first use. The bundle replaces this module with
 * the same validators generated ahead (scripts/ahead-validators.ts), so the bundled server compiles
 * none of them in the idle moments after its start, where a first request could wait behind one
 * (26 to 39 ms in all, in profiles of a start).
 */
import type { Options, ValidateFunction } from 'ajv/dist/2020.js';
import { ajvOnUse, TRUSTED_SCHEMAS } from '../shared/ajv.ts';
import { querySchema } from '../shared/query-schema.ts';
import { ROUTES } from '../shared/routes.ts';

/** Values coerced to the schema's types, defaults filled in, and the first problem only: a 400 names one field. */
export const QUERY_AJV_OPTIONS: Options = {
  ...TRUSTED_SCHEMAS,
  coerceTypes: true,
  useDefaults: true,
  allErrors: false,
};

/** Every query schema of the route table, by its JSON text: what the bundle generates ahead. */
export function routeQuerySchemas(): Map<string, Record<string, unknown>> {
  const schemas = new Map<string, Record<string, unknown>>();
  for (const route of ROUTES) {
    const schema = querySchema(route.query);
    schemas.set(JSON.stringify(schema), schema);
  }
  return schemas;
}

const ajvOf = ajvOnUse(QUERY_AJV_OPTIONS);
const compiled = new Map<string, ValidateFunction>();

/** The validator of a query schema, given with its JSON text. */
export function queryValidator(schemaText: string, schema: Record<string, unknown>): ValidateFunction {
  let validate = compiled.get(schemaText);
  if (!validate) compiled.set(schemaText, (validate = ajvOf().compile(schema)));
  return validate;
}
