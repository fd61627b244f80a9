/** A Lua script, sent by its SHA-1 and in full only when Redis does not know it yet (src/redis/client.ts). */
import { createHash } from 'node:crypto';

export class LuaScript {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }
}
