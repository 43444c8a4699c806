/**
 * Classification of node executors and nodes, shared by the walk (at install and audit time) and by the
 * node guard (at run time, on whatever the node holds then). Pure: reads only.
 */
import type { FindingKind } from '../errors.js';
import { type Declared, HOW_TO_DECLARE, readDeclaration } from './declare.js';
import { agentGateMark, isGatePlugin, nodeGuardMark } from './marks.js';
import {
  Agent,
  AgentNode,
  agentNodeExecutor,
  className,
  Graph,
  isA2AAgent,
  isSdkToolExecutor,
  MultiAgentNode,
  nodeCallHooks,
  type Orchestrator,
  ownRunMethod,
  pendingPlugins,
  Swarm,
  toolCallHooks,
  toolMiddleware,
} from './sdk-internals.js';

/** The kinds of thing the walk meets. */
export type EntryKind = 'graph' | 'swarm' | 'agent' | 'agent-tool' | 'remote' | 'custom';

/** Why something cannot be gated, before a path is attached. */
export interface Problem {
  readonly kind: FindingKind;
  readonly reason: string;
  readonly fix: string;
}

/** What an executor (a node's agent, a tool's agent, a root) turned out to be. */
export type Classified =
  | { readonly kind: 'agent'; readonly agent: Agent; readonly problem?: Problem }
  | { readonly kind: 'graph' | 'swarm'; readonly orchestrator: Orchestrator; readonly problem?: Problem }
  | { readonly kind: 'remote' | 'custom'; readonly problem: Problem }
  | { readonly kind: 'custom'; readonly declared: Declared; readonly problem?: undefined };

function declaredOrProblem(value: unknown, problem: Problem): { declared: Declared } | { problem: Problem } {
  const declaration = readDeclaration(value);
  if (declaration === undefined) return { problem };
  if ('error' in declaration) return { problem: { ...problem, reason: `${problem.reason}, and ${declaration.error}` } };
  return { declared: declaration };
}

const SDK_FIX = 'load one copy of @strands-agents/sdk (npm dedupe); gate-audit takes it as a peer dependency';

function foreignCopy(what: string): Problem {
  return {
    kind: 'sdk-mismatch',
    reason: `is a ${what} from a different copy of @strands-agents/sdk, whose hooks never fire here`,
    fix: SDK_FIX,
  };
}

function overridden(what: string, property: string): Problem {
  return {
    kind: what === 'Agent' ? 'agent-override' : 'custom-orchestrator',
    reason: `is ${what === 'Agent' ? 'an' : 'a'} ${what} whose "${property}" was replaced on the instance, so its hooks may never run`,
    fix: `do not patch ${property} on the instance; wrap behaviour in hooks or middleware instead`,
  };
}

/** Checks an agent of this SDK copy for anything that lets it run tools around the hooks. */
function classifyAgent(agent: Agent): Classified {
  if (!Object.isExtensible(agent)) {
    return {
      kind: 'agent',
      agent,
      problem: {
        kind: 'agent-override',
        reason: 'is frozen, so no gate can be attached to it',
        fix: 'do not freeze agents',
      },
    };
  }
  if (Object.getPrototypeOf(agent) !== Agent.prototype) {
    return {
      kind: 'agent',
      agent,
      problem: {
        kind: 'agent-override',
        reason: `is an Agent subclass (${className(agent)}) that may run tools without the SDK's hooks`,
        fix: 'use a plain Agent and add behaviour with hooks, plugins or middleware',
      },
    };
  }
  const own = ownRunMethod(agent);
  if (own !== undefined) return { kind: 'agent', agent, problem: overridden('Agent', own) };
  if (!isSdkToolExecutor(agent.toolExecutor)) {
    return {
      kind: 'agent',
      agent,
      problem: {
        kind: 'tool-executor',
        reason: `has a custom tool executor (${className(agent.toolExecutor)}) that can run tools without hooks`,
        fix: "use the SDK's 'sequential' or 'concurrent' tool executor",
      },
    };
  }
  return { kind: 'agent', agent };
}

function classifyOrchestrator(value: Graph | Swarm, kind: 'graph' | 'swarm'): Classified {
  const expected = kind === 'graph' ? Graph.prototype : Swarm.prototype;
  const what = kind === 'graph' ? 'Graph' : 'Swarm';
  if (Object.getPrototypeOf(value) !== expected) {
    return {
      kind,
      orchestrator: value,
      problem: {
        kind: 'custom-orchestrator',
        reason: `is a ${what} subclass (${className(value)}) whose run may skip the node guard`,
        fix: `use a plain ${what}`,
      },
    };
  }
  const own = ownRunMethod(value);
  if (own !== undefined) return { kind, orchestrator: value, problem: overridden(what, own) };
  if (!Object.isExtensible(value)) {
    return {
      kind,
      orchestrator: value,
      problem: {
        kind: 'custom-orchestrator',
        reason: `is a frozen ${what}, so no guard can be attached`,
        fix: `do not freeze the ${what}`,
      },
    };
  }
  return { kind, orchestrator: value };
}

/** Classifies whatever runs behind a node or a tool: an Agent, a Graph, a Swarm, or something opaque. */
export function classifyExecutor(value: unknown): Classified {
  if (value instanceof Agent) return classifyAgent(value);
  if (value instanceof Graph) return classifyOrchestrator(value, 'graph');
  if (value instanceof Swarm) return classifyOrchestrator(value, 'swarm');
  const name = className(value);
  if (name === 'Agent' || name === 'Graph' || name === 'Swarm') return { kind: 'custom', problem: foreignCopy(name) };
  if (isA2AAgent(value)) {
    return {
      kind: 'remote',
      problem: {
        kind: 'remote',
        reason: 'is an A2AAgent: its tools run on a remote server this process cannot gate',
        fix: 'gate the agent on its own server (install gate-audit there) or remove it from the tree',
      },
    };
  }
  return {
    kind: 'custom',
    ...declaredOrProblem(value, {
      kind: 'foreign-executor',
      reason: `is a ${name} that is not a local Strands Agent, Graph or Swarm, so nothing here can see its tool calls`,
      fix: `build the node from a plain Agent, Graph or Swarm, or ${HOW_TO_DECLARE}`,
    }),
  };
}

/** What a graph or swarm node holds: its executor, or a problem when the node itself is opaque. */
export type NodeContent =
  | { readonly via: 'agent-node' | 'multi-agent-node'; readonly executor: unknown }
  | { readonly via: 'custom'; readonly problem: Problem }
  | { readonly via: 'declared'; readonly declared: Declared };

/** Opens a node: an `AgentNode` yields its `_agent`, a `MultiAgentNode` its orchestrator; anything else is opaque. */
export function openNode(node: unknown): NodeContent {
  const proto: unknown = typeof node === 'object' && node !== null ? Object.getPrototypeOf(node) : undefined;
  const name = className(node);
  if (proto === AgentNode.prototype || proto === MultiAgentNode.prototype) {
    const patched = ['handle', 'stream'].find((key) => Object.hasOwn(node as object, key));
    if (patched !== undefined) {
      return {
        via: 'custom',
        problem: {
          kind: 'custom-node',
          reason: `is a ${name} whose "${patched}" was replaced on the instance`,
          fix: `do not patch ${patched} on the node`,
        },
      };
    }
    return proto === AgentNode.prototype
      ? { via: 'agent-node', executor: agentNodeExecutor(node as AgentNode) }
      : { via: 'multi-agent-node', executor: (node as MultiAgentNode).orchestrator };
  }
  if (name === 'AgentNode' || name === 'MultiAgentNode') return { via: 'custom', problem: foreignCopy(name) };
  const read = declaredOrProblem(node, {
    kind: 'custom-node',
    reason: `is a custom node (${name}) whose handle() this process cannot see into`,
    fix: `build the node from an Agent, Graph or Swarm, or ${HOW_TO_DECLARE}`,
  });
  return 'declared' in read ? { via: 'declared', declared: read.declared } : { via: 'custom', problem: read.problem };
}

/** Live state of an agent's gate. */
export type AgentGateState = 'gated' | 'pending-plugin' | 'removed' | 'none';

/**
 * Reads whether an agent carries a live gate: the mark is present and both the decision hook and the
 * execution check are still registered; or a `GatePlugin` waits to initialise at the first run.
 */
export function agentGateState(agent: Agent): AgentGateState {
  const mark = agentGateMark(agent);
  if (mark !== undefined) {
    const hooked = toolCallHooks(agent)?.some((entry) => entry.callback === mark.decisionHook) === true;
    const checked = toolMiddleware(agent)?.some((entry) => entry.handler === mark.executionCheck) === true;
    return hooked && checked ? 'gated' : 'removed';
  }
  return pendingPlugins(agent).some(isGatePlugin) ? 'pending-plugin' : 'none';
}

/**
 * Whether the agent runs under a gate: one installed and still registered, or a `GatePlugin` that will
 * install it at the agent's first run.
 */
export function isGated(agent: Agent): boolean {
  const state = agentGateState(agent);
  return state === 'gated' || state === 'pending-plugin';
}

/** Whether the orchestrator carries gate-audit's node guard and the guard is still registered. */
export function hasNodeGuard(orchestrator: Orchestrator): boolean {
  const mark = nodeGuardMark(orchestrator);
  if (mark === undefined) return false;
  return nodeCallHooks(orchestrator)?.some((entry) => entry.callback === mark.guardHook) === true;
}
