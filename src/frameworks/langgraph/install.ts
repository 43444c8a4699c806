/**
 * Gating a LangGraph tree: a pure plan of mutations (each with its check, apply and undo), every check run and
 * every problem reported at once before the first mutation, then every mutation applied, and undone in reverse
 * when one throws. What each mutation puts in place and what it does at run time is in `runtime.ts`.
 */
import { GateConflictError, type Finding, UngateableError } from '../../errors.js';
import { type GateSource, gateSource, type GateSourceOptions } from '../../enforce/gate-source.js';
import { joinPath } from '../../tree-paths.js';
import { type SeamEntry, type SeamInventory, seamWalk } from '../../walker/seam-walk.js';
import { LANGGRAPH_MARK } from '../../walker/marks.js';
import { checkAccept } from '../../enforce/accept.js';
import { applyMutations, installThrough, mutation } from '../../enforce/mutations.js';
import type { FrameworkInstaller, SeamPlan } from '../installer.js';
import type { Mutation } from '../seam.js';
import { foreignGate, graphOf, langGraphAdapter, type LangGraphMark, notAGraph, rootName } from './adapter.js';
import { loadInterrupt } from './approval.js';
import { untestedToolNode } from './version.js';
import {
  composeWrapToolCall,
  graphGuards,
  guardedGetNode,
  guardedStream,
  guardRunStart,
  graphOfNodes,
  runStartProblem,
  gatedRunTool,
  gatedToolCall,
  gatedToolInvoke,
  langGraphRequest,
  loadToolMessage,
  type ToolNodeGate,
  toolIntact,
  toolNodeGates,
  wrappedTools,
} from './runtime.js';
import {
  hasMiddlewareChain,
  isLocalTool,
  isToolNode,
  memberOf,
  type PregelLike,
  type ToolCallLike,
  type ToolLike,
  type ToolNodeLike,
} from './shape.js';

/** An acknowledged remote or opaque node (as `installMultiagent`'s `accept`). */
export interface LangGraphAccept {
  readonly path: string;
  readonly reason: string;
}

/** What install did to one LangGraph tree, to undo it. */
export interface LangGraphInstall {
  /** The root graph's path. */
  readonly path: readonly string[];
  /** The gate's name, or `configured`. */
  readonly gateName: string;
  /** Whether every mutation is still in place. */
  isActive(): boolean;
  /** Restores everything install replaced. */
  uninstall(): void;
}

/** Entries `accept` acknowledges, checked: each must name exactly one acceptable node. */
export function acceptedLangGraph(
  inventory: SeamInventory,
  accept: readonly LangGraphAccept[] | undefined,
): Map<string, string> {
  const matched = checkAccept(inventory.entries, accept, (_entry, problem) =>
    problem.acceptable ? undefined : `cannot be accepted: it ${problem.reason} | ${problem.fix}`,
  );
  return new Map(matched.map(({ entry, reason }) => [joinPath(entry.path), reason]));
}

function unaccepted(inventory: SeamInventory, accepted: ReadonlyMap<string, string>): Finding[] {
  return inventory.findings.filter((finding) => {
    const entry = inventory.entries.find((e) => joinPath(e.path) === joinPath(finding.path));
    return !(entry?.problem?.acceptable === true && accepted.has(joinPath(finding.path)));
  });
}

/** Why an own member cannot be replaced on a target (frozen, sealed, or fixed in place), or undefined. */
function cannotReplace(target: object, key: string, what: string): string | undefined {
  if (!Object.isExtensible(target)) return `${what} is frozen or sealed, so gate-audit cannot put its gate on it`;
  const own = Object.getOwnPropertyDescriptor(target, key);
  if (own !== undefined && !own.configurable)
    return `${what}'s ${key} is fixed in place, so gate-audit cannot replace it`;
  return undefined;
}

/** Replaces an own member, read-only (configurable, so uninstall can put the old one back). */
function replaceMember(target: object, key: PropertyKey, value: unknown): () => void {
  const before = Object.getOwnPropertyDescriptor(target, key);
  Object.defineProperty(target, key, {
    value,
    writable: false,
    enumerable: before?.enumerable ?? false,
    configurable: true,
  });
  return () => {
    if (before === undefined) Reflect.deleteProperty(target, key);
    else Object.defineProperty(target, key, before);
  };
}

function toolNodeMutations(node: ToolNodeLike, entry: SeamEntry, source: GateSource, agentName: string): Mutation[] {
  // Gated by another copy of gate-audit (same gate, or the plan refused it): its wrappers are the ones that run.
  if (!toolNodeGates.has(node) && foreignGate(node) !== undefined) return [];
  const what = `tool node ${JSON.stringify(entry.id)}`;
  const mutations: Mutation[] = [];
  for (const tool of node.tools) {
    if (!isLocalTool(tool) || toolIntact(tool)) continue;
    const toolWhat = `tool ${JSON.stringify(tool.name)} of ${what}`;
    mutations.push(
      mutation(
        toolWhat,
        entry.path,
        () =>
          cannotReplace(tool, 'call', toolWhat) ??
          cannotReplace(tool, 'invoke', toolWhat) ??
          cannotReplace(tool, 'name', toolWhat),
        () => {
          const call = gatedToolCall(tool, memberOf(tool, 'call') as ToolLike['call']);
          const invoke = gatedToolInvoke(tool, memberOf(tool, 'invoke') as ToolLike['invoke']);
          const name = String(tool.name);
          const restores = [
            replaceMember(tool, 'call', call),
            replaceMember(tool, 'invoke', invoke),
            // The name the gate judges calls by is the tool's: it stays what it was at install.
            replaceMember(tool, 'name', name),
          ];
          wrappedTools.set(tool, { call, invoke, name });
          return () => {
            for (const restore of restores.reverse()) restore();
            wrappedTools.delete(tool);
          };
        },
      ),
    );
  }
  const installed = toolNodeGates.get(node);
  if (installed !== undefined) {
    // Gated already (its agent alone, or another tree holding it): it runs at this place too.
    const at = joinPath(entry.path);
    if (!installed.places.some((place) => joinPath(place) === at)) {
      mutations.push(
        mutation(
          `${what} at another place`,
          entry.path,
          () => undefined,
          () => {
            installed.places.push(entry.path);
            return () => {
              const index = installed.places.indexOf(entry.path);
              if (index !== -1) installed.places.splice(index, 1);
            };
          },
        ),
      );
    }
    return mutations;
  }
  mutations.push(
    mutation(
      what,
      entry.path,
      () => cannotReplace(node, 'runTool', what) ?? cannotReplace(node, 'wrapToolCall', what),
      () => {
        const middleware = hasMiddlewareChain(node);
        const existing = middleware ? (node as { wrapToolCall?: unknown }).wrapToolCall : undefined;
        const wrapToolCall = middleware ? composeWrapToolCall(existing) : undefined;
        const gate: ToolNodeGate = {
          source,
          places: [entry.path],
          agentName,
          runTool: memberOf(node, 'runTool') as ToolNodeGate['runTool'],
          wrapToolCall,
        };
        toolNodeGates.set(node, gate);
        const runTool = gatedRunTool(node, gate);
        const restores = [replaceMember(node, 'runTool', runTool)];
        if (middleware) restores.push(replaceMember(node, 'wrapToolCall', wrapToolCall));
        // What another copy of gate-audit reads (it cannot see this copy's WeakMaps): the gate, and the members
        // that show the gate is still in place.
        const mark: LangGraphMark = { gate: source.name, gateKey: source.key, runTool, wrapToolCall };
        restores.push(replaceMember(node, LANGGRAPH_MARK, Object.freeze(mark)));
        return () => {
          for (const restore of restores.reverse()) restore();
          toolNodeGates.delete(node);
        };
      },
    ),
  );
  return mutations;
}

function graphMutations(
  graph: PregelLike,
  entry: SeamEntry,
  source: GateSource,
  accepted: ReadonlyMap<string, string>,
): Mutation[] {
  if (graphGuards.has(graph) || foreignGate(graph) !== undefined) return [];
  const what = `graph ${JSON.stringify(entry.id)}`;
  const nodes = Object.entries(graph.nodes);
  return [
    mutation(
      what,
      entry.path,
      () =>
        cannotReplace(graph, 'stream', what) ??
        runStartProblem(graph) ??
        nodes
          .map(
            ([name, node]) =>
              cannotReplace(node, 'getNode', `node "${name}" of ${what}`) ??
              cannotReplace(node, 'bound', `node "${name}" of ${what}`),
          )
          .find((p) => p !== undefined),
      () => {
        const restores: (() => void)[] = [];
        const seen = new Map<string, { node: object; bound: unknown; getNode: unknown }>();
        for (const [name, node] of nodes) {
          const getNode = guardedGetNode(graph, name, memberOf(node, 'getNode') as () => unknown);
          seen.set(name, { node, bound: node.bound, getNode });
        }
        const stream = guardedStream(graph, memberOf(graph, 'stream') as PregelLike['stream']);
        const acceptedHere = new Map<string, string>();
        for (const [name] of nodes) {
          const reason = accepted.get(joinPath([...entry.path, name]));
          if (reason !== undefined) acceptedHere.set(name, reason);
        }
        // A provider tool of a createAgent root is a place with no value of its own: accepted by its segment.
        for (const child of langGraphAdapter.children(entry.target, undefined)) {
          if (child.value !== undefined) continue;
          const reason = accepted.get(joinPath([...entry.path, String(child.segment)]));
          if (reason !== undefined) acceptedHere.set(String(child.segment), reason);
        }
        graphGuards.set(graph, { source, path: entry.path, stream, nodes: seen, accepted: acceptedHere });
        const nodesObject = graph.nodes as object;
        graphOfNodes.set(nodesObject, graph);
        try {
          const problem = guardRunStart(graph);
          if (problem !== undefined) throw new Error(`graph ${JSON.stringify(entry.id)}: ${problem}`);
          for (const [name, node] of nodes) {
            const kept = seen.get(name)!;
            restores.push(replaceMember(node, 'bound', kept.bound));
            restores.push(replaceMember(node, 'getNode', kept.getNode));
          }
          restores.push(replaceMember(graph, 'stream', stream));
          const mark: LangGraphMark = { gate: source.name, gateKey: source.key, stream };
          restores.push(replaceMember(graph, LANGGRAPH_MARK, Object.freeze(mark)));
        } catch (error) {
          for (const restore of restores.reverse()) restore();
          graphGuards.delete(graph);
          graphOfNodes.delete(nodesObject);
          throw error;
        }
        return () => {
          for (const restore of restores.reverse()) restore();
          graphGuards.delete(graph);
          graphOfNodes.delete(nodesObject);
        };
      },
    ),
  ];
}

/** Everything install would do to a tree, checked: the walk, its refusals, and the mutations (none applied). */
export interface LangGraphPlan {
  readonly inventory: SeamInventory;
  readonly accepted: ReadonlyMap<string, string>;
  readonly mutations: readonly Mutation[];
}

/**
 * Plans the install (pure): walks the tree, refuses what cannot be gated and is not accepted, refuses a tool node
 * that carries another gate, and lists every mutation with every check already run.
 *
 * @throws UngateableError listing every problem at once
 * @throws GateConflictError listing every tool node under another gate
 */
export function planLangGraph(root: unknown, source: GateSource, accept?: readonly LangGraphAccept[]): LangGraphPlan {
  const inventory = seamWalk(langGraphAdapter, root);
  const accepted = acceptedLangGraph(inventory, accept);
  const findings = unaccepted(inventory, accepted);
  const conflicts = inventory.entries
    .filter((entry) => entry.sameAs === undefined && isToolNode(entry.target))
    .map((entry) => {
      const own = toolNodeGates.get(entry.target as object);
      return {
        entry,
        gate: own === undefined ? foreignGate(entry.target) : { key: own.source.key, name: own.source.name },
      };
    })
    .filter(({ gate }) => gate !== undefined && gate.key !== source.key)
    .map(({ entry, gate }) => ({ path: entry.path, existing: gate!.name, requested: source.name }));
  if (findings.length === 0 && conflicts.length > 0) throw new GateConflictError(conflicts);
  const mutations: Mutation[] = [];
  const graphName = new Map<unknown, string>();
  for (const entry of inventory.entries) {
    if (entry.sameAs !== undefined) continue;
    // A graph met inside itself (a cycle row) is its ancestor's place: planned there, once.
    if (entry.kind === 'orchestrator' && entry.opened) {
      const graph = graphOf(entry.target);
      if (graph !== undefined) {
        graphName.set(graph, entry.id);
        mutations.push(...graphMutations(graph, entry, source, accepted));
      }
    } else if (entry.kind === 'agent' && isToolNode(entry.target) && entry.problem === undefined) {
      const owner = entry.path.length > 1 ? entry.path[entry.path.length - 2]! : entry.id;
      mutations.push(...toolNodeMutations(entry.target, entry, source, owner));
    }
  }
  const loadProblem = mutations.length > 0 ? (loadToolMessage() ?? loadInterrupt()) : undefined;
  const checks: Finding[] = [
    ...findings,
    ...(loadProblem === undefined
      ? []
      : [
          {
            path: inventory.root.path,
            kind: 'foreign-executor' as const,
            reason: loadProblem,
            fix: 'install @langchain/core beside gate-audit',
          },
        ]),
  ];
  for (const entry of inventory.entries) {
    if (entry.sameAs !== undefined || !isToolNode(entry.target) || entry.problem !== undefined) continue;
    if (toolNodeGates.has(entry.target)) continue;
    const untested = untestedToolNode(hasMiddlewareChain(entry.target) ? 'langchain' : '@langchain/langgraph');
    if (untested !== undefined) {
      checks.push({
        path: entry.path,
        kind: 'tool-executor',
        reason: untested,
        fix: 'install a tested version of the package (gate-audit --version names the ranges)',
      });
    }
  }
  for (const planned of mutations) {
    const problem = planned.check();
    if (problem !== undefined) {
      checks.push({
        path: planned.path,
        kind: 'foreign-executor',
        reason: problem,
        fix: 'build it again without freezing it, before install',
      });
    }
  }
  if (checks.length > 0) throw new UngateableError(checks);
  return { inventory, accepted, mutations };
}

/** The handle on an applied plan: active while every part stays gated, and its `uninstall` undoes what was applied. */
function handleOf(plan: LangGraphPlan, source: GateSource, applied: readonly Mutation[]): LangGraphInstall {
  let active = true;
  return {
    path: plan.inventory.root.path,
    gateName: source.name,
    isActive: () =>
      active &&
      plan.inventory.entries.every(
        (entry) =>
          entry.sameAs !== undefined ||
          entry.kind === 'custom' ||
          entry.kind === 'remote' ||
          langGraphAdapter.gateState(entry.target).state === 'gated',
      ),
    uninstall: () => {
      if (!active) return;
      active = false;
      for (const done of [...applied].reverse()) done.undo();
    },
  };
}

/**
 * Applies a plan: every mutation in order, all undone in reverse when one throws.
 *
 * @throws GateAuditError `INSTALL_FAILED` when a mutation threw (everything applied was undone)
 */
export function applyLangGraph(plan: LangGraphPlan, source: GateSource): LangGraphInstall {
  return handleOf(plan, source, applyMutations(plan.mutations, `graph=<${plan.inventory.root.id}>`));
}

/** Options of a LangGraph install: the gate (or the configured one), its timeout, and accepted nodes. */
export interface LangGraphInstallOptions extends GateSourceOptions {
  readonly accept?: readonly LangGraphAccept[];
}

/**
 * LangGraph behind the seam: the adapter's readers, its install plan (a tree gated already plans no mutation and
 * gets no handle), and its requests.
 */
export const langGraphFramework: FrameworkInstaller<LangGraphInstall, LangGraphInstallOptions, ToolCallLike> = {
  ...langGraphAdapter,
  plan(root: unknown, options: LangGraphInstallOptions | undefined): SeamPlan<LangGraphInstall> {
    if (langGraphAdapter.recognise(root) === undefined) throw notAGraph('installMultiagent');
    const source = gateSource(options, `installMultiagent("${rootName(root)}")`);
    const planned = planLangGraph(root, source, options?.accept);
    return {
      subject: `graph=<${planned.inventory.root.id}>`,
      mutations: planned.mutations,
      commit: (applied) => (applied.length === 0 ? [] : [handleOf(planned, source, applied)]),
    };
  },
  toRequest: langGraphRequest,
};

/**
 * Gates a LangGraph tree: the plan, every check, then every mutation (`installMultiagent` and `install` of a
 * compiled graph or a `createAgent` agent).
 *
 * @param root - a compiled graph or a `createAgent` agent
 * @param options - the gate, its timeout and accepted nodes
 * @returns one handle for the tree, or none when it was gated already
 */
export function installLangGraph(root: unknown, options?: LangGraphInstallOptions): LangGraphInstall[] {
  return [...installThrough(langGraphFramework, root, options)];
}
