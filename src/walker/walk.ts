/**
 * The pure traversal of an orchestrator tree: Graph and Swarm nodes, nested orchestrators (through
 * `MultiAgentNode` or an `AgentNode` holding a Graph/Swarm), and agents used as tools, recursively.
 * It never calls `addHook`, `initialize`, `invoke` or `stream`, and changes nothing.
 */
import { type Finding, GateAuditError } from '../errors.js';
import { segmentOf, UNNAMED } from '../tree-paths.js';
import { type Classified, classifyExecutor, type EntryKind, openNode, type Problem } from './classify.js';
import type { Declared } from './declare.js';
import {
  type Agent,
  Graph,
  isConditionalEdge,
  listTools,
  type Orchestrator,
  readAgentTool,
} from '../frameworks/strands/sdk-internals.js';
import { readData } from './safe-read.js';
import { nodeMap, topologyProblems } from './topology.js';

import { MAX_DEPTH } from './limits.js';

export { MAX_DEPTH };

/** How many places one agent may be found at before its places count as unknown (conservatively). */
export const MAX_PLACES = 64;

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

/** One containment step: `child` sits under `parent` as `segment`. */
interface Containment {
  readonly parent: object;
  readonly segment: string;
  readonly child: object;
}

class Walk {
  readonly entries: Entry[] = [];
  readonly agents: { agent: Agent; path: readonly string[] }[] = [];
  readonly orchestrators: { orchestrator: Orchestrator; path: readonly string[] }[] = [];
  readonly edges: WalkedEdge[] = [];
  readonly findings: Finding[] = [];
  readonly containments: Containment[] = [];
  private readonly _seen = new Map<object, readonly string[]>();
  private readonly _ancestors = new Set<object>();
  private readonly _children = new Map<string, Set<string>>();

  place(
    path: readonly string[],
    kind: EntryKind,
    classified: Classified,
    subject: unknown,
    parent: object | undefined,
  ): Entry {
    if (path.length > MAX_DEPTH) {
      throw new GateAuditError(
        'TOO_DEEP',
        `path=<${path.slice(0, 3).join('/')}/…> | the tree nests deeper than ${MAX_DEPTH} levels | ` +
          'flatten the nesting of orchestrators and agents used as tools',
      );
    }
    const walked =
      'agent' in classified ? classified.agent : 'orchestrator' in classified ? classified.orchestrator : undefined;
    const base = { path, id: path[path.length - 1] ?? '', kind, target: walked ?? subject };
    const target = walked ?? subject;
    if (parent !== undefined && typeof target === 'object' && target !== null) {
      this.containments.push({ parent, segment: path[path.length - 1] ?? '', child: target });
    }
    if (classified.problem !== undefined && walked === undefined)
      return this._add({ ...base, problem: classified.problem });
    if ('declared' in classified) return this._declared(base, classified.declared);
    if (walked === undefined) return this._add(base);
    if (classified.problem !== undefined && classified.kind === 'agent')
      return this._add({ ...base, problem: classified.problem });
    if (this._ancestors.has(walked)) {
      return this._add({
        ...base,
        problem: {
          kind: 'cycle',
          reason: 'contains itself: this orchestrator is nested inside its own tree',
          fix: 'remove the nesting cycle; an orchestrator cannot run inside itself',
        },
      });
    }
    const first = this._seen.get(walked);
    if (first !== undefined) return this._add({ ...base, sameAs: first });
    this._seen.set(walked, path);
    this._ancestors.add(walked);
    try {
      if (classified.kind === 'agent') {
        const entry = this._add(base);
        this._agent(classified.agent, path);
        return entry;
      }
      const orchestrator = (classified as { orchestrator: Orchestrator }).orchestrator;
      const topology = classified.problem === undefined ? topologyProblems(orchestrator) : [];
      const problem: Problem | undefined =
        classified.problem ??
        (topology.length > 0
          ? {
              kind: 'topology',
              reason:
                `is inconsistent: ${topology[0]}${topology.length > 1 ? ` (and ${topology.length - 1} more)` : ''}, ` +
                'so a guard keyed by node id would judge the wrong object; the guard cancels every node',
              fix: 'build the orchestrator once with its final nodes and edges; do not swap node objects or map keys',
            }
          : undefined);
      const entry = this._add(problem === undefined ? base : { ...base, problem });
      this._orchestrator(orchestrator, path);
      return entry;
    } finally {
      this._ancestors.delete(walked);
    }
  }

  private _add(entry: Entry): Entry {
    this.entries.push(entry);
    if (entry.problem !== undefined) {
      this.findings.push({
        path: entry.path,
        kind: entry.problem.kind,
        reason: entry.problem.reason,
        fix: entry.problem.fix,
      });
    }
    return entry;
  }

  /**
   * The path of a child: its id under the parent as an escaped segment (`segmentOf`), made unique among
   * its siblings with `#2`, `#3`… in walk order (so it is stable across runs), and `#unnamed` for a
   * missing id. The suffix loops until the name is free, and no escaped id contains `#`.
   */
  childPath(parent: readonly string[], id: unknown): string[] {
    const segment = segmentOf(id, UNNAMED);
    const key = JSON.stringify(parent);
    const used = this._children.get(key) ?? new Set<string>();
    this._children.set(key, used);
    let name = segment;
    for (let n = 2; used.has(name); n += 1) name = `${segment}#${n}`;
    used.add(name);
    return [...parent, name];
  }

  /** A custom node or executor that declares what it runs: attested, and its declared executors walked. */
  private _declared(base: Omit<Entry, 'declared'>, declared: Declared): Entry {
    const entry = this._add({ ...base, declared });
    const owner = base.target;
    for (const executor of declared.agents) {
      const classified = classifyExecutor(executor);
      this.place(
        this.childPath(base.path, readData(executor, 'id')),
        classified.kind,
        classified,
        executor,
        typeof owner === 'object' && owner !== null ? owner : undefined,
      );
    }
    return entry;
  }

  private _agent(agent: Agent, path: readonly string[]): void {
    this.agents.push({ agent, path });
    for (const tool of listTools(agent)) {
      const read = readAgentTool(tool);
      if (read.kind === 'not-agent-tool') continue;
      const name = readData(tool, 'name');
      const childPath = this.childPath(path, name);
      if (read.kind === 'opaque') {
        this.place(
          childPath,
          'custom',
          {
            kind: 'custom',
            problem: {
              kind: 'foreign-executor',
              reason: `is an agent used as a tool that ${read.reason}`,
              fix: 'use agent.asTool() or put the Agent itself in tools, and do not patch the tool',
            },
          },
          tool,
          agent,
        );
        continue;
      }
      const classified = classifyExecutor(read.agent);
      const kind = classified.kind === 'agent' ? 'agent-tool' : classified.kind;
      this.place(childPath, kind, classified, read.agent, agent);
    }
  }

  private _orchestrator(orchestrator: Orchestrator, path: readonly string[]): void {
    this.orchestrators.push({ orchestrator, path });
    const nodes = nodeMap(orchestrator);
    if (typeof nodes === 'string') return;
    const pathOfNode = new Map<unknown, readonly string[]>();
    for (const [id, node] of nodes) {
      const nodePath = this.childPath(path, id);
      pathOfNode.set(node, nodePath);
      const content = openNode(node);
      if (content.via === 'custom') {
        this.place(nodePath, 'custom', { kind: 'custom', problem: content.problem }, node, orchestrator);
        continue;
      }
      if (content.via === 'declared') {
        this.place(nodePath, 'custom', { kind: 'custom', declared: content.declared }, node, orchestrator);
        continue;
      }
      const classified = classifyExecutor(content.executor);
      this.place(nodePath, classified.kind, classified, content.executor, orchestrator);
    }
    if (orchestrator instanceof Graph) {
      const edges = readData(orchestrator, 'edges');
      if (!Array.isArray(edges)) return;
      for (const edge of edges) {
        const source = readData(edge, 'source');
        const target = readData(edge, 'target');
        const from = pathOfNode.get(source) ?? [...path, segmentOf(readData(source, 'id'), UNNAMED)];
        const to = pathOfNode.get(target) ?? [...path, segmentOf(readData(target, 'id'), UNNAMED)];
        this.edges.push({ from, to, conditional: isConditionalEdge(edge) });
      }
    }
  }
}

/** Every place each agent, orchestrator and custom node can run at, propagated from the root through every containment step. */
function placesOf(
  root: unknown,
  rootPath: readonly string[],
  containments: readonly Containment[],
): Map<object, string[][]> {
  const childrenOf = new Map<object, Containment[]>();
  for (const step of containments) {
    const list = childrenOf.get(step.parent) ?? [];
    list.push(step);
    childrenOf.set(step.parent, list);
  }
  const places = new Map<object, string[][]>();
  const overflow = new Set<object>();
  const work: { target: object; path: string[] }[] = [];
  if (typeof root === 'object' && root !== null) work.push({ target: root, path: [...rootPath] });
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

/**
 * Walks an orchestrator (or a single agent) and everything reachable from it.
 *
 * @param root - a Graph, a Swarm or an Agent
 * @returns the inventory of the tree; `root.problem` is set when the root itself is not gateable
 * @throws GateAuditError `TOO_DEEP` when the tree nests deeper than `MAX_DEPTH` levels
 */
export function walk(root: unknown): Inventory {
  const state = new Walk();
  const classified = classifyExecutor(root);
  const id = segmentOf(readData(root, 'id'), UNNAMED);
  const rootEntry = state.place([id], classified.kind, classified, root, undefined);
  const places = placesOf(root, [id], state.containments);
  return {
    root: rootEntry,
    entries: state.entries,
    agents: state.agents,
    orchestrators: state.orchestrators,
    edges: state.edges,
    findings: state.findings,
    places,
  };
}
