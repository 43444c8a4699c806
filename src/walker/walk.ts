/**
 * The pure traversal of a Strands orchestrator tree: Graph and Swarm nodes, nested orchestrators (through
 * `MultiAgentNode` or an `AgentNode` holding a Graph/Swarm), and agents used as tools, recursively. It is the
 * framework-neutral walk (`seam-walk.ts`: paths, identity, cycles, depth) over the Strands adapter, read back as
 * Strands entries with the views only Strands has (graph edges, the agents and orchestrators to gate). It never
 * calls `addHook`, `initialize`, `invoke` or `stream`, and changes nothing.
 */
import type { Finding } from '../errors.js';
import { strandsAdapter, type StrandsNative } from '../frameworks/strands/adapter.js';
import { segmentOf, UNNAMED } from '../tree-paths.js';
import type { EntryKind, Problem } from './classify.js';
import type { Declared } from './declare.js';
import { type Agent, Graph, isConditionalEdge, type Orchestrator } from '../frameworks/strands/sdk-internals.js';
import { readData } from './safe-read.js';
import { nodeMap } from './topology.js';
import { MAX_PLACES, placesOf, type SeamEntry, seamWalk } from './seam-walk.js';

import { MAX_DEPTH } from './limits.js';

export { MAX_DEPTH, MAX_PLACES };

/** One place in the tree: an orchestrator, a node's executor, or an agent used as a tool. */
export interface Entry {
  /** Chain of escaped segments (orchestrator id, node ids, agent-as-tool names) from the root. */
  readonly path: readonly string[];
  /** The last segment of the path. */
  readonly id: string;
  /** What sits here. */
  readonly kind: EntryKind;
  /** The Agent, Graph or Swarm here, or the opaque executor or node. */
  readonly target: unknown;
  /** Why this place cannot be gated, if it cannot. */
  readonly problem?: Problem;
  /** Path where the same agent or orchestrator was met first (it is walked and gated once, there). */
  readonly sameAs?: readonly string[];
  /** For a custom node or executor: what it declares it runs (see `GOVERNS`). */
  readonly declared?: Declared;
}

/** A static graph edge between two node paths. */
export interface WalkedEdge {
  readonly from: readonly string[];
  readonly to: readonly string[];
  /** The edge has a condition (it is taken only when its handler says so). */
  readonly conditional: boolean;
}

/** The result of a walk: every place, the unique agents and orchestrators, and every problem. */
export interface Inventory {
  /** The root entry. */
  readonly root: Entry;
  /** Every entry in walk order, root first. */
  readonly entries: readonly Entry[];
  /** Each local agent once, at the first path it was met. */
  readonly agents: readonly { readonly agent: Agent; readonly path: readonly string[] }[];
  /** Each Graph or Swarm once, at the first path it was met. */
  readonly orchestrators: readonly { readonly orchestrator: Orchestrator; readonly path: readonly string[] }[];
  /** Graph edges, by node path. */
  readonly edges: readonly WalkedEdge[];
  /** Every problem found, with its path. */
  readonly findings: readonly Finding[];
  /**
   * Every place each agent, orchestrator and custom node can run at: under each place of each orchestrator or
   * agent that contains it. One found at more than `MAX_PLACES` places maps to an empty list (its place counts as
   * unknown).
   */
  readonly places: ReadonlyMap<object, readonly (readonly string[])[]>;
}

function entryOf(entry: SeamEntry<StrandsNative>): Entry {
  const native = entry.native!;
  const out: { -readonly [K in keyof Entry]: Entry[K] } = {
    path: entry.path,
    id: entry.id,
    kind: native.kind,
    target: entry.target,
  };
  if (entry.problem !== undefined) {
    out.problem = { kind: entry.problem.kind, reason: entry.problem.reason, fix: entry.problem.fix };
  }
  if (entry.sameAs !== undefined) out.sameAs = entry.sameAs;
  else if ('declared' in native.classified) out.declared = native.classified.declared;
  return out;
}

/** A Graph's static edges, by the paths of the nodes at their ends. */
function edgesOf(graph: Graph, path: readonly string[], nodes: readonly SeamEntry<StrandsNative>[]): WalkedEdge[] {
  const edges = readData(graph, 'edges');
  // A node map that cannot be read gives no node paths to join (its graph's guard cancels every node).
  if (!Array.isArray(edges) || typeof nodeMap(graph) === 'string') return [];
  const pathOfNode = new Map<unknown, readonly string[]>();
  for (const node of nodes) if (node.native?.node !== undefined) pathOfNode.set(node.native.node, node.path);
  return edges.map((edge: unknown) => {
    const source = readData(edge, 'source');
    const target = readData(edge, 'target');
    return {
      from: pathOfNode.get(source) ?? [...path, segmentOf(readData(source, 'id'), UNNAMED)],
      to: pathOfNode.get(target) ?? [...path, segmentOf(readData(target, 'id'), UNNAMED)],
      conditional: isConditionalEdge(edge),
    };
  });
}

/**
 * Walks an orchestrator (or a single agent) and everything reachable from it.
 *
 * @param root - a Graph, a Swarm or an Agent
 * @returns the inventory of the tree; `root.problem` is set when the root itself is not gateable
 * @throws GateAuditError `TOO_DEEP` when the tree nests deeper than `MAX_DEPTH` levels
 */
export function walk(root: unknown): Inventory {
  const inventory = seamWalk(strandsAdapter, root);
  const entries = inventory.entries.map(entryOf);
  const agents: { agent: Agent; path: readonly string[] }[] = [];
  const orchestrators: { orchestrator: Orchestrator; path: readonly string[] }[] = [];
  const edges: WalkedEdge[] = [];
  // The direct children of each place, in walk order.
  const childrenOf = new Map<SeamEntry<StrandsNative>, SeamEntry<StrandsNative>[]>();
  for (const entry of inventory.entries) {
    if (entry.parent === undefined) continue;
    const list = childrenOf.get(entry.parent);
    if (list === undefined) childrenOf.set(entry.parent, [entry]);
    else list.push(entry);
  }
  for (const entry of inventory.entries) {
    if (!entry.opened) continue;
    const classified = entry.native!.classified;
    if ('agent' in classified) agents.push({ agent: classified.agent, path: entry.path });
    if ('orchestrator' in classified) orchestrators.push({ orchestrator: classified.orchestrator, path: entry.path });
  }
  // A Graph's edges follow those of everything nested in it (children first, as its nodes are walked first).
  const edgesBelow = (entry: SeamEntry<StrandsNative>): void => {
    const nodes = childrenOf.get(entry) ?? [];
    for (const node of nodes) edgesBelow(node);
    const classified = entry.native!.classified;
    if (entry.opened && 'orchestrator' in classified && classified.orchestrator instanceof Graph) {
      edges.push(...edgesOf(classified.orchestrator, entry.path, nodes));
    }
  };
  edgesBelow(inventory.root);
  return {
    root: entries[0]!,
    entries,
    agents,
    orchestrators,
    edges,
    findings: inventory.findings,
    places: placesOf(inventory),
  };
}
