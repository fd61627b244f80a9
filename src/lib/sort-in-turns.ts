/**
 * Strings sorted (as `Array.prototype.sort` orders them, by UTF-16 code units) without holding the
 * event loop: runs of RUN strings sorted at once, then merged pairwise, MOVES_A_TURN strings a
 * turn. Why: one sort of 100,000 scopes held the loop for tens of milliseconds, and a server sorts
 * a day's scopes of the usage history while it serves (src/quota/usage-book.ts).
 */

const RUN = 4096;
const MOVES_A_TURN = 32_768;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `items` sorted (a new array when it had more than a run of them). */
export async function sortInTurns(items: string[], pause: () => Promise<void> = nextTurn): Promise<string[]> {
  if (items.length <= RUN) return items.sort();
  let from = items.slice();
  const n = from.length;
  for (let start = 0; start < n; start += RUN) {
    const run = from.slice(start, start + RUN).sort();
    for (let i = 0; i < run.length; i++) from[start + i] = run[i]!;
    await pause();
  }
  let to: string[] = new Array<string>(n);
  let moves = 0;
  for (let width = RUN; width < n; width *= 2) {
    for (let left = 0; left < n; left += 2 * width) {
      const middle = Math.min(left + width, n);
      const end = Math.min(left + 2 * width, n);
      let i = left;
      let j = middle;
      for (let k = left; k < end; k++) {
        to[k] = j >= end || (i < middle && from[i]! <= from[j]!) ? from[i++]! : from[j++]!;
        if (++moves === MOVES_A_TURN) {
          moves = 0;
          await pause();
        }
      }
    }
    [from, to] = [to, from];
  }
  return from;
}
