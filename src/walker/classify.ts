/**
 * Classification of node executors and nodes, shared by the walk (at install and audit time), by the
 * node guard (at run time, on whatever the node holds then) and by the gate when an agent is called as a
 * tool. Pure: reads only, and only plain data (see `sdk-internals.ts`).
 */
import type { FindingKind } from '../errors.js';
import { type Declared, HOW_TO_DECLARE, readDeclaration } from './declare.js';
import { agentGateMark, isGatePlugin, type MarkedHook, nodeGuardMark } from './marks.js';
import {
  Agent,
  AgentNode,
  agentHooks,
  agentRegistryProblem,
  agentToolExecutor,
  backgroundDispatchProblem,
  Graph,
  hasSdkHookRegistry,
  isA2AAgent,
  isSdkToolExecutor,
  MultiAgentNode,
  nodeExecutorRead,
  type Orchestrator,
  orchestratorHooks,
  pendingPlugins,
  Swarm,
  toolCallHooks,
  toolExecutorReadProblem,
  toolMiddleware,
} from '../frameworks/strands/sdk-internals.js';
import {
  className,
  heldObjects,
  inheritsFrom,
  isProxy,
  readData,
  shadowedMember,
  shadowingSubclassMember,
} from './safe-read.js';

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

const PROXY_PROBLEM: Problem = {
  kind: 'proxy',
  reason: 'is a Proxy: its traps can hand the SDK another object than the one gate-audit checks',
  fix: 'put the object itself in the tree, not a Proxy around it',
};

function agentProblem(reason: string, fix: string): Problem {
  return { kind: 'agent-override', reason, fix };
}

/** The registries an agent runs hooks and middleware from must be the SDK's own, read as plain data. */
function registryProblem(agent: Agent): Problem | undefined {
  const problem = agentRegistryProblem(agent);
  return problem === undefined ? undefined : agentProblem(problem.reason, problem.fix);
}

/** Checks an agent of this SDK copy for anything that lets it run tools around the hooks. */
function classifyAgent(agent: Agent): Classified {
  const fail = (problem: Problem): Classified => ({ kind: 'agent', agent, problem });
  const subclassMember = shadowingSubclassMember(agent, Agent.prototype);
  if (subclassMember !== undefined) {
    return fail(
      agentProblem(
        `is an Agent subclass (${className(agent)}) that overrides "${String(subclassMember)}", so it may run tools without the SDK's hooks`,
        'keep the subclass to a constructor and new methods, or use a plain Agent with hooks, plugins or middleware',
      ),
    );
  }
  const shadow = shadowedMember(agent, Agent.prototype);
  if (shadow !== undefined) {
    return fail(
      agentProblem(
        `is an Agent whose "${String(shadow)}" was replaced on the instance (an own property or class field), so its hooks may never run`,
        `do not set ${String(shadow)} on the instance; wrap behaviour in hooks or middleware instead`,
      ),
    );
  }
  if (!Object.isExtensible(agent)) {
    return fail(agentProblem('is frozen, so no gate can be attached to it', 'do not freeze agents'));
  }
  const registries = registryProblem(agent);
  if (registries !== undefined) return fail(registries);
  const executor = agentToolExecutor(agent);
  if (!executor.ok) {
    return fail({
      kind: 'tool-executor',
      reason: toolExecutorReadProblem(executor),
      fix: "use the SDK's 'sequential' or 'concurrent' tool executor and do not redefine it",
    });
  }
  if (!isSdkToolExecutor(executor.value)) {
    return fail({
      kind: 'tool-executor',
      reason: `has a custom tool executor (${className(executor.value)}) that can run tools without hooks`,
      fix: "use the SDK's 'sequential' or 'concurrent' tool executor",
    });
  }
  // The second dispatch point (background tasks): what the tool executor hands a call to after the hooks.
  const dispatch = backgroundDispatchProblem(agent);
  if (dispatch !== undefined) {
    return fail({
      kind: 'tool-executor',
      reason: `${dispatch}, so its calls could run around the gate check`,
      fix: "do not replace or patch the SDK's background-task dispatcher (_backgroundTasks, its task manager and engine)",
    });
  }
  return { kind: 'agent', agent };
}

function classifyOrchestrator(value: Graph | Swarm, kind: 'graph' | 'swarm'): Classified {
  const expected = kind === 'graph' ? Graph.prototype : Swarm.prototype;
  const what = kind === 'graph' ? 'Graph' : 'Swarm';
  const fail = (reason: string, fix: string): Classified => ({
    kind,
    orchestrator: value,
    problem: { kind: 'custom-orchestrator', reason, fix },
  });
  if (Object.getPrototypeOf(value) !== expected) {
    return fail(`is a ${what} subclass (${className(value)}) whose run may skip the node guard`, `use a plain ${what}`);
  }
  const shadow = shadowedMember(value, expected);
  if (shadow !== undefined) {
    return fail(
      `is a ${what} whose "${String(shadow)}" was replaced on the instance, so its hooks may never run`,
      `do not patch ${String(shadow)} on the instance; wrap behaviour in hooks instead`,
    );
  }
  if (!Object.isExtensible(value))
    return fail(`is a frozen ${what}, so no guard can be attached`, `do not freeze the ${what}`);
  if (!hasSdkHookRegistry(value)) {
    return fail(`is a ${what} whose hook registry is not the SDK's own`, `do not replace the ${what}'s hook registry`);
  }
  return { kind, orchestrator: value };
}

/** Classifies whatever runs behind a node or a tool: an Agent, a Graph, a Swarm, or something opaque. */
export function classifyExecutor(value: unknown): Classified {
  if (isProxy(value)) return { kind: 'custom', problem: PROXY_PROBLEM };
  if (inheritsFrom(value, Agent.prototype)) return classifyAgent(value as Agent);
  if (inheritsFrom(value, Graph.prototype)) return classifyOrchestrator(value as Graph, 'graph');
  if (inheritsFrom(value, Swarm.prototype)) return classifyOrchestrator(value as Swarm, 'swarm');
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

/**
 * Opens a node: an `AgentNode` yields its `_agent`, a `MultiAgentNode` its `_orchestrator`, read as plain
 * data; a Proxy, a patched node or anything else is opaque.
 */
export function openNode(node: unknown): NodeContent {
  if (isProxy(node)) return { via: 'custom', problem: PROXY_PROBLEM };
  const proto: unknown = typeof node === 'object' && node !== null ? Object.getPrototypeOf(node) : undefined;
  const name = className(node);
  if (proto === AgentNode.prototype || proto === MultiAgentNode.prototype) {
    const patched = shadowedMember(node as object, proto);
    if (patched !== undefined) {
      return {
        via: 'custom',
        problem: {
          kind: 'custom-node',
          reason: `is a ${name} whose "${String(patched)}" was replaced on the instance`,
          fix: `do not patch ${String(patched)} on the node`,
        },
      };
    }
    const isAgentNode = proto === AgentNode.prototype;
    const read = nodeExecutorRead(node as AgentNode | MultiAgentNode, isAgentNode, name);
    if (!read.ok) return { via: 'custom', problem: { kind: 'custom-node', reason: read.reason, fix: read.fix } };
    return { via: isAgentNode ? 'agent-node' : 'multi-agent-node', executor: read.value };
  }
  if (name === 'AgentNode' || name === 'MultiAgentNode') return { via: 'custom', problem: foreignCopy(name) };
  const read = declaredOrProblem(node, {
    kind: 'custom-node',
    reason: `is a custom node (${name}) whose handle() this process cannot see into`,
    fix: `build the node from an Agent, Graph or Swarm, or ${HOW_TO_DECLARE}`,
  });
  return 'declared' in read ? { via: 'declared', declared: read.declared } : { via: 'custom', problem: read.problem };
}

/** A local Agent, Graph or Swarm found behind a wrapper, and why it cannot be gated when it cannot. */
export interface LocalBehind {
  readonly kind: 'Agent' | 'Graph' | 'Swarm';
  readonly id: string;
  readonly problem?: Problem;
}

/** How deep, and through how many objects, `localBehind` looks (a wrapper of a wrapper is two deep). */
const BEHIND_DEPTH = 4;
const BEHIND_OBJECTS = 256;

/**
 * What runs behind an opaque node or executor, as far as the walker can see without running anything: the
 * objects it holds in its own data fields (an `AgentNode`'s `_agent` and a `MultiAgentNode`'s `_orchestrator`
 * among them, whether the node is a subclass or had its methods replaced), and theirs in turn, a few levels
 * deep. The first local Agent, Graph or Swarm found is returned; a remote agent, a Proxy and an SDK object of
 * another copy end the search on their branch (they are what an `accept` entry may acknowledge).
 *
 * @param value - an opaque node or executor
 * @returns the local Agent, Graph or Swarm behind it, or undefined when there is none the walker can see
 */
export function localBehind(value: unknown): LocalBehind | undefined {
  const seen = new Set<unknown>([value]);
  let level: unknown[] = [value];
  for (let depth = 0; depth < BEHIND_DEPTH && level.length > 0; depth += 1) {
    const next: unknown[] = [];
    for (const owner of level) {
      for (const held of heldObjects(owner)) {
        if (seen.has(held) || seen.size >= BEHIND_OBJECTS) continue;
        seen.add(held);
        const classified = classifyExecutor(held);
        if (classified.kind === 'agent' || classified.kind === 'graph' || classified.kind === 'swarm') {
          const kind = classified.kind === 'agent' ? 'Agent' : classified.kind === 'graph' ? 'Graph' : 'Swarm';
          const id = readData(held, 'id');
          return {
            kind,
            id: typeof id === 'string' ? id : '?',
            ...(classified.problem === undefined ? {} : { problem: classified.problem }),
          };
        }
        if (classified.kind === 'remote' || isProxy(held) || isForeignSdk(held)) continue;
        next.push(held);
      }
    }
    level = next;
  }
  return undefined;
}

/** An Agent, Graph or Swarm of another copy of the SDK: opaque here, as the walk reports it. */
function isForeignSdk(value: unknown): boolean {
  const name = className(value);
  return name === 'Agent' || name === 'Graph' || name === 'Swarm';
}

/** Live state of an agent's gate. */
export type AgentGateState = 'gated' | 'pending-plugin' | 'removed' | 'none';

function registered(hooks: readonly { readonly callback: unknown }[] | undefined, callback: unknown): boolean {
  return hooks?.some((entry) => entry.callback === callback) === true;
}

/** Whether every marked hook is registered, as many times as it is marked (one callback may be registered twice). */
function allRegistered(
  hooks: readonly MarkedHook[],
  read: (event: unknown) => readonly { callback: unknown }[] | undefined,
): boolean {
  const wanted = new Map<unknown, Map<unknown, number>>();
  for (const hook of hooks) {
    const counts = wanted.get(hook.event) ?? new Map<unknown, number>();
    counts.set(hook.callback, (counts.get(hook.callback) ?? 0) + 1);
    wanted.set(hook.event, counts);
  }
  for (const [event, counts] of wanted) {
    const entries = read(event);
    if (entries === undefined) return false;
    for (const [callback, count] of counts) {
      if (entries.filter((entry) => entry.callback === callback).length < count) return false;
    }
  }
  return true;
}

/**
 * Reads whether an agent carries a live gate: the mark is present and every hook and the execution check
 * are still registered; or a `GatePlugin` waits to initialise at the first run.
 */
export function agentGateState(agent: Agent): AgentGateState {
  const mark = agentGateMark(agent);
  if (mark !== undefined) {
    const hooked = registered(toolCallHooks(agent), mark.decisionHook);
    const checked = toolMiddleware(agent)?.some((entry) => entry.handler === mark.executionCheck) === true;
    const rest = Array.isArray(mark.hooks) && allRegistered(mark.hooks, (event) => agentHooks(agent, event));
    return hooked && checked && rest ? 'gated' : 'removed';
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

/** Whether the orchestrator carries gate-audit's node guard and every hook of it is still registered. */
export function hasNodeGuard(orchestrator: Orchestrator): boolean {
  const mark = nodeGuardMark(orchestrator);
  const hooks: unknown = mark?.hooks;
  if (mark === undefined || !Array.isArray(hooks)) return false;
  const marked = hooks as readonly MarkedHook[];
  return (
    marked.some((hook) => hook.callback === mark.guardHook) &&
    allRegistered(marked, (event) => orchestratorHooks(orchestrator, event))
  );
}

/**
 * Why an executor about to run must not run, or undefined when it carries a live gate (an agent) or a
 * live guard (a nested Graph or Swarm). The node guard asks this at every node call, and the gate at
 * every call of an agent used as a tool: exactly the same checks as the walk, on the object as it is now.
 */
export function executorRefusal(executor: unknown): string | undefined {
  const classified = classifyExecutor(executor);
  if (classified.problem !== undefined) return `${classified.problem.reason} | ${classified.problem.fix}`;
  if ('declared' in classified) return declaredRefusal(classified.declared);
  if (classified.kind === 'agent') {
    const state = agentGateState(classified.agent);
    if (state === 'none')
      return 'runs an agent that carries no gate | call installMultiagent(orchestrator) after adding or swapping nodes';
    if (state === 'removed') return "runs an agent whose gate hooks were removed | do not remove gate-audit's hooks";
    return undefined;
  }
  if (classified.kind === 'graph' || classified.kind === 'swarm') {
    if (!hasNodeGuard(classified.orchestrator)) {
      return `runs a nested ${classified.kind} without a node guard | call installMultiagent on the outer orchestrator again`;
    }
    return undefined;
  }
  return 'runs something that cannot be gated';
}

/** A declared custom node runs only if everything it declares (read again now) carries a live gate or guard. */
export function declaredRefusal(declared: Declared): string | undefined {
  for (const executor of declared.agents) {
    const refusal = executorRefusal(executor);
    if (refusal !== undefined) return `has a declared executor that ${refusal.replace(/^runs /, 'is ')}`;
  }
  return undefined;
}
