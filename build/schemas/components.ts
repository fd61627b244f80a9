/**
 * The named shapes of the answers as the OpenAPI document's components, so that a client
 * generated from the document has a type for a language model, a provider or a page's
 * pagination to import. The response schemas stay written inline (the build checks bodies
 * against them) with a title on each shape that has a name (`named`, json-schema.ts); the
 * document lists every titled shape once under its name and refers to it everywhere else.
 */
import { ROUTES } from '../../src/shared/routes.ts';
import { SHAPE_NAMES, type Schema } from './json-schema.ts';
import { hasResponseSchema, responseSchema } from './responses.ts';

export const COMPONENT_REF = '#/components/schemas/';

function nameOf(value: unknown): string | undefined {
  const title = (value as Schema).title;
  return typeof title === 'string' && SHAPE_NAMES.has(title) ? title : undefined;
}

/**
 * A schema with every named part below its top replaced by a reference; what the names stand for is
 * added to `found`.
 */
function withRefsInto(found: Map<string, Schema>, value: unknown, top = true): unknown {
  if (Array.isArray(value)) return value.map((item) => withRefsInto(found, item, false));
  if (value === null || typeof value !== 'object') return value;
  const name = top ? undefined : nameOf(value);
  if (name !== undefined) {
    const shape = withRefsInto(found, value) as Schema;
    const earlier = found.get(name);
    if (earlier && JSON.stringify(earlier) !== JSON.stringify(shape))
      throw new Error(`two different shapes are both named ${name}`);
    found.set(name, shape);
    return { $ref: `${COMPONENT_REF}${name}` };
  }
  return Object.fromEntries(Object.entries(value).map(([key, part]) => [key, withRefsInto(found, part, false)]));
}

/**
 * The document's named schemas, and a function that puts references to them into a schema.
 * Every route's schema for every tier is walked first, so the components are complete (and in
 * the order the routes first use them) whichever schemas the document then asks for.
 */
export function components(): { schemas: Record<string, Schema>; withRefs: (schema: Schema) => Schema } {
  const found = new Map<string, Schema>();
  for (const route of ROUTES.filter(hasResponseSchema))
    for (const tier of route.tiers) withRefsInto(found, responseSchema(route, tier));
  const withRefs = (schema: Schema): Schema => {
    const before = found.size;
    const out = withRefsInto(found, schema) as Schema;
    if (found.size !== before) throw new Error('a schema names a shape no route answers with');
    return out;
  };
  return { schemas: Object.fromEntries(found), withRefs };
}
