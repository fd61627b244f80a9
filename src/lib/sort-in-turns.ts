/**
 * Items sorted (strings as `Array.prototype.sort` orders them, by UTF-16 code units, or by a
 * comparison) without holding the event loop: runs of RUN items sorted at once, then merged
 * pairwise, a turn of the loop whenever SLICE_MS have gone by; stable, as Array.prototype.sort is.
 * Why: one sort of 100,000 scopes held the loop for tens of milliseconds, and a server sorts a
 * day's scopes of the usage history while it serves (src/quota/usage-book.ts); one of 100,000
 * keys' views by a comparison, for a deep page of the admin table, held it 300-380 ms.
 */
import { performance } from 'node:perf_hooks';

/** Items sorted at once: a millisecond or two by a comparison. */
const RUN = 1024;
/** How long the sort runs between turns; a request waiting on Redis waits for two turns or more. */
const SLICE_MS = 5;
/** Merge moves between looks at the clock. */
const MOVES_A_LOOK = 1024;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Strings in code-unit order, as Array.prototype.sort orders them by default. */
const byCodeUnits = (a: unknown, b: unknown): number => (a! < b! ? -1 : a! > b! ? 1 : 0);

/** `items` sorted (a new array when it had more than a run of them). */
export async function sortInTurns<T = string>(
  items: T[],
  compare: (a: T, b: T) => number = byCodeUnits,
  { pause = nextTurn, sliceMs = SLICE_MS }: { pause?: () => Promise<void>; sliceMs?: number } = {},
): Promise<T[]> {
  if (items.length <= RUN) return items.sort(compare);
  let since = performance.now();
  const turn = async () => {
    if (performance.now() - since < sliceMs) return;
    await pause();
    since = performance.now();
  };
  let from = items.slice();
  const n = from.length;
  for (let start = 0; start < n; start += RUN) {
    const run = from.slice(start, start + RUN).sort(compare);
    for (let i = 0; i < run.length; i++) from[start + i] = run[i]!;
    await turn();
  }
  let to: T[] = new Array<T>(n);
  let moves = 0;
  for (let width = RUN; width < n; width *= 2) {
    for (let left = 0; left < n; left += 2 * width) {
      const middle = Math.min(left + width, n);
      const end = Math.min(left + 2 * width, n);
      let i = left;
      let j = middle;
      for (let k = left; k < end; k++) {
        to[k] = j >= end || (i < middle && compare(from[i]!, from[j]!) <= 0) ? from[i++]! : from[j++]!;
        if (++moves === MOVES_A_LOOK) {
          moves = 0;
          await turn();
        }
      }
    }
    [from, to] = [to, from];
  }
  return from;
}
