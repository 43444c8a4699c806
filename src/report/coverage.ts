/**
 * The framework-neutral part of every coverage report: one row per place of a walked tree, judged at each place
 * by the framework's reader (a place met again says which it is the same object as), `contains` edges, a
 * declaring node's row answering with its worst declared child, warnings every framework shares (an id with hidden
 * characters, gate names shared by different gates, flow edges that form a cycle), the summary, and the refusals
 * of a plan. The coverage graph is built with graphology inside and handed out as plain, validated data. Pure.
 */
import { DirectedGraph } from 'graphology';
import type { Finding, GateConflict } from '../errors.js';
import { hasHiddenCharacters, quoted } from '../escape.js';
import type { Verdict } from './gate-verdict.js';
import { summarize } from './lines.js';
import {
  type CoverageNode,
  type CoverageReport,
  CoverageReportSchema,
  type Generator,
  type NodeStatus,
  SCHEMA_VERSION,
} from './schema.js';

/** What the neutral report needs of a walked place. */
export interface CoverageEntry {
  readonly path: readonly string[];
  readonly id: string;
  readonly sameAs?: readonly string[];
  readonly problem?: { readonly kind: string; readonly reason: string; readonly fix: string };
}

/** How a framework reads its places for the report. */
export interface CoverageReader<E extends CoverageEntry> {
  /** The row's kind. */
  kind(entry: E): CoverageNode['kind'];
  /**
   * The verdict at a place (each place is judged, a place met again too: what checks it may differ there).
   *
   * @param rowAt - the row of a place judged already (every place before this one in walk order)
   */
  verdict(entry: E, rowAt: (path: readonly string[]) => CoverageNode | undefined): Verdict;
  /** The tools and warnings of a value's first place. */
  details(entry: E): { tools: string[]; toolsUnknownUntilInit: boolean; warnings: string[] };
  /** Whether the place declares what it runs (its row then answers with its worst declared child). */
  declares(entry: E): boolean;
  /** How a declaring row names itself and a declared child, in the reason it takes from its worst child. */
  declaredReason(worst: CoverageNode): string;
  /** The framework rows are tagged with, when they are. */
  readonly framework?: CoverageNode['framework'];
}

/** A flow edge between two places (a graph's static edge). */
export interface FlowEdge {
  readonly from: readonly string[];
  readonly to: readonly string[];
  readonly conditional: boolean;
}

/** Something install would refuse the tree for: a finding of the preflight, or a gate conflict. */
export type Refusal = Pick<Finding, 'path' | 'reason' | 'fix'> & { readonly kind: Finding['kind'] | 'gate-conflict' };

/** What one report is of. */
export interface CoverageInput<E extends CoverageEntry> {
  readonly mode: 'audit' | 'plan';
  /** Every place, root first, in walk order. */
  readonly entries: readonly E[];
  readonly rootKind: CoverageReport['root']['kind'];
  readonly flows?: readonly FlowEdge[];
  readonly refusals: readonly Refusal[];
  readonly generator: Generator;
}

interface NodeAttributes {
  node: CoverageNode;
}

interface EdgeAttributes {
  kind: 'contains' | 'flow';
  conditional?: boolean;
}

const keyOf = (path: readonly string[]): string => JSON.stringify(path);

/**
 * The first cycle among the flow edges between the children of one orchestrator, as node ids (iterative). It starts
 * from the orchestrator's own children only: the flow edges of the orchestrator itself (it is a node of its parent)
 * are its parent's.
 */
function flowCycle(graph: DirectedGraph<NodeAttributes, EdgeAttributes>, orchestrator: string): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const next = (key: string, kind: EdgeAttributes['kind']): string[] =>
    graph.outNeighbors(key).filter((to) => graph.getEdgeAttribute(graph.edge(key, to), 'kind') === kind);
  const flowNext = (key: string): string[] => next(key, 'flow');
  for (const child of next(orchestrator, 'contains')) {
    if (state.get(child) !== undefined) continue;
    const stack: { key: string; next: string[] }[] = [{ key: child, next: flowNext(child) }];
    state.set(child, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const to = top.next.pop();
      if (to === undefined) {
        state.set(top.key, 'done');
        stack.pop();
        continue;
      }
      if (state.get(to) === 'open') {
        const keys = stack.map((frame) => frame.key);
        const loop = keys.slice(keys.indexOf(to));
        return [...loop, to].map((k) => graph.getNodeAttribute(k, 'node').id);
      }
      if (state.get(to) === undefined) {
        state.set(to, 'open');
        stack.push({ key: to, next: flowNext(to) });
      }
    }
  }
  return undefined;
}

/** How far from covered a status is, worst first: a declaring node answers with its worst declared child. */
const DECLARED_SEVERITY: readonly NodeStatus[] = ['ungated', 'ungateable', 'blocked', 'accepted'];

/**
 * An `attested` node says it runs what it declares, each gated: where one of them is not (ungated, ungateable,
 * blocked, or only accepted), the node's own row takes that child's status, reason and fix, so it never reads as
 * covered above a child that is not.
 */
function takeWorstDeclared(
  node: CoverageNode,
  declared: readonly CoverageNode[],
  reasonOf: (worst: CoverageNode) => string,
): void {
  if (node.status !== 'attested') return;
  for (const status of DECLARED_SEVERITY) {
    const worst = declared.find((child) => child.status === status);
    if (worst === undefined) continue;
    node.status = status;
    node.reason = `${reasonOf(worst)}, which is ${status}: ${worst.reason}`;
    // An attested row has no fix of its own to keep.
    if (worst.fix !== undefined) node.fix = worst.fix;
    return;
  }
}

/** Warns on every node whose gate shares its name with another gate of the report: names are not identities. */
function warnOnNameClashes(nodes: readonly CoverageNode[]): void {
  const idsByName = new Map<string, Set<string>>();
  for (const node of nodes) {
    if (node.gate === undefined) continue;
    const ids = idsByName.get(node.gate.name) ?? new Set<string>();
    ids.add(node.gate.id);
    idsByName.set(node.gate.name, ids);
  }
  for (const node of nodes) {
    const ids = node.gate === undefined ? undefined : idsByName.get(node.gate.name);
    if (ids === undefined || ids.size < 2) continue;
    node.warnings.push(
      `gate name "${node.gate!.name}" is used by ${ids.size} different gates in this report (ids ${[...ids].join(', ')}): ` +
        'names are not identities; give each gate its own name',
    );
  }
}

/**
 * A gate conflict install would refuse the tree for, as a refusal of the plan (in `GateConflictError`'s words).
 *
 * @param conflict - the conflict
 * @param what - what carries gates in this framework (`agent`, `tool node`)
 */
export function conflictRefusal(conflict: GateConflict, what: string): Refusal {
  return {
    path: conflict.path,
    kind: 'gate-conflict',
    reason:
      conflict.existing === conflict.requested
        ? `carries another gate also named ${quoted(conflict.existing)} (a different gate object)`
        : `carries gate ${quoted(conflict.existing)}, not ${quoted(conflict.requested)}`,
    fix: `install every ${what} with one gate (pass the same gate object), or remove the other gate first`,
  };
}

/**
 * Builds a report from a framework's walked places and its reader.
 *
 * @param input - the places, the mode, the root's kind, flow edges, refusals and the generator
 * @param reader - how the framework judges and details each place
 */
export function buildCoverage<E extends CoverageEntry>(
  input: CoverageInput<E>,
  reader: CoverageReader<E>,
): CoverageReport {
  const graph = new DirectedGraph<NodeAttributes, EdgeAttributes>();
  const rowAt = (path: readonly string[]): CoverageNode | undefined =>
    graph.hasNode(keyOf(path)) ? graph.getNodeAttribute(keyOf(path), 'node') : undefined;
  for (const entry of input.entries) {
    const key = keyOf(entry.path);
    const parentKey = entry.path.length > 1 ? keyOf(entry.path.slice(0, -1)) : undefined;
    const first = entry.sameAs === undefined ? undefined : rowAt(entry.sameAs);
    const here = reader.verdict(entry, rowAt);
    const verdict: Verdict =
      first === undefined ? here : { ...here, reason: `same object as ${first.path.join(' › ')}: ${here.reason}` };
    const details =
      first === undefined ? reader.details(entry) : { tools: [], toolsUnknownUntilInit: false, warnings: [] };
    const node: CoverageNode = {
      path: [...entry.path],
      id: entry.id,
      kind: reader.kind(entry),
      ...verdict,
      tools: details.tools,
      toolsUnknownUntilInit: details.toolsUnknownUntilInit,
      warnings: [
        ...(hasHiddenCharacters(entry.id)
          ? ['its id holds control, bidi or invisible characters (shown escaped): check where the id comes from']
          : []),
        ...details.warnings,
      ],
      ...(entry.sameAs === undefined ? {} : { sameAs: [...entry.sameAs] }),
      ...(reader.framework === undefined ? {} : { framework: reader.framework }),
    };
    graph.addNode(key, { node });
    if (parentKey !== undefined && graph.hasNode(parentKey))
      graph.addDirectedEdge(parentKey, key, { kind: 'contains' });
  }
  // Children are judged after their parent; a declaring node's row then answers for its declared children.
  for (const entry of [...input.entries].reverse()) {
    if (!reader.declares(entry) || entry.problem !== undefined) continue;
    const key = keyOf(entry.path);
    if (!graph.hasNode(key)) continue;
    const children = graph
      .filterOutNeighbors(key, (_child, attributes) => attributes.node.path.length === entry.path.length + 1)
      .map((child) => graph.getNodeAttribute(child, 'node'));
    takeWorstDeclared(graph.getNodeAttribute(key, 'node'), children, (worst) => reader.declaredReason(worst));
  }
  for (const edge of input.flows ?? []) {
    const from = keyOf(edge.from);
    const to = keyOf(edge.to);
    if (graph.hasNode(from) && graph.hasNode(to)) {
      graph.addDirectedEdge(from, to, { kind: 'flow', ...(edge.conditional ? { conditional: true } : {}) });
    }
  }
  graph.forEachNode((key, attributes) => {
    const row = attributes.node;
    if ((row.kind !== 'graph' && row.kind !== 'swarm') || row.sameAs !== undefined) return;
    const cycle = flowCycle(graph, key);
    if (cycle !== undefined) {
      row.warnings.push(
        `its edges form a cycle (${cycle.join(' → ')}): nodes can run more than once, each time under the guard`,
      );
    }
  });
  const nodes = graph.mapNodes((_key, attributes) => attributes.node);
  warnOnNameClashes(nodes);
  const edges = graph.mapEdges((_edge, attributes, source, target) => ({
    from: graph.getNodeAttribute(source, 'node').path,
    to: graph.getNodeAttribute(target, 'node').path,
    ...attributes,
  }));
  return CoverageReportSchema.parse({
    schemaVersion: SCHEMA_VERSION,
    mode: input.mode,
    root: { id: input.entries[0]!.id, kind: input.rootKind },
    nodes,
    edges,
    summary: summarize(nodes),
    refusals: input.refusals.map((f) => ({ path: [...f.path], kind: f.kind, reason: f.reason, fix: f.fix })),
    sources: [],
    generator: input.generator,
  });
}
