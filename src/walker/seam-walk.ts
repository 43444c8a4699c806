/**
 * The framework-neutral walk over an adapter (`src/frameworks/seam.ts`), used by both frameworks: paths of escaped
 * segments from the root, made unique among siblings; each value the walk opens is walked once (met again, it is
 * an entry `sameAs` its first place; met inside itself, a cycle finding); depth is bounded, and a tree nested
 * deeper is refused with `TOO_DEEP`. Pure: it only calls the adapter's readers.
 */
import { type Finding, GateAuditError } from '../errors.js';
import type { FrameworkAdapter, SeamChild, SeamKind, SeamProblem, SeamTool } from '../frameworks/seam.js';
import { segmentOf, UNNAMED } from '../tree-paths.js';
import { MAX_DEPTH } from './limits.js';

/** How many places one value may be found at before its places count as unknown (conservatively). */
export const MAX_PLACES = 64;

/** One place of a walked tree. */
export interface SeamEntry<Native = unknown> {
  readonly path: readonly string[];
  /** The last segment of the path. */
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
  /** Whether the walk went inside it here (its first place, not a cycle). */
  readonly opened: boolean;
  /** What the adapter read here. */
  readonly native?: Native;
  /** The place it sits under (undefined for the root). */
  readonly parent?: SeamEntry<Native>;
}

/** One containment step: `child` sits under `parent` as `segment`. */
export interface Containment {
  readonly parent: object;
  readonly segment: string;
  readonly child: object;
}

/** A walked tree: every place, root first, every problem found, and what sits under what. */
export interface SeamInventory<Native = unknown> {
  readonly root: SeamEntry<Native>;
  readonly entries: readonly SeamEntry<Native>[];
  readonly findings: readonly Finding[];
  /** Every containment step met, for `placesOf`. */
  readonly containments: readonly Containment[];
}

/** The problem of a place met inside itself. */
const CYCLE: SeamProblem = {
  kind: 'cycle',
  reason: 'contains itself: this orchestrator is nested inside its own tree',
  fix: 'remove the nesting cycle; an orchestrator cannot run inside itself',
  acceptable: false,
};

const NO_TOOLS: readonly SeamTool[] = Object.freeze([]);

/** Where the root sits: under nothing (one array, so the root's siblings, if any, are told apart too). */
const ROOT: readonly string[] = Object.freeze([]);

function opens(child: SeamChild<unknown>): boolean {
  return child.opens ?? ((child.kind === 'orchestrator' || child.kind === 'agent') && child.problem === undefined);
}

/**
 * Walks a root the adapter recognised.
 *
 * @param adapter - the framework's adapter
 * @param root - what `adapter.recognise` returned
 * @throws GateAuditError `TOO_DEEP` when the tree nests deeper than `MAX_DEPTH` levels
 */
export function seamWalk<Root, Native>(adapter: FrameworkAdapter<Root, Native>, root: Root): SeamInventory<Native> {
  const entries: SeamEntry<Native>[] = [];
  const findings: Finding[] = [];
  const containments: Containment[] = [];
  const firstAt = new Map<unknown, readonly string[]>();
  const ancestors = new Set<unknown>();
  // A segment is made unique among its siblings with `#2`, `#3`… in walk order, so it is stable across runs; the
  // suffix loops until the name is free, and no escaped id contains `#`. Siblings share their parent's path array.
  const used = new Map<readonly string[], Set<string>>();
  const childPath = (under: readonly string[], segment: unknown): string[] => {
    const base = segmentOf(segment, UNNAMED);
    const names = used.get(under) ?? new Set<string>();
    used.set(under, names);
    let name = base;
    for (let n = 2; names.has(name); n += 1) name = `${base}#${n}`;
    names.add(name);
    return [...under, name];
  };
  const place = (
    child: SeamChild<Native>,
    under: readonly string[],
    parent: SeamEntry<Native> | undefined,
  ): SeamEntry<Native> => {
    const path = childPath(under, child.segment);
    if (path.length > MAX_DEPTH) {
      throw new GateAuditError(
        'TOO_DEEP',
        `path=<${path.slice(0, 3).join('/')}/…> | the tree nests deeper than ${MAX_DEPTH} levels | ` +
          'flatten the nesting of orchestrators and agents used as tools',
      );
    }
    const value = child.value;
    const holder = parent?.target;
    if (typeof holder === 'object' && holder !== null && typeof value === 'object' && value !== null) {
      containments.push({ parent: holder, segment: path[path.length - 1]!, child: value });
    }
    const opened = opens(child);
    const cycle = opened && ancestors.has(value);
    const first = opened && !cycle ? firstAt.get(value) : undefined;
    // One object per place, its optional fields set only when present (the walk of a large tree makes many).
    const entry: { -readonly [K in keyof SeamEntry<Native>]: SeamEntry<Native>[K] } = {
      path,
      id: path[path.length - 1]!,
      kind: child.kind,
      target: value,
      tools: child.tools ?? NO_TOOLS,
      opened: opened && !cycle && first === undefined,
    };
    if (parent !== undefined) entry.parent = parent;
    if (child.native !== undefined) entry.native = child.native;
    const problem = cycle ? CYCLE : first === undefined ? child.problem : undefined;
    if (problem !== undefined) {
      entry.problem = problem;
      findings.push({ path, kind: problem.kind, reason: problem.reason, fix: problem.fix });
    }
    if (first !== undefined) entry.sameAs = first;
    entries.push(entry);
    if (cycle || first !== undefined) return entry;
    if (child.declared !== undefined) {
      const declared = child.declared();
      entry.declares = declared.length;
      for (const inner of declared) place(inner, path, entry);
    }
    if (!opened) return entry;
    firstAt.set(value, path);
    ancestors.add(value);
    try {
      for (const next of adapter.children(value, child.native)) place(next, path, entry);
    } finally {
      ancestors.delete(value);
    }
    return entry;
  };
  const rootEntry = place(adapter.root(root), ROOT, undefined);
  return { root: rootEntry, entries, findings, containments };
}

/**
 * Every place each value can run at: under each place of each value that contains it, propagated from the root
 * through every containment step. A value found at more than `MAX_PLACES` places maps to an empty list (its place
 * counts as unknown).
 *
 * @param inventory - a walked tree
 */
export function placesOf(inventory: SeamInventory<unknown>): Map<object, string[][]> {
  const childrenOf = new Map<object, Containment[]>();
  for (const step of inventory.containments) {
    const list = childrenOf.get(step.parent) ?? [];
    list.push(step);
    childrenOf.set(step.parent, list);
  }
  const places = new Map<object, string[][]>();
  const overflow = new Set<object>();
  const work: { target: object; path: string[] }[] = [];
  const root = inventory.root.target;
  if (typeof root === 'object' && root !== null) work.push({ target: root, path: [...inventory.root.path] });
  while (work.length > 0) {
    const { target, path } = work.pop()!;
    if (overflow.has(target)) continue;
    const known = places.get(target) ?? [];
    if (known.length >= MAX_PLACES) {
      overflow.add(target);
      continue;
    }
    known.push(path);
    places.set(target, known);
    if (path.length > MAX_DEPTH) continue;
    for (const step of childrenOf.get(target) ?? []) work.push({ target: step.child, path: [...path, step.segment] });
  }
  const all = new Map<object, string[][]>();
  for (const [target, list] of places) all.set(target, overflow.has(target) ? [] : list);
  return all;
}
