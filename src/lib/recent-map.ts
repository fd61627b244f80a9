/**
 * A memo bounded by count, for values cheap to recompute but computed on every request: two
 * generations of at most `limit` entries each. When the newer fills, it becomes the older and
 * the oldest are forgotten; a value found in the older is carried into the newer, so what is
 * in use stays. No per-entry bookkeeping, so a lookup costs one or two Map gets, or none when it
 * asks for the entry last found or set (held besides, and forgotten only by clear).
 */
export class RecentMap<K, V> {
  private newer = new Map<K, V>();
  private older = new Map<K, V>();
  /** The entry last found or set, compared before the Maps are read (see get). */
  private lastKey: K | undefined = undefined;
  private lastValue: V | undefined = undefined;

  constructor(private readonly limit: number) {}

  /**
   * The last entry's key is compared first. A string read from a request (an API key, a URL, an
   * `Accept-Encoding`) is a new string each time: a Map hashes all of it before it can look, some
   * 400 instructions for an API key, where `===` compares two equal strings' characters. With the
   * request path's memos read so, strings hashed a request fell from 1,245 to 97 instructions and a
   * request from 84.7k to 83.2k (callgrind, the Commercial list page, rounds of 16; bench/analysis.md,
   * "Strings hashed once").
   */
  get(key: K): V | undefined {
    if (key === this.lastKey) return this.lastValue;
    const value = this.newer.get(key);
    if (value !== undefined) {
      this.lastKey = key;
      this.lastValue = value;
      return value;
    }
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
    this.lastKey = key;
    this.lastValue = value;
  }

  /** Forget every entry. */
  clear(): void {
    this.newer.clear();
    this.older.clear();
    this.lastKey = undefined;
    this.lastValue = undefined;
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
