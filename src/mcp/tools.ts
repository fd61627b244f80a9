/**
 * The MCP tools, made from the route table (src/shared/routes.ts), never written by hand: one
 * tool per data route a key can read (GET, answered from the snapshot or joined from it), named
 * after its id, its input schema made from its path's `{slug}` and its query parameters, its output
 * schema the route's own 200 schema in the build's OpenAPI document (its `$ref`s carried along as
 * `$defs`). A route added to the table is a tool. Pure: the endpoint (endpoint.ts) caches the
 * list per build and tier.
 */
import type { ParamSpec, Route, Tier } from '../shared/route.ts';

/** How a route's data is answered that a tool can call: the rest (grading, the server's own state) are no tools. */
const TOOL_ANSWERS: ReadonlySet<Route['answer']> = new Set(['snapshot', 'fragments', 'changes', 'history']);

type Schema = Record<string, unknown>;

export interface McpTool {
  route: Route;
  name: string;
  /** The tool as tools/list shows it. */
  definition: {
    name: string;
    title: string;
    description: string;
    inputSchema: Schema;
    outputSchema?: Schema;
    annotations: Record<string, boolean | string>;
  };
}

/** The routes that are tools. */
export function toolRoutes(routes: readonly Route[]): Route[] {
  return routes.filter((r) => r.method === 'GET' && !r.public && r.tiers.length > 0 && TOOL_ANSWERS.has(r.answer));
}

/** A tool's name: the route id with `_` for `.` (what the hosts of models accept: letters, digits, `_` and `-`). */
export function toolName(route: Route): string {
  return route.id.replace(/\./g, '_');
}

/** The path parameters of a route's template (`{slug}`), in order. */
function pathParams(route: Route): string[] {
  return [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
}

function paramSchema(spec: ParamSpec): Schema {
  return {
    type: spec.type,
    description: spec.description,
    ...(spec.enum && { enum: spec.enum }),
    ...(spec.default !== undefined && { default: spec.default }),
    ...(spec.minimum !== undefined && { minimum: spec.minimum }),
    ...(spec.maximum !== undefined && { maximum: spec.maximum }),
    ...(spec.format === 'date' && { pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
  };
}

/** A route's arguments as one object: `slug` (required, for the routes that name one) and its query parameters. */
export function inputSchemaOf(route: Route): Schema {
  const properties: Record<string, Schema> = {};
  const slugs = pathParams(route);
  for (const name of slugs)
    properties[name] = { type: 'string', minLength: 1, description: `The ${route.slugOf ?? 'item'}'s slug.` };
  for (const [name, spec] of Object.entries(route.query)) properties[name] = paramSchema(spec);
  return { type: 'object', properties, ...(slugs.length && { required: slugs }), additionalProperties: false };
}

/** Every `$ref` to `#/components/schemas/NAME` under a value, rewritten to `#/$defs/NAME`, and the names it named. */
function rewriteRefs(value: unknown, named: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, named));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const ref = key === '$ref' && typeof inner === 'string' && /^#\/components\/schemas\/(.+)$/.exec(inner);
    if (ref) {
      named.add(ref[1]);
      out[key] = `#/$defs/${ref[1]}`;
    } else out[key] = rewriteRefs(inner, named);
  }
  return out;
}

/**
 * The route's 200 schema from the OpenAPI document, standing alone: the components it reaches, as
 * `$defs`, and an object at its root (what MCP asks of an output schema). Null when the document
 * has none of that shape.
 */
export function outputSchemaOf(document: Schema, route: Route): Schema | null {
  const operation = (document.paths as Record<string, Record<string, Schema>> | undefined)?.[route.path]?.get;
  const responses = operation?.responses as Record<string, Schema> | undefined;
  const content = responses?.['200']?.content as Record<string, { schema?: Schema }> | undefined;
  let schema = content?.['application/json']?.schema;
  const components = ((document.components as Schema | undefined)?.schemas ?? {}) as Record<string, Schema>;
  const rootRef = typeof schema?.$ref === 'string' && /^#\/components\/schemas\/(.+)$/.exec(schema.$ref as string);
  if (rootRef) schema = components[rootRef[1]];
  if (!schema || schema.type !== 'object') return null;
  const named = new Set<string>();
  const root = rewriteRefs(schema, named) as Schema;
  const defs: Record<string, unknown> = {};
  // The components the root reaches, and those they reach in turn.
  for (const name of named) if (!(name in defs) && components[name]) defs[name] = rewriteRefs(components[name], named);
  return Object.keys(defs).length ? { ...root, $defs: defs } : root;
}

/** Every tool of the table, with the document's output schemas. */
export function mcpTools(routes: readonly Route[], document: Schema): McpTool[] {
  return toolRoutes(routes).map((route) => {
    const name = toolName(route);
    const output = outputSchemaOf(document, route);
    return {
      route,
      name,
      definition: {
        name,
        title: `${route.method} ${route.path}`,
        description: `${route.summary} Tiers: ${route.tiers.join(', ')}.`,
        inputSchema: inputSchemaOf(route),
        ...(output && { outputSchema: output }),
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
    };
  });
}

/** The tools a tier may call. */
export function toolsOfTier(tools: readonly McpTool[], tier: Tier): McpTool[] {
  return tools.filter((tool) => tool.route.tiers.includes(tier));
}

/**
 * The request a call makes: the route's path with its slug put in, and its other arguments as the
 * query. A value that is not a string, number or boolean, or a slug missing, is said in words (the
 * route's own 400s say the rest: an unknown parameter, a value out of range).
 */
export function requestOf(route: Route, args: Record<string, unknown>): { path: string } | { refusal: string } {
  const slugs = pathParams(route);
  let path = route.path;
  const query = new URLSearchParams();
  for (const name of slugs) {
    const value = args[name];
    if (typeof value !== 'string' || value === '') return { refusal: `${name} is required: a non-empty string` };
    // A dot segment would be resolved away by the URL, naming another path than the route's.
    if (value === '.' || value === '..') return { refusal: `${name} ${JSON.stringify(value)} is no slug` };
    path = path.replace(`{${name}}`, encodeURIComponent(value));
  }
  for (const [name, value] of Object.entries(args)) {
    if (slugs.includes(name)) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      return { refusal: `${name} must be a string, a number or a boolean` };
    query.set(name, String(value));
  }
  const text = query.toString();
  return { path: text ? `${path}?${text}` : path };
}
