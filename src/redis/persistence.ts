/**
 * Whether the Redis the servers share keeps its data across a restart. Without persistence (AOF
 * off and no RDB save points) a restart loses every key record and quota window: the servers
 * then answer 503 `key store is empty or was reset` until the keys are restored, and used quotas
 * start afresh. The servers still answer correctly until then, so this is a warning (/readyz
 * stays 200 and lists it), not a condition that takes them out of service.
 *
 * AOF is read from `INFO persistence`; save points need `CONFIG GET save`, which managed Redis
 * and a restricted ACL user may refuse: then the warning says that it cannot tell, not a guess.
 * Only asked when AOF is off: with AOF on the answer is known.
 */
import { RedisCommandError, type RedisClient } from './client.ts';
import { readInfo } from './info.ts';

/** The warning's name among the server's warnings. */
export const PERSISTENCE_WARNING = 'redis persistence';

const FIX =
  'set `appendonly yes` and `appendfsync everysec` in its redis.conf (and `CONFIG SET appendonly yes` on the running ' +
  'Redis)';

/**
 * Null when Redis keeps its data across a restart; else what it loses and the fix. `savePoints`:
 * `CONFIG GET save`'s value (`''`: none), or the error that refused it.
 */
export function persistenceProblem(
  info: ReadonlyMap<string, string>,
  savePoints: string | RedisCommandError,
  label: string,
): string | null {
  if (info.get('aof_enabled') === '1') return null;
  if (savePoints instanceof RedisCommandError) {
    return (
      `cannot tell whether Redis at ${label} keeps its data across a restart: AOF is off and it refused CONFIG ` +
      `GET save (${savePoints.message.replace(/^redis [A-Z]+: /, '')}); if it has no save points either, a restart ` +
      `loses every key and quota window: ${FIX}`
    );
  }
  if (savePoints.trim() !== '') return null;
  return (
    `Redis at ${label} keeps nothing on disk (appendonly no, no save points): a restart loses every key and ` +
    `quota window; ${FIX}`
  );
}

/**
 * The persistence warning of this Redis, or null. RedisUnavailable (the connection went) is
 * thrown: the connection's own problem reports that.
 */
export async function readPersistence(client: RedisClient): Promise<string | null> {
  const label = client.address.label;
  const info = await readInfo(client, 'persistence');
  if (info instanceof RedisCommandError)
    return (
      `cannot tell whether Redis at ${label} keeps its data across a restart (${info.message}); allow this ` +
      `server's user INFO`
    );
  if (info.get('aof_enabled') === '1') return null;
  let savePoints: string | RedisCommandError;
  try {
    const reply = (await client.send(['CONFIG', 'GET', 'save'])) as string[];
    savePoints = reply[1] ?? '';
  } catch (error) {
    if (!(error instanceof RedisCommandError)) throw error;
    savePoints = error;
  }
  return persistenceProblem(info, savePoints, label);
}
