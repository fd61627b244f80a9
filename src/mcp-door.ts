/**
 * The way into the MCP endpoint (src/mcp/endpoint.ts) from the request pipeline: `POST /mcp` only
 * (405 otherwise: no event stream is offered), the caller's key from `x-api-key` or
 * `Authorization: Bearer` checked as every keyed route checks it (401s alike), then the message
 * answered. The request itself is never counted: each tool call it makes is, as the route's own.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Exchange } from './exchange.ts';
import { HttpError } from './http/error.ts';
import type { Clock } from './lib/clock.ts';
import { whenReady, type Eventually } from './lib/eventually.ts';
import type { ServerOptions } from './config.ts';
import type { BodyBudget } from './http/body-budget.ts';
import { McpEndpoint } from './mcp/endpoint.ts';
import { RouteCaller, type RequestHandler } from './mcp/route-call.ts';
import { VERSION } from './shared/version.ts';
import { authenticate } from './policy.ts';
import { quotaScope } from './quota/scopes.ts';
import { ANY_TIER, type Route } from './shared/routes.ts';
import type { KeyLookup } from './state/key-record.ts';

/** Not a route of the table (no body of the build answers it), but named as one in the log and the metrics. */
export const MCP_ROUTE: Route = {
  id: 'mcp',
  method: 'POST',
  path: '/mcp',
  summary: 'The Model Context Protocol: the data routes as tools.',
  tiers: ANY_TIER,
  query: {},
  answer: 'mcp',
  keyParams: [],
  paginated: false,
};

export function isMcpPath(url: string | undefined): boolean {
  return url === '/mcp' || (url !== undefined && url.startsWith('/mcp?'));
}

/** The key as MCP clients send it: `x-api-key`, else a bearer token. */
function presentedKey(headers: IncomingHttpHeaders): string | string[] | undefined {
  if (headers['x-api-key'] !== undefined) return headers['x-api-key'];
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return bearer?.[1];
}

export interface McpDoorParts {
  options: Pick<ServerOptions, 'critptMinUploadBytesPerSecond' | 'critptUploadGraceSeconds'>;
  /** Request bodies in memory: MCP messages take from the CritPt uploads' budget. */
  uploads: BodyBudget;
  keys: KeyLookup;
  clock: Clock;
  lastUsed: { note(id: string): void };
  /** The server's request handler: a tool call is the route's request, answered by it. */
  handle: RequestHandler;
}

/** The MCP endpoint as the pipeline holds it, made once. */
export class McpDoor {
  private readonly endpoint: McpEndpoint;

  constructor(private readonly parts: McpDoorParts) {
    const { critptMinUploadBytesPerSecond, critptUploadGraceSeconds } = parts.options;
    this.endpoint = new McpEndpoint({
      caller: new RouteCaller(parts.handle),
      uploads: parts.uploads,
      limits: { minBytesPerSecond: critptMinUploadBytesPerSecond, graceMs: critptUploadGraceSeconds * 1000 },
      version: VERSION,
    });
  }

  answer(exchange: Exchange): Eventually<void> {
    const { req, res, snapshot } = exchange;
    const { keys, clock, lastUsed } = this.parts;
    exchange.route = MCP_ROUTE;
    if (req.method !== 'POST')
      throw new HttpError(405, 'Method Not Allowed: /mcp takes POST (MCP over Streamable HTTP, answered in JSON)', {
        headers: { Allow: 'POST' },
      });
    const presented = presentedKey(req.headers);
    return whenReady(authenticate(presented, keys, clock), (key) => {
      lastUsed.note(key.id);
      exchange.key = key;
      const caller = { tier: key.tier, key: presented as string, scope: quotaScope(key) };
      return this.endpoint.answer(req, res, caller, { buildId: snapshot.buildId, manifest: snapshot.manifest });
    });
  }
}
