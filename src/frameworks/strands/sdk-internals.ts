/**
 * The one place that reads private state of `@strands-agents/sdk` objects (the tested range is in
 * `sdk-version.ts`; every private field read here is listed and checked at startup in `sdk-shape.ts`).
 *
 * Why private fields at all: the SDK exposes no public way to list hook callbacks, middleware, pending
 * plugins, a Graph's entry nodes or an AgentNode's executor without side effects (see
 * `docs/sdk-paths.md`). Every read here is defensive (the safe reads it stands on are in `safe-read.ts`):
 *
 * - it never runs code that the object could have replaced: a field is read from its own property
 *   descriptor, so a getter (which could answer gate-audit one thing and the SDK another) reads as
 *   "unknown", never as its value; a `Proxy` (whose traps could do the same) is never looked into;
 * - an unexpected shape reads as "unknown", and unknown is never "safe".
 *
 * Nothing in this module mutates anything.
 */
import { types } from 'node:util';
import {
  Agent,
  BeforeToolCallEvent,
  ConcurrentToolExecutor,
  ExecuteToolStage,
  FunctionTool,
  McpClient,
  Model,
  SequentialToolExecutor,
  Tool,
  ZodTool,
} from '@strands-agents/sdk';
import {
  AfterMultiAgentInvocationEvent,
  AgentNode,
  BeforeMultiAgentInvocationEvent,
  BeforeNodeCallEvent,
  Graph,
  MultiAgentHandoffEvent,
  MultiAgentNode,
  Node,
  Swarm,
} from '@strands-agents/sdk/multiagent';
import {
  dataField,
  describeFieldProblem,
  type FieldRead,
  isObjectLike,
  isPlainArray,
  isPlainMap,
  isProxy,
  ownDataShape,
  readData,
  shadowedMember,
  className,
} from '../../walker/safe-read.js';

export { agentLoopSpan, orchestratorSpan } from './tracer-spans.js';
export {
  AfterMultiAgentInvocationEvent,
  Agent,
  AgentNode,
  BeforeMultiAgentInvocationEvent,
  BeforeNodeCallEvent,
  BeforeToolCallEvent,
  ExecuteToolStage,
  FunctionTool,
  Graph,
  MultiAgentHandoffEvent,
  MultiAgentNode,
  Node,
  Swarm,
  ZodTool,
};

/** A Graph or Swarm of this process's SDK copy. */
export type Orchestrator = Graph | Swarm;

/** One registered hook callback as the SDK stores it. */
export interface HookEntry {
  readonly callback: unknown;
  readonly order: number;
}

/** One registered middleware handler as the SDK stores it. */
export interface MiddlewareEntry {
  readonly phase: string;
  readonly handler: unknown;
}

/** Hook callbacks of a registry (`_callbacks: Map<EventClass, entry[]>`), or undefined when unreadable. */
function callbacksOf(registry: unknown, eventClass: unknown): readonly HookEntry[] | undefined {
  if (isProxy(registry)) return undefined;
  const map = readData(registry, '_callbacks');
  if (!isPlainMap(map)) return undefined;
  const entries: unknown = map.get(eventClass);
  if (entries === undefined) return [];
  if (!isPlainArray(entries)) return undefined;
  const read: HookEntry[] = [];
  for (const entry of entries) {
    const callback = dataField(entry, 'callback');
    const order = dataField(entry, 'order');
    if (!callback.ok || !order.ok || typeof order.value !== 'number') return undefined;
    read.push({ callback: callback.value, order: order.value });
  }
  return read;
}

/** The field holding the hook registry: `_hooksRegistry` on an agent, `_hookRegistry` on a Graph or Swarm. */
export const HOOK_REGISTRY_FIELD = { agent: '_hooksRegistry', orchestrator: '_hookRegistry' } as const;

/** The field of an agent holding its tool executor (named in messages about it). */
export const TOOL_EXECUTOR_FIELD = '_toolExecutor';

/** The field of a node holding what it runs: `_agent` on an `AgentNode`, `_orchestrator` on a `MultiAgentNode`. */
export const NODE_EXECUTOR_FIELD = { agent: '_agent', orchestrator: '_orchestrator' } as const;

/** The field of a Graph holding its entry nodes. */
export const GRAPH_SOURCES_FIELD = '_sources';

/** The registries an agent runs hooks, middleware and tools from, each with the prototype of the SDK's own class. */
export function agentRegistryFields(): readonly (readonly [string, object])[] {
  const prototypes = hiddenPrototypes();
  return [
    [HOOK_REGISTRY_FIELD.agent, prototypes.hookRegistry],
    ['_middlewareRegistry', prototypes.middlewareRegistry],
    ['_toolRegistry', prototypes.toolRegistry],
  ];
}

/** How a registry read as data falls short of the SDK's own (`proto` its class's prototype), or undefined. */
function registryShapeProblem(
  registry: unknown,
  proto: object,
):
  | { readonly kind: 'not-object' | 'prototype' }
  | { readonly kind: 'patched'; readonly member: PropertyKey }
  | undefined {
  if (isProxy(registry) || typeof registry !== 'object' || registry === null) return { kind: 'not-object' };
  if (Object.getPrototypeOf(registry) !== proto) return { kind: 'prototype' };
  const member = shadowedMember(registry, proto);
  return member === undefined ? undefined : { kind: 'patched', member };
}

/**
 * Why an agent's hook, middleware or tool registry is not the SDK's own, plain and unpatched (each read as data),
 * or undefined when all three are: a field redefined (a getter), a Proxy or not an object, another prototype, or a
 * member replaced on the instance. The reason names the field; the fix says what not to do.
 */
export function agentRegistryProblem(agent: Agent): { readonly reason: string; readonly fix: string } | undefined {
  for (const [key, proto] of agentRegistryFields()) {
    const read = dataField(agent, key);
    const problem = describeFieldProblem('the agent', key, read);
    if (problem !== undefined || !read.ok) {
      return { reason: `${problem ?? 'has an unreadable registry'}`, fix: 'do not redefine SDK fields of an agent' };
    }
    const shape = registryShapeProblem(read.value, proto);
    if (shape?.kind === 'not-object') {
      return { reason: `has a ${key} that is a Proxy or not an object`, fix: 'do not replace SDK registries' };
    }
    if (shape?.kind === 'prototype') {
      return { reason: `has a ${key} that is not the SDK's own registry`, fix: 'do not replace SDK registries' };
    }
    if (shape?.kind === 'patched') {
      return {
        reason: `has a ${key} whose "${String(shape.member)}" was replaced on the instance`,
        fix: 'do not patch SDK registries',
      };
    }
  }
  return undefined;
}

/** Whether an orchestrator's hook registry is the SDK's own: a plain data field, no Proxy, its prototype, unpatched. */
export function hasSdkHookRegistry(orchestrator: object): boolean {
  const registry = dataField(orchestrator, HOOK_REGISTRY_FIELD.orchestrator);
  return registry.ok && registryShapeProblem(registry.value, hiddenPrototypes().hookRegistry) === undefined;
}

/** What is wrong with an agent's tool executor field when it cannot be read as data (it names the field). */
export function toolExecutorReadProblem(read: FieldRead): string {
  return describeFieldProblem('the agent', TOOL_EXECUTOR_FIELD, read) ?? 'has an unreadable tool executor';
}

/**
 * What a node runs (`_agent` of an `AgentNode`, `_orchestrator` of a `MultiAgentNode`), read as data, or why it
 * cannot be read (naming the node as `the <name>` and the field) with the fix.
 */
export function nodeExecutorRead(
  node: AgentNode | MultiAgentNode,
  isAgentNode: boolean,
  name: string,
):
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reason: string; readonly fix: string } {
  const read = isAgentNode ? agentNodeExecutor(node as AgentNode) : multiAgentNodeExecutor(node as MultiAgentNode);
  if (read.ok) return { ok: true, value: read.value };
  const key = isAgentNode ? NODE_EXECUTOR_FIELD.agent : NODE_EXECUTOR_FIELD.orchestrator;
  return {
    ok: false,
    reason: describeFieldProblem(`the ${name}`, key, read) ?? `its ${key} cannot be read`,
    fix: `do not redefine ${key} on the node`,
  };
}

/** A Graph's entry nodes (`_sources`) as a plain array, or why they cannot be read so (naming the field). */
export function graphSourcesRead(
  graph: object,
): { readonly sources: readonly unknown[] } | { readonly problem: string } {
  const sources = dataField(graph, GRAPH_SOURCES_FIELD);
  if (!sources.ok || !isPlainArray(sources.value)) {
    return {
      problem:
        describeFieldProblem('the graph', GRAPH_SOURCES_FIELD, sources) ?? 'its entry nodes are not a plain array',
    };
  }
  return { sources: sources.value };
}

/** The map of a hook registry's callbacks by event class (`_callbacks`), read as data (undefined otherwise). */
export function hookCallbackMap(registry: unknown): unknown {
  return readData(registry, '_callbacks');
}

/** The hook registry of an agent, or undefined when it is not a plain data field. */
export function agentHookRegistry(agent: Agent): unknown {
  return readData(agent, HOOK_REGISTRY_FIELD.agent);
}

/** The `BeforeToolCallEvent` callbacks registered on an agent, in run order. */
export function toolCallHooks(agent: Agent): readonly HookEntry[] | undefined {
  return callbacksOf(agentHookRegistry(agent), BeforeToolCallEvent);
}

/** The callbacks of one event class registered on an agent, in registration order. */
export function agentHooks(agent: Agent, eventClass: unknown): readonly HookEntry[] | undefined {
  return callbacksOf(agentHookRegistry(agent), eventClass);
}

/** The hook registry of an orchestrator, or undefined when it is not a plain data field. */
export function orchestratorHookRegistry(orchestrator: Orchestrator): unknown {
  return readData(orchestrator, HOOK_REGISTRY_FIELD.orchestrator);
}

/** The callbacks of one event class registered on an orchestrator, in run order. */
export function orchestratorHooks(orchestrator: Orchestrator, eventClass: unknown): readonly HookEntry[] | undefined {
  return callbacksOf(orchestratorHookRegistry(orchestrator), eventClass);
}

/** The `BeforeNodeCallEvent` callbacks registered on an orchestrator, in run order. */
export function nodeCallHooks(orchestrator: Orchestrator): readonly HookEntry[] | undefined {
  return orchestratorHooks(orchestrator, BeforeNodeCallEvent);
}

/** The `ExecuteToolStage` middleware handlers of an agent, in registration order. */
export function toolMiddleware(agent: Agent): readonly MiddlewareEntry[] | undefined {
  const registry = readData(agent, '_middlewareRegistry');
  if (isProxy(registry)) return undefined;
  const map = readData(registry, '_handlers');
  if (!isPlainMap(map)) return undefined;
  const entries: unknown = map.get(ExecuteToolStage);
  if (entries === undefined) return [];
  if (!isPlainArray(entries)) return undefined;
  const read: MiddlewareEntry[] = [];
  for (const entry of entries) {
    const phase = dataField(entry, 'phase');
    const handler = dataField(entry, 'handler');
    if (!phase.ok || !handler.ok || typeof phase.value !== 'string') return undefined;
    read.push({ phase: phase.value, handler: handler.value });
  }
  return read;
}

/** The live array of a registry's callbacks for one event class (for the few reorderings gate-audit does). */
export function liveCallbackArray(registry: unknown, eventClass: unknown): unknown[] | undefined {
  const map = readData(registry, '_callbacks');
  if (!isPlainMap(map)) return undefined;
  const entries: unknown = map.get(eventClass);
  return isPlainArray(entries) ? (entries as unknown[]) : undefined;
}

/** The live array of an agent's `ExecuteToolStage` handlers (for moving the execution check innermost). */
export function liveMiddlewareArray(agent: Agent): unknown[] | undefined {
  const registry = readData(agent, '_middlewareRegistry');
  if (isProxy(registry)) return undefined;
  const map = readData(registry, '_handlers');
  if (!isPlainMap(map)) return undefined;
  const entries: unknown = map.get(ExecuteToolStage);
  return isPlainArray(entries) ? (entries as unknown[]) : undefined;
}

/** Plugins not yet initialised (they register hooks and tools at the agent's first run). */
export function pendingPlugins(owner: Agent | Orchestrator): readonly unknown[] {
  const pending = readData(readData(owner, '_pluginRegistry'), '_pending');
  return isPlainArray(pending) ? pending : [];
}

/** Whether the agent ran `initialize()` already. */
export function isInitialized(agent: Agent): boolean {
  return readData(agent, '_initialized') === true;
}

/** Number of MCP clients whose tools are loaded only at `initialize()`. */
export function mcpClientCount(agent: Agent): number {
  const clients = readData(agent, '_mcpClients');
  return isPlainArray(clients) ? clients.filter((c) => !isProxy(c) && c instanceof McpClient).length : 0;
}

/**
 * Whether the agent was configured with background tasks. Feature-dependent: SDK versions without
 * background tasks have no such field, which reads as "no".
 */
export function hasBackgroundTasks(agent: Agent): boolean {
  const tasks = readData(agent, '_backgroundTasks');
  return tasks !== undefined && tasks !== null;
}

/**
 * What the SDK's own background-task dispatcher is, read once from a probe agent configured with background tasks
 * (its classes are not exported): the prototypes of the dispatcher (`_backgroundTasks`), of the task manager it
 * makes at the agent's first initialize (`_manager`) and of that manager's engine (`_engine`), and the source text
 * of the two closures that carry a background call on to the agent's tool executor and middleware: the agent's
 * (`_executeTool`, handed to the dispatcher and its manager) and the manager's (`_engine._options.execute`).
 * `absent` on an SDK without background tasks; `unreadable` when the probe does not have that shape.
 */
export type BackgroundDispatchShape =
  | 'absent'
  | 'unreadable'
  | {
      readonly tasks: object;
      readonly manager: object;
      readonly engine: object;
      readonly executeTool: string;
      readonly engineExecute: string;
    };

let backgroundShape: BackgroundDispatchShape | undefined;

const sourceOf = (fn: unknown): string | undefined =>
  typeof fn === 'function' && !types.isProxy(fn) ? Function.prototype.toString.call(fn) : undefined;

function readBackgroundShape(): BackgroundDispatchShape {
  // Typed loosely: SDKs without background tasks do not know the option (and ignore it).
  const config: Record<string, unknown> = {
    model: new ProbeModel(),
    printer: false,
    id: 'gate-audit-probe-background',
    backgroundTasks: true,
  };
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed with older SDK types
  const probe = new Agent(config as ConstructorParameters<typeof Agent>[0]);
  const tasks = readData(probe, '_backgroundTasks');
  if (tasks === undefined || tasks === null) return 'absent';
  try {
    // The manager exists only once the dispatcher is initialised with its agent (our probe, never run).
    (tasks as { initAgent(agent: Agent): void }).initAgent(probe);
  } catch {
    return 'unreadable';
  }
  const manager = readData(tasks, '_manager');
  const engine = readData(manager, '_engine');
  const executeTool = sourceOf(readData(tasks, '_executeTool'));
  const engineExecute = sourceOf(readData(readData(engine, '_options'), 'execute'));
  if (!isObjectLike(tasks) || !isObjectLike(manager) || !isObjectLike(engine)) return 'unreadable';
  if (executeTool === undefined || engineExecute === undefined) return 'unreadable';
  const protoOf = (value: object): object => Object.getPrototypeOf(value) as object;
  return { tasks: protoOf(tasks), manager: protoOf(manager), engine: protoOf(engine), executeTool, engineExecute };
}

/** The SDK's own background-task dispatcher, as a probe shows it (read once). */
export function backgroundDispatchShape(): BackgroundDispatchShape {
  backgroundShape ??= readBackgroundShape();
  return backgroundShape;
}

/** Why one object of the dispatch chain is not the SDK's own class, untouched on the instance. */
function sdkObjectProblem(what: string, value: unknown, proto: object): string | undefined {
  if (isProxy(value)) return `${what} is a Proxy`;
  if (!isObjectLike(value) || Object.getPrototypeOf(value) !== proto) return `${what} is not the SDK's own`;
  const shadow = shadowedMember(value, proto);
  if (shadow !== undefined) return `${what}'s "${String(shadow)}" was replaced on the instance`;
  if (ownDataShape(value) === undefined) return `${what} has a getter among its own fields`;
  return undefined;
}

/** Whether the agent's plugin registry holds `plugin` (pending, or initialised by the agent). */
function holdsPlugin(agent: Agent, plugin: unknown): boolean {
  const registry = readData(agent, '_pluginRegistry');
  const pending = readData(registry, '_pending');
  if (isPlainArray(pending) && pending.includes(plugin)) return true;
  const plugins = readData(registry, '_plugins');
  if (!isPlainMap(plugins)) return false;
  let found = false;
  Map.prototype.forEach.call(plugins, (value: unknown) => {
    if (value === plugin) found = true;
  });
  return found;
}

/** The agent each dispatch closure was first read on (a closure runs the tool executor of the agent that made it). */
const closureOwners = new WeakMap<object, Agent>();
/** The dispatch closure each agent was first read with. */
const closuresOfAgents = new WeakMap<Agent, object>();

/**
 * Why the agent's background-task dispatcher (SDK ≥ 1.16) could run a call around the execution check, or
 * undefined when it has none or it is the SDK's own, bound to this agent. After the `BeforeToolCallEvent` hooks
 * the tool executor hands each call to `_backgroundTasks` (`routeToolCall`, `submitToolCall`), whose task manager
 * runs it later through the agent's `_executeTool` closure, so through the agent's middleware; each object and
 * closure on that path is checked here, as plain data: the dispatcher, held by this agent's plugin registry; its
 * `_executeTool`; once initialised, its `_manager` (holding this agent and the same `_executeTool`), the manager's
 * `_engine` and the engine's `execute` callback. An SDK without background tasks never reads the field.
 *
 * @param agent - an agent of this SDK copy
 */
export function backgroundDispatchProblem(agent: Agent): string | undefined {
  const field = dataField(agent, '_backgroundTasks');
  if (!field.ok) {
    return field.why === 'absent' ? undefined : describeFieldProblem('the agent', '_backgroundTasks', field);
  }
  const tasks = field.value;
  if (tasks === undefined || tasks === null) return undefined;
  const shape = backgroundDispatchShape();
  if (shape === 'absent') return undefined;
  if (shape === 'unreadable') return 'has a background-task dispatcher gate-audit cannot read on this SDK';
  const problem = sdkObjectProblem('its background-task dispatcher', tasks, shape.tasks);
  if (problem !== undefined) return `has a background-task dispatcher that is not the SDK's own (${problem})`;
  const dispatcher = (what: string): string => `has a background-task dispatcher ${what}`;
  if (!holdsPlugin(agent, tasks)) return dispatcher("that is not this agent's own (another agent's, moved over)");
  const bound = readData(tasks, '_agent');
  if (bound !== undefined && bound !== agent) return dispatcher('initialised with another agent');
  const executeTool = readData(tasks, '_executeTool');
  if (sourceOf(executeTool) !== shape.executeTool) {
    return dispatcher("whose _executeTool is not the agent's own run through its tool executor");
  }
  // Another agent's closure has the same source but runs that agent's tool executor and middleware, around this
  // agent's execution check: a closure belongs to the first agent it was read on, and an agent keeps the closure
  // it was first read with (one moved over before gate-audit ever read either agent is not seen: see the docs).
  const closure = executeTool as object;
  const owner = closureOwners.get(closure);
  if (owner !== undefined && owner !== agent) {
    return dispatcher("whose _executeTool is another agent's (it runs that agent's tool executor and middleware)");
  }
  const first = closuresOfAgents.get(agent);
  if (first !== undefined && first !== closure) {
    return dispatcher('whose _executeTool was replaced since gate-audit first read it');
  }
  closureOwners.set(closure, agent);
  closuresOfAgents.set(agent, closure);
  const manager = readData(tasks, '_manager');
  if (manager === undefined) return undefined;
  const managerProblem = sdkObjectProblem('its task manager', manager, shape.manager);
  if (managerProblem !== undefined) return dispatcher(`whose ${managerProblem}`);
  if (readData(manager, '_agent') !== agent || readData(manager, '_executeTool') !== executeTool) {
    return dispatcher("whose task manager runs calls otherwise than through this agent's _executeTool");
  }
  const engine = readData(manager, '_engine');
  const engineProblem = sdkObjectProblem("its task manager's engine", engine, shape.engine);
  if (engineProblem !== undefined) return dispatcher(`whose ${engineProblem}`);
  const options = readData(engine, '_options');
  if (isProxy(options) || !isObjectLike(options) || ownDataShape(options) === undefined) {
    return dispatcher("whose task engine's options are not plain data");
  }
  if (sourceOf(readData(options, 'execute')) !== shape.engineExecute) {
    return dispatcher('whose task engine runs calls otherwise than through its manager');
  }
  return undefined;
}

/** A Graph's entry nodes (`_sources`), the objects a run really starts from. */
export function graphSources(graph: Graph): readonly unknown[] {
  const sources = readData(graph, GRAPH_SOURCES_FIELD);
  return isPlainArray(sources) ? sources : [];
}

/** The executor an `AgentNode` runs, read from `_agent` (`.agent` is a getter over it). */
export function agentNodeExecutor(node: AgentNode): FieldRead {
  return dataField(node, NODE_EXECUTOR_FIELD.agent);
}

/** The orchestrator a `MultiAgentNode` runs, read from `_orchestrator` (`.orchestrator` is a getter over it). */
export function multiAgentNodeExecutor(node: MultiAgentNode): FieldRead {
  return dataField(node, NODE_EXECUTOR_FIELD.orchestrator);
}

/** The tool executor an agent runs its tools with, read from `_toolExecutor`. */
export function agentToolExecutor(agent: Agent): FieldRead {
  return dataField(agent, TOOL_EXECUTOR_FIELD);
}

/** The agent's tool executor as plain data, or undefined when it is absent, a getter, or the agent a Proxy. */
export function toolExecutorOf(agent: unknown): unknown {
  return readData(agent, TOOL_EXECUTOR_FIELD);
}

/** Whether an agent was built with a `structuredOutputSchema` (read as data, never through a getter). */
export function hasStructuredOutputSchema(agent: object): boolean {
  // Read as data: a getter is not run and a Proxy is not looked into (neither reads as a schema).
  const schema = readData(agent, '_structuredOutputSchema');
  return schema !== undefined && schema !== null;
}

/** True when the executor is exactly one of the SDK's two tool executors (a subclass can skip the hooks). */
export function isSdkToolExecutor(executor: unknown): boolean {
  if (!isObjectLike(executor) || types.isProxy(executor)) return false;
  const proto: unknown = Object.getPrototypeOf(executor);
  if (proto !== SequentialToolExecutor.prototype && proto !== ConcurrentToolExecutor.prototype) return false;
  return shadowedMember(executor, proto) === undefined;
}

/** Whether `value` looks like an SDK `A2AAgent` (recognised by shape: its module needs an optional peer). */
export function isA2AAgent(value: unknown): boolean {
  return className(value) === 'A2AAgent' && isObjectLike(readData(value, '_config'));
}

/** A model that never answers: only for building probe objects, never run. */
class ProbeModel extends Model {
  updateConfig(): void {
    // nothing to configure
  }
  getConfig(): { modelId: string } {
    return { modelId: 'gate-audit-probe' };
  }
  // eslint-disable-next-line require-yield, @typescript-eslint/require-await
  async *stream(): AsyncGenerator<never> {
    throw new Error('the gate-audit probe model is never called');
  }
}

/** Prototypes of SDK classes that the package does not export, read once from a probe agent. */
export interface HiddenPrototypes {
  /** `AgentAsTool` (what `agent.asTool()` returns). */
  readonly agentAsTool: object;
  /** The hook registry of agents and orchestrators. */
  readonly hookRegistry: object;
  /** The middleware registry of agents. */
  readonly middlewareRegistry: object;
  /** The tool registry of agents. */
  readonly toolRegistry: object;
}

let hidden: HiddenPrototypes | undefined;

/** The prototypes of SDK classes the package does not export (built once, from a probe that never runs). */
export function hiddenPrototypes(): HiddenPrototypes {
  if (hidden === undefined) {
    const probe = new Agent({ model: new ProbeModel(), printer: false, id: 'gate-audit-probe' });
    const protoOf = (value: unknown): object => Object.getPrototypeOf(value) as object;
    hidden = {
      agentAsTool: protoOf(probe.asTool()),
      hookRegistry: protoOf(readData(probe, '_hooksRegistry')),
      middlewareRegistry: protoOf(readData(probe, '_middlewareRegistry')),
      toolRegistry: protoOf(readData(probe, '_toolRegistry')),
    };
  }
  return hidden;
}

function realAgentAsToolPrototype(): object {
  return hiddenPrototypes().agentAsTool;
}

/** What a tool is, seen as an agent used as a tool. */
export type AgentToolRead =
  | { readonly kind: 'not-agent-tool' }
  | { readonly kind: 'agent-tool'; readonly agent: unknown }
  | { readonly kind: 'opaque'; readonly reason: string };

/**
 * Reads a tool as an SDK `AgentAsTool`: the agent it wraps, or why it cannot be trusted to run that agent
 * (a Proxy, a look-alike class, an own `stream`, a getter on `_agent`).
 */
export function readAgentTool(tool: unknown): AgentToolRead {
  if (isProxy(tool)) {
    return { kind: 'opaque', reason: 'is a Proxy around a tool, whose traps could run anything' };
  }
  if (className(tool) !== 'AgentAsTool') return { kind: 'not-agent-tool' };
  const proto = realAgentAsToolPrototype();
  if (Object.getPrototypeOf(tool) !== proto) {
    return {
      kind: 'opaque',
      reason:
        "is an AgentAsTool from another copy of @strands-agents/sdk, or a look-alike, so its run is not the SDK's",
    };
  }
  const shadow = shadowedMember(tool as object, proto);
  if (shadow !== undefined) {
    return { kind: 'opaque', reason: `is an AgentAsTool whose "${String(shadow)}" was replaced on the instance` };
  }
  const inner = dataField(tool, '_agent');
  if (!inner.ok) {
    return { kind: 'opaque', reason: describeFieldProblem('the AgentAsTool', '_agent', inner) ?? 'is unreadable' };
  }
  return { kind: 'agent-tool', agent: inner.value };
}

/** The agent an SDK `AgentAsTool` wraps, or undefined when `tool` is not one (or cannot be trusted). */
export function agentAsToolTarget(tool: unknown): unknown {
  const read = readAgentTool(tool);
  return read.kind === 'agent-tool' ? read.agent : undefined;
}

/** Whether `tool` is the SDK's own `StructuredOutputTool` (a user tool with the same name is not). */
export function isStructuredOutputTool(tool: unknown): boolean {
  if (isProxy(tool) || !(tool instanceof Tool) || className(tool) !== 'StructuredOutputTool') return false;
  const parent: unknown = Object.getPrototypeOf(Object.getPrototypeOf(tool));
  return parent === Tool.prototype && Object.hasOwn(tool, '_schema') && !Object.hasOwn(tool, 'stream');
}

/** Whether `tool` is an MCP tool (`McpTool` with an `McpClient`). */
export function isMcpTool(tool: unknown): boolean {
  const client = readData(tool, 'mcpClient');
  return className(tool) === 'McpTool' && !isProxy(client) && client instanceof McpClient;
}

/** What kind of tool a tool object is, as the request a gate sees says it. */
export type ToolKind = 'function' | 'mcp' | 'agent' | 'structured-output' | 'other';

/** What kind of tool a tool object is, for the request a gate sees. */
export function toolKindOf(tool: unknown): ToolKind {
  if (isProxy(tool)) return 'other';
  if (isStructuredOutputTool(tool)) return 'structured-output';
  if (isMcpTool(tool)) return 'mcp';
  if (className(tool) === 'AgentAsTool') return 'agent';
  if (tool instanceof FunctionTool || tool instanceof ZodTool) return 'function';
  return 'other';
}

/** What a call's decision and its execution check need to know of the tool: its kind, and the agent it runs. */
export interface ToolFacts {
  readonly agentTool: AgentToolRead;
  readonly kind: ToolKind;
}

/** Reads a tool's facts (`readAgentTool` and `toolKindOf`). */
export function toolFacts(tool: unknown): ToolFacts {
  return { agentTool: readAgentTool(tool), kind: toolKindOf(tool) };
}

/** Whether `error` is the SDK's `InterruptError` (not exported by the SDK, so recognised by shape). */
export function isInterruptError(error: unknown): error is Error {
  if (isProxy(error) || !(error instanceof Error)) return false;
  return error.name === 'InterruptError' && Array.isArray(readData(error, 'interrupts'));
}

/** The agent's tool registry, when it is a plain data field on the agent. */
export function agentToolRegistry(agent: Agent): FieldRead {
  return dataField(agent, '_toolRegistry');
}

/** The tools registered on an agent now (MCP and plugin tools appear only after `initialize()`). */
export function listTools(agent: Agent): readonly unknown[] {
  const registry = readData(agent, '_toolRegistry');
  if (registry === undefined || isProxy(registry) || typeof registry !== 'object' || registry === null) return [];
  // The SDK's own `list`, read from its registry's prototype as data: a registry of another prototype, or one whose
  // `list` was replaced on the instance (a getter or a function), lists nothing, and nothing of it runs.
  const proto = hiddenPrototypes().toolRegistry;
  if (Object.getPrototypeOf(registry) !== proto || Object.hasOwn(registry, 'list')) return [];
  const list = readData(proto, 'list');
  if (typeof list !== 'function') return [];
  const tools: unknown = (list as () => unknown).call(registry);
  return Array.isArray(tools) ? tools : [];
}

/** Intervention handlers of an agent (`_interventionRegistry._handlers`), in registration order. */
export function interventionHandlers(agent: Agent): readonly { readonly name?: unknown; readonly onError?: unknown }[] {
  const handlers: unknown = readData(readData(agent, '_interventionRegistry'), '_handlers');
  return isPlainArray(handlers) ? (handlers as { readonly name?: unknown; readonly onError?: unknown }[]) : [];
}

/** Names of the plugins an agent initialised already (`_pluginRegistry._plugins`). */
export function initialisedPluginNames(agent: Agent): readonly string[] {
  const plugins = readData(readData(agent, '_pluginRegistry'), '_plugins');
  return isPlainMap(plugins) ? [...plugins.keys()].filter((k): k is string => typeof k === 'string') : [];
}

/**
 * Whether a Graph edge has a condition. The SDK gives an edge without one the handler `() => true`
 * (`multiagent/edge.js`), so any other handler is a condition.
 */
export function isConditionalEdge(edge: unknown): boolean {
  const handler = readData(edge, 'handler');
  if (typeof handler !== 'function') return false;
  return Function.prototype.toString.call(handler).replace(/\s+/g, '') !== '()=>true';
}

/**
 * The span the SDK's tracer keeps in a private field (`_tracer.<key>`), read as data. Feature-dependent
 * (`tracing` in `sdk-shape.ts`): only `gate-audit/otel` reads it, to place a decision's span, and an SDK
 * without it never refuses an install.
 *
 * @returns the span object, or why it could not be read
 */
