/**
 * Redis's `INFO` answer, read by the health probe (src/redis/health.ts) and the persistence check
 * (src/redis/persistence.ts).
 */
import type { RedisClient } from './client.ts';
import { RedisCommandError } from './errors.ts';

/** `INFO` text (`# Section` headers, `field:value` lines) as fields. */
export function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

/**
 * One section of `INFO` as fields, or the error Redis refused it with (an ACL): a refusal is the
 * caller's to word, as what it cannot tell. RedisUnavailable (the connection went) is thrown:
 * the connection's own problem reports that.
 */
export async function readInfo(client: RedisClient, section: string): Promise<Map<string, string> | RedisCommandError> {
  try {
    return parseInfo(String(await client.send(['INFO', section])));
  } catch (error) {
    if (error instanceof RedisCommandError) return error;
    throw error;
  }
}
