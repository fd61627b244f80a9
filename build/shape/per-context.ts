/**
 * A cache per build context, for shaping that several entries share (a model looked up by slug,
 * the Pro list's items, an arena's views): made once, dropped with the context.
 */
import type { BuildContext } from './route-builder.ts';

/**
 * Cache a value per build context and key, so shaping shared by several entries runs once.
 * With a limit, the cache empties when full (entries are used close together in time).
 */
export function perContext<R>(
  limit: number,
  make: (ctx: BuildContext, key: string) => R,
): (ctx: BuildContext, key: string) => R {
  const caches = new WeakMap<BuildContext, Map<string, R>>();
  return (ctx, key) => {
    let cache = caches.get(ctx);
    if (!cache) caches.set(ctx, (cache = new Map()));
    let value = cache.get(key);
    if (value === undefined) {
      if (cache.size >= limit) cache.clear();
      cache.set(key, (value = make(ctx, key)));
    }
    return value;
  };
}
