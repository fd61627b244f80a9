/**
 * "Did you mean": the known name a misspelt one most likely meant. The build names the field a
 * misspelt one meant; the keys command the provider a misspelt slug meant; the 404 the route a
 * mistyped path meant (src/http/nearest-route.ts, which bounds its own work); every command the
 * flag a mistyped one meant (src/shared/flags.ts).
 */

/** Edits (insert, delete, replace one character) that turn one name into the other: O(a x b) time. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}

/**
 * The known name a misspelt one most likely meant: at most `mostEdits` edits off (by default a
 * third of its letters, and at least one), else null.
 */
export function closestName(
  name: string,
  known: Iterable<string>,
  mostEdits = Math.max(1, Math.floor(name.length / 3)),
): string | null {
  let best: string | null = null;
  let bestDistance = mostEdits + 1;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}
