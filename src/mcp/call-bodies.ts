/**
 * A tool call's answer as bytes: the route's body twice, as a JSON string (`content[0].text`) and
 * as itself (`structuredContent`), made without decoding it each call. The message is written
 * with its `id` last (JSON-RPC's members may come in any order), so that all of it up to the
 * result's `_meta` depends on the body alone. That part is made once a body (its ETag names its
 * bytes) and kept:
 *
 * - for a client that takes gzip, deflated, with its CRC (gzip-member.ts): each call adds only its
 *   own end. The Commercial list page's 1 MB answer is 125 KB, and the route is asked for its
 *   stored gzip variant, so no byte of the body is touched while it is kept;
 * - for one that does not, the body's JSON string, beside the body as the route sent it.
 *
 * Decoding, escaping and encoding the list page (496 KB) each call took some 5 ms, and as much
 * again in garbage collection: 111 to 139 calls a second against the route's 5,400
 * (scripts/bench/mcp.ts).
 */
import { LRUCache } from 'lru-cache';
import { gunzipSync } from 'node:zlib';
import type { RequestId } from './jsonrpc.ts';
import type { RouteAnswer } from './route-call.ts';
import { gzipEnd, gzipStart, type GzipStart } from './gzip-member.ts';

/** What is kept of the bodies called lately: a few dozen list pages either way. */
const KEPT_BYTES = 8 * 1024 * 1024;
const MESSAGE_BEGINS = Buffer.from('{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":');
const STRUCTURED_BEGINS = Buffer.from('}],"structuredContent":');

/** A call's answer: its body-dependent start, deflated or plain, and what follows it. */
export interface CallAnswer {
  start: GzipStart | Buffer[];
  meta: Record<string, unknown>;
}

/** The body's own name, whatever its encoding: the content hash the ETag carries. */
function contentOf(etag: string | undefined): string | null {
  return etag === undefined ? null : (/^"([A-Za-z0-9_-]{22})(?:-gz|-br)?"$/.exec(etag)?.[1] ?? null);
}

export class CallBodies {
  private readonly deflated = new LRUCache<string, GzipStart>({
    maxSize: KEPT_BYTES,
    sizeCalculation: (start) => Math.max(1, start.bytes.length),
  });
  private readonly quoted = new LRUCache<string, Buffer>({
    maxSize: KEPT_BYTES,
    sizeCalculation: (bytes) => Math.max(1, bytes.length),
  });

  /** The start of a call's answer from the route's 200 (asked for gzip when `gzip`). */
  start(answer: RouteAnswer, gzip: boolean): GzipStart | Buffer[] {
    const content = contentOf(answer.headers.etag as string | undefined);
    if (gzip) {
      const known = content ? this.deflated.get(content) : undefined;
      if (known) return known;
      const body = identityOf(answer);
      const start = gzipStart(Buffer.concat(plainStart(body, quote(body))));
      if (content) this.deflated.set(content, start);
      return start;
    }
    const known = content ? this.quoted.get(content) : undefined;
    const quoted = known ?? quote(answer.body);
    if (content && !known) this.quoted.set(content, quoted);
    return plainStart(answer.body, quoted);
  }
}

/** The route's body uncompressed (the route sends gzip when asked, unless it has no such variant). */
function identityOf(answer: RouteAnswer): Buffer {
  return answer.headers['content-encoding'] === 'gzip' ? gunzipSync(answer.body) : answer.body;
}

function quote(body: Buffer): Buffer {
  return Buffer.from(JSON.stringify(body.toString('utf8')));
}

function plainStart(body: Buffer, quoted: Buffer): Buffer[] {
  return [MESSAGE_BEGINS, quoted, STRUCTURED_BEGINS, body];
}

/** The whole answer to request `id`: its start, then `_meta`, the result's end and the id. */
export function messagePieces(id: RequestId, answer: CallAnswer): Buffer[] {
  const end = Buffer.from(`,"_meta":${JSON.stringify(answer.meta)}},"id":${JSON.stringify(id)}}`);
  return Array.isArray(answer.start) ? [...answer.start, end] : [answer.start.bytes, ...gzipEnd(answer.start, end)];
}
