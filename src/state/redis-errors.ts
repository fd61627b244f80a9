/** Redis's failures as the store's errors, for the key and quota modules that speak to it. */
import { RedisCommandError, RedisUnavailable } from '../redis/client.ts';
import type { RefusalWatch } from '../redis/refusals.ts';
import { StoreUnavailable } from './errors.ts';

/**
 * A failure to reach Redis (or a refusal by it) becomes StoreUnavailable, which the app answers
 * with a 503. A refusal is told to `watch` as one of `command`'s, which reports it once while it
 * lasts (src/redis/refusals.ts), not once a request.
 */
export function unavailable(watch: RefusalWatch, command: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof RedisCommandError) watch.refused(command, error);
    if (error instanceof RedisUnavailable || error instanceof RedisCommandError)
      throw new StoreUnavailable({ cause: error });
    throw error;
  };
}
