/**
 * A tool call's result as bytes: the route's body twice, as a JSON string (`content[0].text`) and
 * as itself (`structuredContent`), made without decoding it each call. The part that depends on
 * the body alone is made once a body (its ETag names its bytes) and kept:
 *
 * - for a client that takes gzip, that part compressed, as one gzip member (gzip-member.ts): the
 *   Commercial list page's 1.1 MB of result is some 100 KB, and the route is asked for its stored
 *   gzip variant, so no byte of the body is touched while it is kept;
 * - for one that does not, the body's JSON string, beside the body as the route sent it.
 *
 * Decoding, escaping and encoding the list page (496 KB) each call took some 5 ms, and as much
 * again in garbage collection: 111 to 139 calls a second against the route's 5,400
 * (scripts/bench/mcp.ts).
 */
import { LRUCache } from 'lru-cache';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { SelfAnswer } from './self-call.ts';
import { storedMember } from './gzip-member.ts';

/** What is kept of the bodies called lately: a few dozen list pages either way. */
const KEPT_BYTES = 8 * 1024 * 1024;
const CONTENT_BEGINS = Buffer.from('{"content":[{"type":"text","text":');
const STRUCTURED_BEGINS = Buffer.from('}],"structuredContent":');

/** A call's result: its body-dependent middle, gzip member or plain pieces, then the rest of its text. */
export interface CallResult {
  gzip: boolean;
  middle: Buffer[];
  /** After the middle: `,"_meta":{...}}`. */
  tail: string;
}

/** The body's own name, whatever its encoding: the content hash the ETag carries. */
function contentOf(etag: string | undefined): string | null {
  return etag === undefined ? null : (/^"([A-Za-z0-9_-]{22})(?:-gz|-br)?"$/.exec(etag)?.[1] ?? null);
}

export class CallBodies {
  private readonly kept = new LRUCache<string, Buffer>({
    maxSize: KEPT_BYTES,
    sizeCalculation: (bytes) => Math.max(1, bytes.length),
  });

  /** The middle of a call's result from the route's 200 (asked for gzip when `gzip`). */
  middle(answer: SelfAnswer, gzip: boolean): Buffer[] {
    const content = contentOf(answer.headers.etag as string | undefined);
    const key = content && `${gzip ? 'gz' : 'text'} ${content}`;
    const known = key ? this.kept.get(key) : undefined;
    if (gzip) {
      if (known) return [known];
      const body = identityOf(answer);
      const member = gzipSync(Buffer.concat(plainMiddle(body, quote(body))));
      if (key) this.kept.set(key, member);
      return [member];
    }
    const quoted = known ?? quote(answer.body);
    if (key && !known) this.kept.set(key, quoted);
    return plainMiddle(answer.pieces, quoted);
  }
}

/** The route's body uncompressed (the route sends gzip when asked, unless it has no such variant). */
function identityOf(answer: SelfAnswer): Buffer {
  return answer.headers['content-encoding'] === 'gzip' ? gunzipSync(answer.body) : answer.body;
}

function quote(body: Buffer): Buffer {
  return Buffer.from(JSON.stringify(body.toString('utf8')));
}

function plainMiddle(body: Buffer | Buffer[], quoted: Buffer): Buffer[] {
  return [CONTENT_BEGINS, quoted, STRUCTURED_BEGINS, ...(Array.isArray(body) ? body : [body])];
}

/** The whole answer to request `head` (`{"jsonrpc":"2.0","id":...,"result":`) with its result. */
export function messagePieces(head: string, result: CallResult): Buffer[] {
  // The result's closing brace, and the message's.
  const tail = Buffer.from(`${result.tail}}}`);
  if (!result.gzip) return [Buffer.from(head), ...result.middle, tail];
  return [storedMember(Buffer.from(head)), ...result.middle, storedMember(tail)];
}
