/**
 * The MCP resources: the OpenAPI document (the public route's body, as served) and a summary of the
 * build being served (from its manifest: what it is, when its data is from, what it answers).
 */
import type { Manifest } from '../shared/manifest.ts';
import { RESOURCE_NOT_FOUND, RpcError, INTERNAL_ERROR, INVALID_PARAMS } from './jsonrpc.ts';
import type { RouteAnswer } from './route-call.ts';

export const OPENAPI_URI = 'bda://openapi.json';
export const BUILD_URI = 'bda://build';

export function resourceList(): Record<string, string>[] {
  return [
    {
      uri: OPENAPI_URI,
      name: 'openapi.json',
      title: 'The OpenAPI document',
      description: 'Every route of the API, its parameters and its answers (GET /api/v2/openapi.json).',
      mimeType: 'application/json',
    },
    {
      uri: BUILD_URI,
      name: 'build',
      title: 'The build being served',
      description: "Its id, when it was built and the data's date, its routes and counts, and what it changed.",
      mimeType: 'application/json',
    },
  ];
}

/** What the build's manifest says of it, without its storage details. */
export function buildSummary(manifest: Manifest): Record<string, unknown> {
  return {
    build_id: manifest.build_id,
    built_at: manifest.built_at,
    data_date: manifest.as_of,
    snapshot_format: manifest.format,
    intelligence_index_version: manifest.intelligence_index_version,
    page_size: manifest.page_size,
    routes: manifest.routes,
    entry_count: manifest.entry_count,
    body_count: manifest.body_count,
    critpt_problems: manifest.critpt_problems.length,
    changes: manifest.changes ?? null,
  };
}

/**
 * resources/read's result (`openapi` asks for the served document); throws RpcError for a URI that
 * is none of these.
 */
export async function readResource(uri: unknown, manifest: Manifest, openapi: () => Promise<RouteAnswer>) {
  if (typeof uri !== 'string') throw new RpcError(INVALID_PARAMS, 'Invalid params: uri must be a string');
  if (uri === BUILD_URI)
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(buildSummary(manifest)) }] };
  if (uri !== OPENAPI_URI) throw new RpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
  const answer = await openapi().catch((error: Error) => {
    throw new RpcError(INTERNAL_ERROR, `The OpenAPI document cannot be read now: ${error.message}`);
  });
  if (answer.status !== 200)
    throw new RpcError(INTERNAL_ERROR, `The OpenAPI document cannot be read now: HTTP ${answer.status}`);
  return { contents: [{ uri, mimeType: 'application/json', text: answer.body.toString('utf8') }] };
}
