/**
 * A small seeded generator (mulberry32) for tests that draw random inputs: the same seed gives the
 * same sequence on every run, so a failure can be replayed.
 *
 *   const next = seededRandom(50);   next() is in [0, 1)
 */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
