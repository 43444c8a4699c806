/**
 * The one place that reads private state of `@strands-agents/sdk` objects (the tested range is in
 * `src/sdk-version.ts`; every private field read here is listed and checked at startup in `sdk-shape.ts`).
 *
 * Why private fields at all: the SDK exposes no public way to list hook callbacks, middleware, pending
 * plugins, a Graph's entry nodes or an AgentNode's executor without side effects
 * (`../shared/research/sdk-gaps.md` §3). Every read here is defensive: an unexpected shape reads as
 * "unknown", never as "safe". Nothing in this module mutates anything.
 */
import {
  Agent,
  BeforeToolCallEvent,
  ConcurrentToolExecutor,
  ExecuteToolStage,
  McpClient,
  SequentialToolExecutor,
  Tool,
} from '@strands-agents/sdk';
import { AgentNode, BeforeNodeCallEvent, Graph, MultiAgentNode, Node, Swarm } from '@strands-agents/sdk/multiagent';

export {
  Agent,
  AgentNode,
  BeforeNodeCallEvent,
  BeforeToolCallEvent,
  ExecuteToolStage,
  Graph,
  MultiAgentNode,
  Node,
  Swarm,
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function field(owner: unknown, key: string): unknown {
  return isRecord(owner) ? owner[key] : undefined;
}

/** Hook callbacks of a registry (`_callbacks: Map<EventClass, entry[]>`), or undefined when unreadable. */
function callbacksOf(registry: unknown, eventClass: unknown): readonly HookEntry[] | undefined {
  const map = field(registry, '_callbacks');
  if (!(map instanceof Map)) return undefined;
  const entries: unknown = map.get(eventClass);
  if (entries === undefined) return [];
  return Array.isArray(entries) ? (entries as HookEntry[]) : undefined;
}

/** The `BeforeToolCallEvent` callbacks registered on an agent, in run order. */
export function toolCallHooks(agent: Agent): readonly HookEntry[] | undefined {
  return callbacksOf(field(agent, '_hooksRegistry'), BeforeToolCallEvent);
}

/** The `BeforeNodeCallEvent` callbacks registered on an orchestrator, in run order. */
export function nodeCallHooks(orchestrator: Orchestrator): readonly HookEntry[] | undefined {
  return callbacksOf(field(orchestrator, '_hookRegistry'), BeforeNodeCallEvent);
}

/** The `ExecuteToolStage` middleware handlers of an agent, in registration order. */
export function toolMiddleware(agent: Agent): readonly MiddlewareEntry[] | undefined {
  const map = field(field(agent, '_middlewareRegistry'), '_handlers');
  if (!(map instanceof Map)) return undefined;
  const entries: unknown = map.get(ExecuteToolStage);
  if (entries === undefined) return [];
  return Array.isArray(entries) ? (entries as MiddlewareEntry[]) : undefined;
}

/** Plugins not yet initialised (they register hooks and tools at the agent's first run). */
export function pendingPlugins(owner: Agent | Orchestrator): readonly unknown[] {
  const pending = field(field(owner, '_pluginRegistry'), '_pending');
  return Array.isArray(pending) ? pending : [];
}

/** Whether the agent ran `initialize()` already. */
export function isInitialized(agent: Agent): boolean {
  return field(agent, '_initialized') === true;
}

/** Number of MCP clients whose tools are loaded only at `initialize()`. */
export function mcpClientCount(agent: Agent): number {
  const clients = field(agent, '_mcpClients');
  return Array.isArray(clients) ? clients.filter((c) => c instanceof McpClient).length : 0;
}

/** Whether the agent was configured with background tasks. */
export function hasBackgroundTasks(agent: Agent): boolean {
  return field(agent, '_backgroundTasks') !== undefined;
}

/** A Graph's entry nodes (`_sources`), the objects a run really starts from. */
export function graphSources(graph: Graph): readonly unknown[] {
  const sources = field(graph, '_sources');
  return Array.isArray(sources) ? sources : [];
}

/** The executor an `AgentNode` runs, read from `_agent` because `.agent` is only a getter over it. */
export function agentNodeExecutor(node: AgentNode): unknown {
  return field(node, '_agent');
}

/** True when the executor is exactly one of the SDK's two tool executors (a subclass can skip the hooks). */
export function isSdkToolExecutor(executor: unknown): boolean {
  if (!isRecord(executor)) return false;
  const proto: unknown = Object.getPrototypeOf(executor);
  if (proto !== SequentialToolExecutor.prototype && proto !== ConcurrentToolExecutor.prototype) return false;
  return !Object.hasOwn(executor, 'executeTool') && !Object.hasOwn(executor, 'executeBackground');
}

/** True when `value` has an own `stream` or `invoke` (an instance patched after construction). */
export function ownRunMethod(value: object): 'stream' | 'invoke' | undefined {
  if (Object.hasOwn(value, 'stream')) return 'stream';
  if (Object.hasOwn(value, 'invoke')) return 'invoke';
  return undefined;
}

/** The class name of a value, for messages and duck-typed recognition across SDK copies. */
export function className(value: unknown): string {
  if (!isRecord(value)) return typeof value;
  const ctor = field(value, 'constructor');
  const name = typeof ctor === 'function' ? ctor.name : '';
  return name === '' ? 'Object' : name;
}

/** Whether `value` looks like an SDK `A2AAgent` (recognised by shape: its module needs an optional peer). */
export function isA2AAgent(value: unknown): boolean {
  return className(value) === 'A2AAgent' && isRecord(field(value, '_config'));
}

/** The agent an SDK `AgentAsTool` wraps, or undefined when `tool` is not one. */
export function agentAsToolTarget(tool: unknown): unknown {
  if (className(tool) !== 'AgentAsTool') return undefined;
  return field(tool, '_agent');
}

/** Whether `tool` is the SDK's own `StructuredOutputTool` (a user tool with the same name is not). */
export function isStructuredOutputTool(tool: unknown): boolean {
  if (!(tool instanceof Tool) || className(tool) !== 'StructuredOutputTool') return false;
  const parent: unknown = Object.getPrototypeOf(Object.getPrototypeOf(tool));
  return parent === Tool.prototype && Object.hasOwn(tool, '_schema') && !Object.hasOwn(tool, 'stream');
}

/** Whether `tool` is an MCP tool (`McpTool` with an `McpClient`). */
export function isMcpTool(tool: unknown): boolean {
  return className(tool) === 'McpTool' && field(tool, 'mcpClient') instanceof McpClient;
}

/** The tools registered on an agent now (MCP and plugin tools appear only after `initialize()`). */
export function listTools(agent: Agent): readonly unknown[] {
  return agent.toolRegistry.list();
}

/** Intervention handlers of an agent (`_interventionRegistry.handlers`), in registration order. */
export function interventionHandlers(agent: Agent): readonly { readonly name?: unknown; readonly onError?: unknown }[] {
  const handlers: unknown = field(field(agent, '_interventionRegistry'), '_handlers');
  return Array.isArray(handlers) ? (handlers as { readonly name?: unknown; readonly onError?: unknown }[]) : [];
}

/** Names of the plugins an agent initialised already (`_pluginRegistry._plugins`). */
export function initialisedPluginNames(agent: Agent): readonly string[] {
  const plugins = field(field(agent, '_pluginRegistry'), '_plugins');
  return plugins instanceof Map ? [...plugins.keys()].filter((k): k is string => typeof k === 'string') : [];
}

/**
 * Whether a Graph edge has a condition. The SDK gives an edge without one the handler `() => true`
 * (`multiagent/edge.js`), so any other handler is a condition.
 */
export function isConditionalEdge(edge: { readonly handler?: unknown }): boolean {
  const handler = edge.handler;
  if (typeof handler !== 'function') return false;
  return Function.prototype.toString.call(handler).replace(/\s+/g, '') !== '()=>true';
}
