/** The building blocks of the response schemas (JSON Schema 2020-12): value types and closed objects. */

export type Schema = Record<string, unknown>;

export const string = { type: 'string' };
export const nullableString = { type: ['string', 'null'] };
export const number = { type: 'number' };
export const nullableNumber = { type: ['number', 'null'] };
export const nullableInteger = { type: ['integer', 'null'] };
export const nullableDate = { type: ['string', 'null'], format: 'date' };
export const nullableBoolean = { type: ['boolean', 'null'] };
export const uuid = { type: 'string', format: 'uuid' };

/** An object with exactly these properties (all required unless `required` says which). */
export function closed(
  properties: Record<string, unknown>,
  required: readonly string[] = Object.keys(properties),
): Schema {
  return { type: 'object', additionalProperties: false, required: [...required], properties };
}

/** The same schema for each of these keys. */
export function fieldsOf(keys: readonly string[], schema: unknown): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, schema]));
}

export function nullable(schema: Schema): Schema {
  return { anyOf: [{ type: 'null' }, schema] };
}

/**
 * Shapes the OpenAPI document gives a name of their own (a component, build/schemas/components.ts),
 * by their title. The names are the original service's where it names the same shape, so a
 * client generated from either document imports the same types.
 */
export const SHAPE_NAMES = new Set<string>();

/** This schema, titled with a component name. */
export function named(name: string, schema: Schema): Schema {
  SHAPE_NAMES.add(name);
  return { title: name, ...schema };
}
