/**
 * A memo bounded by count, for values cheap to recompute but computed on every request: two
 * generations of at most `limit` entries each. When the newer fills, it becomes the older and
 * the oldest are forgotten; a value found in the older is carried into the newer, so what is
 * in use stays. No per-entry bookkeeping, so a lookup costs one or two Map gets.
 */
export class RecentMap<K, V> {
  private newer = new Map<K, V>();
  private older = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    const value = this.newer.get(key);
    if (value !== undefined) return value;
    const old = this.older.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: K, value: V): void {
    if (this.newer.size >= this.limit) {
      this.older = this.newer;
      this.newer = new Map();
    }
    this.newer.set(key, value);
  }

  /** Entries held now: at most twice the limit. */
  get size(): number {
    return this.newer.size + this.older.size;
  }
}

/**
 * `make`, remembering its last results (two generations of `limit`): for names the request path
 * builds from a string again and again (a quota counter's id from its scope). The name is the
 * same string each time, so the Maps it keys find it by the hash it already holds, where a name
 * built anew is first flattened and hashed (bench/analysis.md, "A shorter path").
 */
export function remembered(make: (from: string) => string, limit = 4096): (from: string) => string {
  const made = new RecentMap<string, string>(limit);
  return (from) => {
    let name = made.get(from);
    if (name === undefined) made.set(from, (name = make(from)));
    return name;
  };
}
