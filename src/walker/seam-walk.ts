/**
 * The framework-neutral walk over an adapter (`src/frameworks/seam.ts`): paths of escaped segments from the
 * root, each value walked once (a value met again is an entry `sameAs` its first place), a value met inside
 * itself is a cycle finding, and depth is bounded. Pure: it only calls the adapter's readers.
 */
import type { Finding } from '../errors.js';
import type { FrameworkAdapter, SeamChild, SeamKind, SeamProblem, SeamTool } from '../frameworks/seam.js';
import { segmentOf, UNNAMED } from '../tree-paths.js';
import { MAX_DEPTH } from './limits.js';

/** One place of a walked tree. */
export interface SeamEntry {
  readonly path: readonly string[];
  readonly id: string;
  readonly kind: SeamKind;
  /** The value here (undefined for a place with no value of its own). */
  readonly target: unknown;
  readonly problem?: SeamProblem;
  /** Where the same value was met first (it is walked, judged and gated there). */
  readonly sameAs?: readonly string[];
  /** For a custom node that declares what it runs: how many of its children it declared. */
  readonly declares?: number;
  readonly tools: readonly SeamTool[];
}

/** A walked tree: every place, root first, and every problem found. */
export interface SeamInventory {
  readonly root: SeamEntry;
  readonly entries: readonly SeamEntry[];
  readonly findings: readonly Finding[];
}

function findingOf(path: readonly string[], problem: SeamProblem): Finding {
  return { path, kind: problem.kind, reason: problem.reason, fix: problem.fix };
}

/**
 * Walks a root the adapter recognised.
 *
 * @param adapter - the framework's adapter
 * @param root - what `adapter.recognise` returned
 */
export function seamWalk<Root>(adapter: FrameworkAdapter<Root>, root: Root): SeamInventory {
  const entries: SeamEntry[] = [];
  const findings: Finding[] = [];
  const firstAt = new Map<unknown, readonly string[]>();
  const rootEntry: SeamEntry = {
    path: [segmentOf(adapter.rootId(root), UNNAMED)],
    id: segmentOf(adapter.rootId(root), UNNAMED),
    kind: adapter.rootKind(root),
    target: root,
    tools: [],
  };
  entries.push(rootEntry);
  firstAt.set(root, rootEntry.path);
  const visit = (parent: SeamEntry, ancestors: readonly unknown[]): void => {
    for (const child of adapter.children(parent.target)) place(child, parent.path, [...ancestors, parent.target]);
  };
  // A segment is made unique among its siblings with `#2`, `#3`… in walk order (as the Strands walk does).
  const used = new Map<string, Set<string>>();
  const childPath = (under: readonly string[], segment: string): string[] => {
    const key = JSON.stringify(under);
    const names = used.get(key) ?? new Set<string>();
    used.set(key, names);
    const base = segmentOf(segment, UNNAMED);
    let name = base;
    for (let n = 2; names.has(name); n += 1) name = `${base}#${n}`;
    names.add(name);
    return [...under, name];
  };
  const place = (child: SeamChild, under: readonly string[], ancestors: readonly unknown[]): void => {
    const path = childPath(under, child.segment);
    const id = path[path.length - 1]!;
    if (path.length > MAX_DEPTH) {
      findings.push({
        path,
        kind: 'topology',
        reason: `the tree nests deeper than ${MAX_DEPTH} levels`,
        fix: 'flatten the tree',
      });
      return;
    }
    if (child.value !== undefined && ancestors.includes(child.value)) {
      findings.push({
        path,
        kind: 'cycle',
        reason: 'contains itself (a graph is one of its own nodes or subgraphs)',
        fix: 'remove the cycle: a graph cannot run inside itself',
      });
      return;
    }
    const seen = child.value === undefined || child.kind === 'remote' ? undefined : firstAt.get(child.value);
    const entry: SeamEntry = {
      path,
      id,
      kind: child.kind,
      target: child.value,
      tools: child.tools ?? [],
      ...(child.problem === undefined ? {} : { problem: child.problem }),
      ...(seen === undefined ? {} : { sameAs: seen }),
      ...(child.declared === undefined ? {} : { declares: child.declared.length }),
    };
    entries.push(entry);
    if (child.problem !== undefined) findings.push(findingOf(path, child.problem));
    if (seen !== undefined) return;
    if (child.value !== undefined) firstAt.set(child.value, path);
    for (const declared of child.declared ?? []) place(declared, path, [...ancestors, child.value]);
    // An orchestrator's nodes, and an agent's agents used as tools.
    if ((child.kind === 'orchestrator' || child.kind === 'agent') && child.problem === undefined)
      visit(entry, ancestors);
  };
  visit(rootEntry, []);
  return { root: rootEntry, entries, findings };
}
