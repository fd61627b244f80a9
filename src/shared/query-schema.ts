/** The JSON Schema of a route's query parameters: the server validates with it, the build documents it. */
import type { ParamSpec } from './routes.ts';

/** The JSON Schema of a route's query object (also used by the OpenAPI document). */
export function querySchema(query: Readonly<Record<string, ParamSpec>>): Record<string, unknown> {
  const properties = Object.fromEntries(
    Object.entries(query).map(([name, spec]) => {
      const schema: Record<string, unknown> = { type: spec.type };
      if (spec.enum) schema.enum = spec.enum;
      if (spec.default !== undefined) schema.default = spec.default;
      if (spec.minimum !== undefined) schema.minimum = spec.minimum;
      if (spec.maximum !== undefined) schema.maximum = spec.maximum;
      if (spec.format) schema.format = spec.format;
      return [name, schema];
    }),
  );
  return { type: 'object', additionalProperties: false, properties };
}
