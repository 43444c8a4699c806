/**
 * Checking `accept` (the acknowledgement of remote or opaque nodes that `installMultiagent`, `audit` and `plan` take)
 * against a walked tree, for every framework: each entry needs a path and a reason, must name a node of the tree, and
 * that node must be one that cannot be gated; what else keeps a node from being accepted is the framework's to say.
 * Every problem is reported at once, before anything is installed.
 */
import { GateAuditError } from '../errors.js';
import { joinPath } from '../tree-paths.js';
import type { AcceptEntry } from './install-options.js';

/** A walked place, as the check reads it. */
export interface AcceptCandidate {
  readonly path: readonly string[];
  readonly kind: string;
  /** Why it cannot be gated, when it cannot. */
  readonly problem?: object;
}

/** An `accept` entry matched to the place it names. */
export interface Accepted<E> {
  readonly entry: E;
  readonly reason: string;
}

/**
 * The places `accept` acknowledges, checked.
 *
 * @param entries - the walk's places
 * @param accept - the caller's entries
 * @param refusal - why the framework cannot accept a place that cannot be gated (given with its problem), or
 *   undefined
 * @returns each entry with the place it names
 * @throws GateAuditError `INVALID_ACCEPT` listing every entry that is wrong
 */
export function checkAccept<E extends AcceptCandidate>(
  entries: readonly E[],
  accept: readonly AcceptEntry[] | undefined,
  refusal: (entry: E, problem: NonNullable<E['problem']>) => string | undefined,
): Accepted<E>[] {
  const byPath = new Map(entries.map((entry) => [joinPath(entry.path), entry]));
  const problems: string[] = [];
  const matched: Accepted<E>[] = [];
  for (const item of accept ?? []) {
    const path = typeof item?.path === 'string' ? item.path : undefined;
    const reason = typeof item?.reason === 'string' ? item.reason.trim() : '';
    if (path === undefined || reason === '') {
      problems.push(`accept=<${String(path)}> | an accept entry needs a path and a reason`);
      continue;
    }
    const entry = byPath.get(path);
    if (entry === undefined) {
      problems.push(
        `accept=<${path}> | matches no node of the tree | fix the path (ids escaped, joined with "/") or remove the stale entry`,
      );
      continue;
    }
    const problem = entry.problem;
    if (problem === undefined) {
      problems.push(
        `accept=<${path}> | is a ${entry.kind} that can be gated, so it needs no acknowledgement | remove the entry; installMultiagent gates it`,
      );
      continue;
    }
    const refused = refusal(entry, problem);
    if (refused !== undefined) problems.push(`accept=<${path}> | ${refused}`);
    else matched.push({ entry, reason });
  }
  if (problems.length > 0) {
    throw new GateAuditError(
      'INVALID_ACCEPT',
      problems.length === 1
        ? (problems[0] as string)
        : `accept=<${problems.length} problems> | invalid accept entries\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
  return matched;
}
