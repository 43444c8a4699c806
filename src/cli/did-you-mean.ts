/**
 * "Did you mean": the closest known name to a mistyped one, when it is close enough to be a typo.
 */

/** The edit distance between two strings (insertions, deletions, substitutions, adjacent swaps). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i += 1) {
    for (let j = 1; j < cols; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i]!;
      const above = d[i - 1]!;
      row[j] = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[rows - 1]![cols - 1]!;
}

/**
 * The known name closest to `name`, if it is within a typo's distance (a third of its length, at least 1;
 * case is ignored).
 *
 * @param name - the name as written
 * @param known - the names it may have meant
 */
export function closest(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const limit = Math.max(1, Math.floor(name.length / 3));
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** ` | did you mean "x"?` when a close name exists, else an empty string. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const match = closest(name, known);
  return match === undefined ? '' : ` | did you mean "${match}"?`;
}
