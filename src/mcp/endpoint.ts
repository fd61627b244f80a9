/**
 * `POST /mcp`: the Model Context Protocol (revision 2025-06-18) over stateless Streamable HTTP,
 * answered in JSON, for agents as clients. The caller's key is checked before this (src/app.ts);
 * here a message is read within the request body limits, and answered:
 *
 * - `initialize`, `ping`;
 * - `tools/list`: the tools the key's tier may call (tools.ts: one a data route);
 * - `tools/call`: the route's own request, answered by this server's handler (route-call.ts), so
 *   that a call is one counted request of the key's quota and its result is the route's body, byte
 *   for byte, as text and as `structuredContent`; what the route answers otherwise (403, 404,
 *   429...) is a tool error with the route's message;
 * - `resources/list`, `resources/read`: the OpenAPI document and the build's summary.
 *
 * JSON-RPC errors of a readable request go out as HTTP 200 (a client reads no JSON-RPC from a 4xx);
 * a body that is no message at all is a 400.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodyBudget } from '../http/body-budget.ts';
import { HttpError } from '../http/error.ts';
import { checkJsonLimits } from '../http/json-limits.ts';
import { readBody, type BodyLimits } from '../http/read-body.ts';
import { encodingsFor } from '../http/negotiate.ts';
import { JSON_TYPE, send, sendPieces } from '../http/respond.ts';
import { CallBodies, messagePieces, type CallAnswer } from './call-bodies.ts';
import type { Manifest } from '../shared/manifest.ts';
import { ROUTES, type Tier } from '../shared/routes.ts';
import {
  errorMessage,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  METHOD_NOT_FOUND,
  parseMessage,
  resultMessage,
  RpcError,
  type RequestId,
} from './jsonrpc.ts';
import { resourceList, readResource } from './resources.ts';
import type { RouteAnswer, RouteAsker, RouteCaller } from './route-call.ts';
import { mcpTools, requestOf, toolsOfTier, type McpTool } from './tools.ts';

/** The revision this server speaks; an older client's own is answered when it is one of these. */
export const PROTOCOL_VERSIONS = ['2025-06-18', '2025-03-26'] as const;
/** A message is a few hundred bytes; nested and wide beyond these it is no message of this protocol. */
const MESSAGE_JSON_LIMITS = { depth: 32, values: 10_000 };
export const MCP_BODY_BYTES = 64 * 1024;

/** Who calls: the key's tier, the key itself (a call is made with it) and whose upload budget the body takes. */
export interface McpCaller {
  tier: Tier;
  key: string;
  scope: string;
}

/** A method's caller, with the request it came in (route calls are made for it). */
interface Asking extends McpCaller {
  from: IncomingMessage;
}

export interface McpParts {
  caller: RouteCaller;
  uploads: BodyBudget;
  /** The upload pace CritPt bodies are held to; the size is MCP_BODY_BYTES. */
  limits: Omit<BodyLimits, 'maxBytes'>;
  version: string;
}

/** The build an answer comes from: its id and manifest (the tools are made once a build). */
export interface McpBuild {
  buildId: string;
  manifest: Manifest;
}

export class McpEndpoint {
  /** The tools of the build last asked for, with their tools/list texts by tier. */
  private tools: { buildId: string; made: Promise<{ all: McpTool[]; lists: Map<Tier, string> }> } | null = null;

  private readonly bodies = new CallBodies();
  /** What a message body is read within: the upload pace, at most MCP_BODY_BYTES. */
  private readonly limits: BodyLimits;

  constructor(private readonly parts: McpParts) {
    this.limits = { ...parts.limits, maxBytes: MCP_BODY_BYTES };
  }

  /** Answer one POST; throws the HttpErrors the error path answers (415, 406, 400, 413...). */
  async answer(req: IncomingMessage, res: ServerResponse, caller: McpCaller, build: McpBuild): Promise<void> {
    checkHeaders(req);
    const body = await readBody(req, res, this.parts.uploads, caller.scope, this.limits);
    checkJsonLimits(body, MESSAGE_JSON_LIMITS);
    const message = parseMessage(body.toString('utf8'));
    if (message.kind === 'acknowledge') return send(res, 202, { 'Cache-Control': 'no-store' }, '', false);
    if (message.kind === 'invalid') return answerJson(res, 400, errorMessage(null, message.code, message.message));
    // A client that takes gzip is answered a tool's result in it (call-bodies.ts); the rest stays plain.
    const gzip = encodingsFor(req.headers['accept-encoding']).includes('gzip');
    let answer: string | CallAnswer;
    try {
      const result = await this.result(message.method, message.params, { ...caller, from: req }, build, gzip);
      answer = typeof result === 'string' ? resultMessage(message.id, result) : result;
    } catch (error) {
      answer = rpcErrorText(message.id, error);
    }
    if (typeof answer === 'string') return answerJson(res, 200, answer);
    const fields = ['Content-Type', JSON_TYPE, 'Cache-Control', 'no-store', 'Vary', 'Accept-Encoding'];
    if (!Array.isArray(answer.start)) fields.push('Content-Encoding', 'gzip');
    sendPieces(res, 200, fields, messagePieces(message.id, answer));
  }

  /** The result of one method, as JSON text (or its bytes in pieces); throws RpcError. */
  private async result(
    method: string,
    params: Record<string, unknown>,
    caller: Asking,
    build: McpBuild,
    gzip: boolean,
  ): Promise<string | CallAnswer> {
    switch (method) {
      case 'initialize':
        return initializeResult(params, this.parts.version);
      case 'ping':
        return '{}';
      case 'tools/list':
        if (params.cursor !== undefined)
          throw new RpcError(INVALID_PARAMS, 'Invalid cursor: the tools come in one page');
        return (await this.toolsOf(build, caller)).lists.get(caller.tier)!;
      case 'tools/call':
        return this.call(params, caller, build, gzip);
      case 'resources/list':
        if (params.cursor !== undefined)
          throw new RpcError(INVALID_PARAMS, 'Invalid cursor: the resources come in one page');
        return JSON.stringify({ resources: resourceList() });
      case 'resources/read':
        return JSON.stringify(await readResource(params.uri, build.manifest, () => this.openapi(caller)));
      default:
        throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${method}`);
    }
  }

  /** The build's tools (made from the table and its OpenAPI document once a build) and each tier's list. */
  private toolsOf(build: McpBuild, caller: Asking): Promise<{ all: McpTool[]; lists: Map<Tier, string> }> {
    if (this.tools?.buildId !== build.buildId) {
      const made = this.openapi(caller).then((answer) => {
        if (answer.status !== 200) throw new Error(`the OpenAPI document answered ${answer.status}`);
        const all = mcpTools(ROUTES, JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>);
        const tiers: Tier[] = ['free', 'pro', 'commercial'];
        const lists = new Map(
          tiers.map((tier) => [tier, JSON.stringify({ tools: toolsOfTier(all, tier).map((t) => t.definition) })]),
        );
        return { all, lists };
      });
      // A failure is not kept: the next list asks again.
      made.catch(() => {
        if (this.tools?.made === made) this.tools = null;
      });
      this.tools = { buildId: build.buildId, made };
    }
    return this.tools.made.catch((error: Error) => {
      throw new RpcError(INTERNAL_ERROR, `The tools cannot be listed now: ${error.message}`);
    });
  }

  /** The served OpenAPI document, as its public route answers it. */
  private openapi(caller: Asking): Promise<RouteAnswer> {
    return this.parts.caller.get('/api/v2/openapi.json', { key: null, from: caller.from });
  }

  /** tools/call: the route's request with the caller's key; its answer as the tool's result. */
  private async call(
    params: Record<string, unknown>,
    caller: Asking,
    build: McpBuild,
    gzip: boolean,
  ): Promise<string | CallAnswer> {
    const { name } = params;
    const args = params.arguments ?? {};
    if (typeof name !== 'string') throw new RpcError(INVALID_PARAMS, 'Invalid params: name must be a string');
    if (args === null || typeof args !== 'object' || Array.isArray(args))
      throw new RpcError(INVALID_PARAMS, 'Invalid params: arguments must be an object');
    const tool = (await this.toolsOf(build, caller)).all.find((t) => t.name === name);
    if (!tool) throw new RpcError(INVALID_PARAMS, `Unknown tool: ${name}`);
    const request = requestOf(tool.route, args as Record<string, unknown>);
    if ('refusal' in request) return toolError(`Invalid arguments: ${request.refusal}`, { status: 400 });
    let answer: RouteAnswer;
    try {
      const asker: RouteAsker = { key: caller.key, from: caller.from };
      answer = await this.parts.caller.get(request.path, asker, gzip ? 'gzip' : 'identity');
    } catch (error) {
      throw new RpcError(INTERNAL_ERROR, `The tool's route could not be asked: ${(error as Error).message}`);
    }
    const meta = callMeta(answer, build);
    if (answer.status !== 200) return toolError(routeErrorText(answer), meta);
    // The route's body as it is: as the text, and (it is a JSON object) as the structured content.
    return { start: this.bodies.start(answer, gzip), meta };
  }
}

/** A POST that is no MCP message is refused before its body is read. */
function checkHeaders(req: IncomingMessage): void {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type))
    throw new HttpError(415, 'Unsupported Media Type: /mcp takes application/json', {
      details: { content_type: type },
    });
  const accept = req.headers.accept;
  if (accept !== undefined && !/application\/json|application\/\*|\*\/\*/i.test(accept))
    throw new HttpError(406, 'Not Acceptable: /mcp answers application/json', { details: { accept } });
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && !(PROTOCOL_VERSIONS as readonly unknown[]).includes(version))
    throw new HttpError(400, `Unsupported MCP-Protocol-Version: ${String(version)}`, {
      details: { supported: PROTOCOL_VERSIONS },
    });
  // A browser page's request (DNS rebinding) names an origin other than this server.
  const origin = req.headers.origin;
  if (origin !== undefined && URL.canParse(origin) && new URL(origin).host !== req.headers.host)
    throw new HttpError(403, 'Forbidden: /mcp takes no request from another origin', { details: { origin } });
}

function answerJson(res: ServerResponse, status: number, text: string): void {
  send(res, status, { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store' }, text, false);
}

function rpcErrorText(id: RequestId, error: unknown): string {
  if (error instanceof RpcError) return errorMessage(id, error.code, error.message, error.data);
  return errorMessage(id, INTERNAL_ERROR, `Internal error: ${(error as Error)?.message ?? String(error)}`);
}

/** initialize: the client's revision when this server speaks it, else this server's own. */
function initializeResult(params: Record<string, unknown>, version: string): string {
  const asked = params.protocolVersion;
  const protocolVersion = (PROTOCOL_VERSIONS as readonly unknown[]).includes(asked) ? asked : PROTOCOL_VERSIONS[0];
  return JSON.stringify({
    protocolVersion,
    capabilities: { tools: {}, resources: {} },
    serverInfo: { name: 'benchmark-data-api', title: 'Benchmark Data API', version },
    instructions:
      'Model benchmark, pricing and performance data. Each tool is one route of the API and answers its JSON ' +
      "body; each call counts one request of your key's daily quota. Lists are paginated (page).",
  });
}

/** What a result's `_meta` says: the build and data date it comes from, the route's status and the quota left. */
function callMeta(answer: RouteAnswer, build: McpBuild): Record<string, unknown> {
  const number = (name: string) => {
    const value = Number(answer.headers[name]);
    return Number.isFinite(value) ? value : null;
  };
  return {
    build_id: build.buildId,
    data_date: build.manifest.as_of,
    status: answer.status,
    ratelimit: {
      limit: number('x-ratelimit-limit'),
      remaining: number('x-ratelimit-remaining'),
      reset: number('x-ratelimit-reset'),
    },
  };
}

function toolError(text: string, meta: Record<string, unknown>): string {
  return JSON.stringify({ content: [{ type: 'text', text }], isError: true, _meta: meta });
}

/** The route's error in words: its message, and for a used-up quota when the window resets. */
function routeErrorText(answer: RouteAnswer): string {
  let body: { error?: unknown; details?: { reset?: unknown; limit?: unknown } } = {};
  try {
    body = JSON.parse(answer.body.toString('utf8')) as typeof body;
  } catch {
    // Not the route's JSON (a proxy's page?): its status says what there is to say.
  }
  const message = typeof body.error === 'string' ? body.error : `HTTP ${answer.status}`;
  const reset = Number(body.details?.reset ?? answer.headers['x-ratelimit-reset']);
  if (answer.status === 429 && Number.isFinite(reset))
    return (
      `${message}: the quota of ${String(body.details?.limit ?? answer.headers['x-ratelimit-limit'])} ` +
      `requests a day is used up; the window resets at ${new Date(reset * 1000).toISOString()}`
    );
  return `${message} (HTTP ${answer.status})`;
}
