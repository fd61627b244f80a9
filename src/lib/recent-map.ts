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
 * `make(kind, from)`, remembering its last results for each kind (two generations of `limit`
 * each): for names the request path builds again and again from a string and one of a few kinds
 * (a quota counter's id, a usage key). The name is the same string each time, so the Maps it keys
 * find it by the hash it already holds, where a name built anew is first flattened and hashed
 * (bench/analysis.md, "A shorter path"). Kinds are the caller's few constants: each keeps a memo.
 */
export function rememberedByKind(
  make: (kind: string, from: string) => string,
  limit = 4096,
): (kind: string, from: string) => string {
  const byKind = new Map<string, RecentMap<string, string>>();
  return (kind, from) => {
    let made = byKind.get(kind);
    if (made === undefined) byKind.set(kind, (made = new RecentMap(limit)));
    let name = made.get(from);
    if (name === undefined) made.set(from, (name = make(kind, from)));
    return name;
  };
}
