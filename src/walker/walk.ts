/**
 * The pure traversal of an orchestrator tree: Graph and Swarm nodes, nested orchestrators (through
 * `MultiAgentNode` or an `AgentNode` holding a Graph/Swarm), and agents used as tools, recursively.
 * It never calls `addHook`, `initialize`, `invoke` or `stream`, and changes nothing.
 */
import type { Finding } from '../errors.js';
import { segmentOf } from '../paths.js';
import { type Classified, classifyExecutor, type EntryKind, openNode, type Problem } from './classify.js';
import type { Declared } from './declare.js';
import {
  type Agent,
  agentAsToolTarget,
  Graph,
  isConditionalEdge,
  listTools,
  type Orchestrator,
} from './sdk-internals.js';
import { topologyProblems } from './topology.js';

/** One place in the tree: an orchestrator, a node's executor, or an agent used as a tool. */
export interface Entry {
  /** Chain of orchestrator id, node ids and agent-as-tool names from the root. */
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
}

class Walk {
  readonly entries: Entry[] = [];
  readonly agents: { agent: Agent; path: readonly string[] }[] = [];
  readonly orchestrators: { orchestrator: Orchestrator; path: readonly string[] }[] = [];
  readonly edges: WalkedEdge[] = [];
  readonly findings: Finding[] = [];
  private readonly _seen = new Map<object, readonly string[]>();
  private readonly _ancestors = new Set<object>();

  place(path: readonly string[], kind: EntryKind, classified: Classified, subject?: unknown): Entry {
    const walked =
      'agent' in classified ? classified.agent : 'orchestrator' in classified ? classified.orchestrator : undefined;
    const base = { path, id: path[path.length - 1] ?? '', kind, target: walked ?? subject };
    if (classified.problem !== undefined) return this._add({ ...base, problem: classified.problem });
    if ('declared' in classified) return this._declared(base, classified.declared);
    if (walked === undefined) return this._add(base);
    const target: object = walked;
    if (this._ancestors.has(target)) {
      return this._add({
        ...base,
        problem: {
          kind: 'cycle',
          reason: 'contains itself: this orchestrator is nested inside its own tree',
          fix: 'remove the nesting cycle; an orchestrator cannot run inside itself',
        },
      });
    }
    const first = this._seen.get(target);
    if (first !== undefined) return this._add({ ...base, sameAs: first });
    this._seen.set(target, path);
    const entry = this._add(base);
    this._ancestors.add(target);
    if (classified.kind === 'agent') this._agent(classified.agent, path);
    else if (classified.kind === 'graph' || classified.kind === 'swarm')
      this._orchestrator(classified.orchestrator, path);
    this._ancestors.delete(target);
    return entry;
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
   * its siblings with `#2`, `#3`… in walk order (so it is stable across runs), and `(unnamed)` for a
   * missing id. The suffix loops until the name is free, and no escaped id contains `#`.
   */
  childPath(parent: readonly string[], id: unknown): string[] {
    const segment = segmentOf(id, '(unnamed)');
    const key = JSON.stringify(parent);
    const used = this._children.get(key) ?? new Set<string>();
    this._children.set(key, used);
    let name = segment;
    for (let n = 2; used.has(name); n += 1) name = `${segment}#${n}`;
    used.add(name);
    return [...parent, name];
  }

  private readonly _children = new Map<string, Set<string>>();

  /** A custom node or executor that declares what it runs: attested, and its declared executors walked. */
  private _declared(base: Omit<Entry, 'declared'>, declared: Declared): Entry {
    const entry = this._add({ ...base, declared });
    for (const executor of declared.agents) {
      const classified = classifyExecutor(executor);
      this.place(this.childPath(base.path, idOf(executor)), classified.kind, classified, executor);
    }
    return entry;
  }

  private _agent(agent: Agent, path: readonly string[]): void {
    this.agents.push({ agent, path });
    for (const tool of listTools(agent)) {
      const inner = agentAsToolTarget(tool);
      if (inner === undefined) continue;
      const classified = classifyExecutor(inner);
      const name = (tool as { name: string }).name;
      const kind = classified.kind === 'agent' ? 'agent-tool' : classified.kind;
      this.place(this.childPath(path, name), kind, classified, inner);
    }
  }

  private _orchestrator(orchestrator: Orchestrator, path: readonly string[]): void {
    this.orchestrators.push({ orchestrator, path });
    for (const problem of topologyProblems(orchestrator)) {
      this.findings.push({
        path,
        kind: 'topology',
        reason: `is inconsistent: ${problem}, so a guard keyed by node id would judge the wrong object`,
        fix: 'build the graph once with its final nodes and edges; do not swap node objects after construction',
      });
    }
    const pathOfNode = new Map<unknown, readonly string[]>();
    for (const [id, node] of orchestrator.nodes) {
      const nodePath = this.childPath(path, id);
      pathOfNode.set(node, nodePath);
      const content = openNode(node);
      if (content.via === 'custom') {
        this._add({
          path: nodePath,
          id: nodePath[nodePath.length - 1]!,
          kind: 'custom',
          target: node,
          problem: content.problem,
        });
        continue;
      }
      if (content.via === 'declared') {
        this.place(nodePath, 'custom', { kind: 'custom', declared: content.declared }, node);
        continue;
      }
      const classified = classifyExecutor(content.executor);
      this.place(nodePath, classified.kind, classified, content.executor);
    }
    if (orchestrator instanceof Graph) {
      for (const edge of orchestrator.edges) {
        const from = pathOfNode.get(edge.source) ?? [...path, String(edge.source.id)];
        const to = pathOfNode.get(edge.target) ?? [...path, String(edge.target.id)];
        this.edges.push({ from, to, conditional: isConditionalEdge(edge) });
      }
    }
  }
}

/**
 * Walks an orchestrator (or a single agent) and everything reachable from it.
 *
 * @param root - a Graph, a Swarm or an Agent
 * @returns the inventory of the tree; `root.problem` is set when the root itself is not gateable
 */
export function walk(root: unknown): Inventory {
  const state = new Walk();
  const classified = classifyExecutor(root);
  const id = rootId(root);
  const rootEntry = state.place([id], classified.kind, classified);
  return {
    root: rootEntry,
    entries: state.entries,
    agents: state.agents,
    orchestrators: state.orchestrators,
    edges: state.edges,
    findings: state.findings,
  };
}

function idOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
}

function rootId(root: unknown): string {
  return segmentOf(idOf(root), '(root)');
}
