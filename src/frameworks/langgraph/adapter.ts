/**
 * The LangGraph.js adapter: what a compiled graph, a `createAgent` agent, a node, a tool node and a tool are to
 * gate-audit's neutral walk and reports. Reads only (install's mutations are in `install.ts`).
 */
import { GateAuditError } from '../../errors.js';
import { readDeclaration } from '../../walker/declare.js';
import { GOVERNS, LANGGRAPH_MARK } from '../../walker/marks.js';
import { readData } from '../../walker/safe-read.js';
import type { FrameworkAdapter, SeamChild, SeamGateState, SeamTool } from '../seam.js';
import { graphGuards, graphProblem, toolNodeGates, toolNodeIntact } from './runtime.js';
import {
  graphOfAgent,
  isFrameworkModelNode,
  isLocalTool,
  isPlumbing,
  isPregel,
  isReactAgent,
  isRemoteGraph,
  isRunnableTool,
  isToolNode,
  memberOf,
  type PregelLike,
  type PregelNodeLike,
  providerToolsOf,
  toolName,
} from './shape.js';

/** The graph a value stands for: a compiled graph itself, or a `createAgent` agent's graph. */
export function graphOf(value: unknown): PregelLike | undefined {
  if (isPregel(value)) return value;
  if (isReactAgent(value)) return graphOfAgent(value) as PregelLike;
  return undefined;
}

/**
 * The error for a value handed to a LangGraph call that is not a LangGraph root.
 *
 * @param subject - the call it was handed to
 */
export function notAGraph(subject: string): GateAuditError {
  return new GateAuditError(
    'INVALID_ARGUMENT',
    `subject=<${subject}> | not a LangGraph compiled graph or createAgent agent | pass what compile() or createAgent() returned`,
  );
}

/** Whether a value is one of LangGraph's: a compiled graph, a `createAgent` agent, a tool node or a `RemoteGraph`. */
export function isLangGraphValue(value: unknown): boolean {
  return graphOf(value) !== undefined || isToolNode(value) || isRemoteGraph(value);
}

function nameOf(value: unknown, fallback: string): string {
  const name = typeof value === 'object' && value !== null ? readData(value, 'name') : undefined;
  return typeof name === 'string' && name !== '' ? name : fallback;
}

function toolsOf(tools: readonly unknown[]): SeamTool[] {
  return tools.map((tool) => {
    if (isLocalTool(tool)) return { name: toolName(tool), kind: 'function' as const, gateable: true };
    if (isRunnableTool(tool)) return { name: toolName(tool), kind: 'agent' as const, gateable: false };
    return { name: toolName(tool), kind: 'provider' as const, gateable: false };
  });
}

/** Why a tool node holding a tool the gate cannot stand in front of cannot be gated, and the fix. */
function foreignToolProblem(tool: SeamTool): { reason: string; fix: string } {
  return tool.kind === 'agent'
    ? {
        reason: `holds "${tool.name}", a runnable used as a tool (asTool()): what it runs is not walked, so an agent or a tool behind it would run ungated`,
        fix: 'put the graph it runs in the tree as a node or a declared subgraph, or remove it',
      }
    : {
        reason: `holds "${tool.name}", which is not a LangChain tool gate-audit can put the gate in front of`,
        fix: 'make it a tool built with tool() (a Runnable), or remove it',
      };
}

const UNDECLARED_FIX = (name: string): string =>
  `declare it: addNode("${name}", fn, { subgraphs: [...] }) with every graph it runs (an empty list when it runs no agent or tool), or accept it`;

/**
 * Whether a compiled graph is the functional API's `entrypoint` (a `Pregel` built without a `StateGraph`): its one
 * node is the entrypoint's function, and the tasks it runs are called inside it.
 */
function isEntrypoint(graph: unknown): boolean {
  return (
    readData(graph, 'builder') === undefined &&
    (graph as { constructor?: { name?: unknown } }).constructor?.name === 'Pregel'
  );
}

/**
 * The graphs a value declares it runs under `GOVERNS` (as a custom Strands node declares its agents): a tool whose
 * function invokes an agent, or an `entrypoint` whose tasks do. Undefined when it declares nothing; the reason when
 * the declaration cannot be read or says it creates gated agents (a Strands-only form: `gatedAgent()`).
 */
function declaredGraphs(
  value: unknown,
): { readonly graphs: readonly unknown[] } | { readonly error: string } | undefined {
  const declared = readDeclaration(value);
  if (declared === undefined || 'error' in declared) return declared;
  if (declared.createsGatedAgents) {
    return { error: 'its declaration says it creates gated agents, which only a Strands node can (gatedAgent())' };
  }
  return { graphs: declared.agents };
}

/** How to declare what a tool or an entrypoint runs, for fixes. */
const DECLARE_GRAPHS = `a [Symbol.for('${GOVERNS.description ?? ''}')]() method returning { agents: [graph, ...] }`;

/**
 * The graphs a tool node's tools run as agents used as tools (`tool[GOVERNS] = () => ({ agents: [agent.graph] })`).
 * Each declared graph is walked (and gated) under the tool's name; a declaration that cannot be read is the tool's
 * problem. A tool that declares nothing runs what it runs (see the limits: the process guard sees an undeclared graph
 * start).
 */
function agentsAsTools(tools: readonly unknown[]): SeamChild[] {
  const children: SeamChild[] = [];
  for (const tool of tools) {
    const declared = declaredGraphs(tool);
    if (declared === undefined) continue;
    const segment = toolName(tool);
    if ('error' in declared) {
      children.push({
        segment,
        value: tool,
        kind: 'custom',
        problem: {
          kind: 'custom-node',
          reason: `is a tool whose declaration of what it runs cannot be read: ${declared.error}`,
          fix: `declare the graphs it runs: ${DECLARE_GRAPHS} on the tool`,
          acceptable: false,
        },
      });
      continue;
    }
    for (const graph of declared.graphs) children.push(childOf(segment, graph, undefined));
  }
  return children;
}

/**
 * The one node of the functional API's `entrypoint`: opaque (its tasks are called inside its function), unless the
 * entrypoint declares the graphs its tasks run (`workflow[GOVERNS] = () => ({ agents: [agent.graph] })`). The
 * declared graphs are then walked, gated and judged as a declared function node's subgraphs are.
 */
function entrypointChild(segment: string, value: unknown, owner: unknown): SeamChild {
  const declared = declaredGraphs(owner);
  if (declared === undefined || 'error' in declared) {
    return {
      segment,
      value,
      kind: 'custom',
      problem: {
        kind: 'custom-node',
        reason:
          declared === undefined
            ? "is the functional API's entrypoint: the tasks it runs are called inside its function, where gate-audit cannot see them, so a tool or an agent a task runs is ungated"
            : `is the functional API's entrypoint, and ${declared.error}`,
        fix: `declare the graphs its tasks run (${DECLARE_GRAPHS} on the entrypoint), build the workflow as a StateGraph whose nodes are its tasks, or accept it`,
        acceptable: true,
      },
    };
  }
  return {
    segment,
    value,
    kind: 'custom',
    declared: () =>
      declared.graphs.map((graph, index) => childOf(nameOf(graph, `subgraph-${index}`), graph, undefined)),
  };
}

/** What one runnable is, as a child named `segment` (of the graph `owner`). */
function childOf(segment: string, value: unknown, node: PregelNodeLike | undefined, owner?: unknown): SeamChild {
  const graph = graphOf(value);
  if (graph !== undefined) return { segment, value: graph, kind: 'orchestrator' };
  if (isRemoteGraph(value)) {
    return {
      segment,
      value,
      kind: 'remote',
      problem: {
        kind: 'remote',
        reason: 'is a RemoteGraph: it runs on a LangGraph server, where no gate of this process can judge its tools',
        fix: 'gate it on the server it runs on and accept it here, or run the graph locally',
        acceptable: true,
      },
    };
  }
  if (isToolNode(value)) {
    const tools = toolsOf(value.tools);
    const foreign = tools.find((tool) => !tool.gateable);
    return {
      segment,
      value,
      kind: 'agent',
      tools,
      ...(foreign === undefined
        ? {}
        : {
            problem: { kind: 'tool-executor' as const, ...foreignToolProblem(foreign), acceptable: false },
          }),
    };
  }
  if (owner !== undefined && isEntrypoint(owner)) return entrypointChild(segment, value, owner);
  const subgraphs = node === undefined ? undefined : readData(node, 'subgraphs');
  if (Array.isArray(subgraphs)) {
    return {
      segment,
      value,
      kind: 'custom',
      declared: () =>
        subgraphs.map((declared, index) => childOf(nameOf(declared, `subgraph-${index}`), declared, undefined)),
    };
  }
  return {
    segment,
    value,
    kind: 'custom',
    problem: {
      kind: 'custom-node',
      reason:
        'is a function node: gate-audit cannot see what it runs, so an agent or a tool it calls without declaring it runs ungated',
      fix: UNDECLARED_FIX(segment),
      acceptable: true,
    },
  };
}

/**
 * What install writes on a tool node or graph it gated, under a `Symbol.for` key every copy of gate-audit shares:
 * the gate's name and key, and the members it put in place (a tool node's `runTool` and `wrapToolCall`, a graph's
 * `stream`), so that another copy can tell the gate is still there.
 */
export interface LangGraphMark {
  readonly gate: string;
  readonly gateKey: unknown;
  readonly runTool?: unknown;
  readonly wrapToolCall?: unknown;
  readonly stream?: unknown;
}

/**
 * The gate another copy of gate-audit put on a tool node or graph, read from its mark: present when every member
 * the mark names is still the node's own (the copy that wrote it checks the rest at run time), else undefined.
 */
export function foreignGate(value: unknown): { readonly key: unknown; readonly name: string } | undefined {
  const mark = readData(value, LANGGRAPH_MARK);
  if (typeof mark !== 'object' || mark === null) return undefined;
  const members = ['runTool', 'wrapToolCall', 'stream'] as const;
  const named = members.filter((key) => readData(mark, key) !== undefined);
  if (named.length === 0) return undefined;
  if (!named.every((key) => Object.hasOwn(value as object, key) && readData(value, key) === readData(mark, key))) {
    return undefined;
  }
  const name = readData(mark, 'gate');
  return { key: readData(mark, 'gateKey'), name: typeof name === 'string' ? name : '?' };
}

/** A tool node or graph this copy did not gate: gated when another copy's mark says so, else ungated. */
function foreignState(value: unknown): { state: SeamGateState; gateKey?: unknown; gateName?: string } {
  const foreign = foreignGate(value);
  return foreign === undefined
    ? { state: 'ungated' }
    : { state: 'gated', gateKey: foreign.key, gateName: foreign.name };
}

/**
 * The name a LangGraph root goes by: its graph's `name`, or `LangGraph`.
 *
 * @param root - a compiled graph or a `createAgent` agent
 */
export function rootName(root: unknown): string {
  return nameOf(graphOf(root) ?? root, 'LangGraph');
}

/** The LangGraph adapter. */
export const langGraphAdapter: FrameworkAdapter<unknown> = {
  framework: 'langgraph',
  recognise(value: unknown): unknown {
    return graphOf(value) === undefined ? undefined : value;
  },
  root(root: unknown): SeamChild {
    return { segment: rootName(root), value: root, kind: 'orchestrator' };
  },
  children(orchestrator: unknown): readonly SeamChild[] {
    if (isToolNode(orchestrator)) return agentsAsTools(orchestrator.tools);
    const graph = graphOf(orchestrator);
    if (graph === undefined) return [];
    const children: SeamChild[] = [];
    const nodes = readData(graph, 'nodes');
    if (typeof nodes !== 'object' || nodes === null) return children;
    for (const [name, node] of Object.entries(nodes as Record<string, PregelNodeLike>)) {
      const bound = readData(node, 'bound');
      if (isPlumbing(bound) || isFrameworkModelNode(bound)) continue;
      children.push(childOf(name, bound, node, graph));
    }
    if (isReactAgent(orchestrator)) {
      for (const tool of providerToolsOf(orchestrator)) {
        children.push({
          segment: `tool:${toolName(tool)}`,
          value: undefined,
          kind: 'remote',
          problem: {
            kind: 'remote',
            reason:
              'is a provider (server-side) tool: it runs where the model runs and never reaches a tool node, so no gate of this process judges it',
            fix: 'remove it from the agent, or accept it',
            acceptable: true,
          },
        });
      }
    }
    return children;
  },
  acceptedAt(orchestrator: unknown, segment: string, value: unknown): string | undefined {
    const graph = graphOf(orchestrator);
    const guard = graph === undefined ? undefined : graphGuards.get(graph);
    const reason = guard?.accepted.get(segment);
    if (reason === undefined) return undefined;
    // A provider tool has no value of its own: accepted while the agent lists it (the walk asks only then).
    if (value === undefined) return guard!.nodes.has(segment) ? undefined : reason;
    // A node swapped since install is not what was accepted (the guard cancels it).
    return guard!.nodes.get(segment)?.bound === value ? reason : undefined;
  },
  gateState(value: unknown): { state: SeamGateState; gateKey?: unknown; gateName?: string } {
    if (isToolNode(value)) {
      const gate = toolNodeGates.get(value);
      if (gate === undefined) return foreignState(value);
      return toolNodeIntact(value)
        ? { state: 'gated', gateKey: gate.source.key, gateName: gate.source.name }
        : { state: 'ungated' };
    }
    const graph = graphOf(value);
    if (graph !== undefined) {
      const guard = graphGuards.get(graph);
      if (guard === undefined) return foreignState(graph);
      const intact =
        Object.hasOwn(graph, 'stream') &&
        memberOf(graph, 'stream') === guard.stream &&
        graphProblem(graph, guard) === undefined;
      return intact ? { state: 'gated', gateKey: guard.source.key, gateName: guard.source.name } : { state: 'ungated' };
    }
    return { state: 'unknown' };
  },
};
