/**
 * Tree paths: where a node, agent or orchestrator sits in a Graph/Swarm tree, as a chain of segments from the
 * root (file paths in policies are `policy/paths-urls/file-path.ts`). One rule makes every path unambiguous, as
 * an array and as one string:
 *
 * - a segment is an id with `%`, `/` and `#` written `%25`, `%2F` and `%23` (the escape character is
 *   escaped too, so `acme/prod` and `acme%2Fprod` stay two different segments);
 * - siblings with the same id get a `#2`, `#3`… suffix after escaping, which no id can produce;
 * - the string form joins segments with `/` (policy `paths:` rules, logs, tokens, merge keys).
 */

/**
 * The segment for a missing or empty id. It starts with `#`, which no escaped id contains, so it can never
 * be mistaken for a real id (a node really called `(unnamed)` keeps its own segment).
 */
export const UNNAMED = '#unnamed';

/**
 * The segment for an id: `%`, `/` and `#` percent-escaped.
 *
 * @param id - a raw id (of an orchestrator, node, agent or tool)
 * @returns the escaped segment
 */
export function escapeSegment(id: string): string {
  return id.replace(/[%/#]/g, (c) => (c === '%' ? '%25' : c === '/' ? '%2F' : '%23'));
}

/**
 * The segment of a value's id, or `fallback` when it has none: what the walk and the gates use.
 *
 * @param id - the id as read (anything)
 * @param fallback - the segment for a missing or empty id (`UNNAMED`)
 */
export function segmentOf(id: unknown, fallback: string): string {
  return typeof id === 'string' && id !== '' ? escapeSegment(id) : fallback;
}

/**
 * The string form of a path: its segments joined with `/`. Distinct paths give distinct strings.
 *
 * @param path - the segments
 */
export function joinPath(path: readonly string[]): string {
  return path.join('/');
}
