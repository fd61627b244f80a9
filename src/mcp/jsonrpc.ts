/**
 * JSON-RPC 2.0 as MCP's 2025-06-18 revision uses it, pure: one message a POST (batches were
 * removed from that revision), a request (with an id) answered with a result or an error, a
 * notification or a client's response (no id to answer) acknowledged with 202 and no body.
 * Answers are written as text, so that a route's body goes into a result as the bytes it is.
 */

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** MCP's own: a resource that is not there. */
export const RESOURCE_NOT_FOUND = -32002;

export type RequestId = string | number;

export type Message =
  | { kind: 'request'; id: RequestId; method: string; params: Record<string, unknown> }
  /** A notification, or a response to a request of ours (we send none): nothing to answer. */
  | { kind: 'acknowledge' }
  /** Not a message this revision takes: answered 400 with this error and a null id. */
  | { kind: 'invalid'; code: number; message: string };

function isId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/** A POST body, parsed and checked. */
export function parseMessage(text: string): Message {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid', code: PARSE_ERROR, message: `Parse error: ${(error as Error).message}` };
  }
  if (Array.isArray(value))
    return {
      kind: 'invalid',
      code: INVALID_REQUEST,
      message: 'Invalid Request: batches are not taken (MCP 2025-06-18)',
    };
  if (value === null || typeof value !== 'object' || (value as { jsonrpc?: unknown }).jsonrpc !== '2.0')
    return { kind: 'invalid', code: INVALID_REQUEST, message: 'Invalid Request: not a JSON-RPC 2.0 message' };
  const { id, method, params } = value as { id?: unknown; method?: unknown; params?: unknown };
  if (method === undefined && ('result' in value || 'error' in value)) return { kind: 'acknowledge' };
  if (typeof method !== 'string')
    return { kind: 'invalid', code: INVALID_REQUEST, message: 'Invalid Request: method must be a string' };
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params)))
    return { kind: 'invalid', code: INVALID_REQUEST, message: 'Invalid Request: params must be an object' };
  if (id === undefined) return { kind: 'acknowledge' };
  if (!isId(id))
    return { kind: 'invalid', code: INVALID_REQUEST, message: 'Invalid Request: id must be a string or an integer' };
  return { kind: 'request', id, method, params: (params ?? {}) as Record<string, unknown> };
}

/** A result whose JSON text is `resultText`, answering `id`. */
export function resultMessage(id: RequestId, resultText: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultText}}`;
}

/** An error answering `id` (null: a message whose id could not be read). */
export function errorMessage(id: RequestId | null, code: number, message: string, data?: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined && { data }) } });
}

/** A JSON-RPC error a method's handler throws: answered with this code, message and data. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
