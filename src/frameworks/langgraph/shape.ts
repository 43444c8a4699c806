/**
 * What LangGraph.js values look like, read by shape (never by `instanceof`: the CommonJS and ESM builds of
 * `@langchain/langgraph` and `langchain` have different classes, and an app may load its own copy). Reads only:
 * nothing here writes to or runs a LangGraph value.
 */
import { isProxy, readData } from '../../walker/safe-read.js';

/**
 * A member found on the value or up its prototype chain, read from its descriptor (no getter runs, no Proxy is
 * looked into): how a method such as `stream`, `runTool` or `call` is read.
 */
export function memberOf(value: unknown, key: PropertyKey): unknown {
  if (typeof value !== 'object' || value === null || isProxy(value)) return undefined;
  for (let at: object | null = value; at !== null; at = Object.getPrototypeOf(at) as object | null) {
    if (isProxy(at)) return undefined;
    const descriptor = Object.getOwnPropertyDescriptor(at, key);
    if (descriptor !== undefined) return 'value' in descriptor ? descriptor.value : undefined;
  }
  return undefined;
}

/** A compiled graph (`Pregel`): public `nodes`, each a `PregelNode` with its `bound` runnable. */
export interface PregelLike {
  readonly lg_is_pregel: true;
  readonly name?: string;
  readonly nodes: Record<string, PregelNodeLike>;
  stream(input: unknown, config?: unknown): Promise<unknown>;
}

/** One node of a compiled graph. */
export interface PregelNodeLike {
  bound: unknown;
  readonly subgraphs?: unknown;
  getNode(): unknown;
}

/** A tool node: `langchain`'s (with `wrapToolCall`) or the prebuilt one of `@langchain/langgraph/prebuilt`. */
export interface ToolNodeLike {
  tools: unknown[];
  runTool(call: ToolCallLike, config: unknown, state: unknown): Promise<unknown>;
  wrapToolCall?: unknown;
}

/** A tool call as LangChain hands it to a tool node. */
export interface ToolCallLike {
  readonly id?: string;
  readonly name: string;
  readonly args: unknown;
  readonly type?: string;
}

/** A LangChain tool: a Runnable with a name and `call` (which `invoke` goes through). */
export interface ToolLike {
  readonly name: string;
  call(arg: unknown, config?: unknown, tags?: unknown): Promise<unknown>;
  invoke(input: unknown, config?: unknown): Promise<unknown>;
}

function isObject(value: unknown): value is Record<string | symbol, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Whether a value is a compiled LangGraph graph with nodes of its own (not a `RemoteGraph`). */
export function isPregel(value: unknown): value is PregelLike {
  if (!isObject(value) || readData(value, 'lg_is_pregel') !== true) return false;
  const nodes = readData(value, 'nodes');
  return isObject(nodes) && typeof memberOf(value, 'stream') === 'function';
}

/** Whether a value is a `RemoteGraph`: a graph that runs on a LangGraph server. */
export function isRemoteGraph(value: unknown): boolean {
  return (
    isObject(value) &&
    readData(value, 'lg_is_pregel') === true &&
    !isObject(readData(value, 'nodes')) &&
    'graphId' in value
  );
}

/** Whether a value is `langchain`'s `createAgent` agent (a `ReactAgent`: not a Runnable, its graph behind `.graph`). */
export function isReactAgent(value: unknown): boolean {
  if (!isObject(value) || readData(value, 'lg_is_pregel') === true) return false;
  if (typeof memberOf(value, 'invoke') !== 'function' || !isObject(readData(value, 'options'))) return false;
  return isPregel(graphOfAgent(value));
}

/** The compiled graph behind a `createAgent` agent (read through its public `graph` getter). */
export function graphOfAgent(value: unknown): unknown {
  try {
    return (value as { graph?: unknown }).graph;
  } catch {
    return undefined;
  }
}

/**
 * Whether a value is a LangGraph graph builder not compiled (a `StateGraph`): its own `nodes` and `edges`, a
 * `compile` method, and no `lg_is_pregel` mark. What runs is the graph `compile()` returns, never the builder.
 */
export function isGraphBuilder(value: unknown): boolean {
  return (
    isObject(value) &&
    readData(value, 'lg_is_pregel') === undefined &&
    isObject(readData(value, 'nodes')) &&
    readData(value, 'edges') instanceof Set &&
    typeof memberOf(value, 'compile') === 'function'
  );
}

/** Whether a value is a tool node (either flavour). */
export function isToolNode(value: unknown): value is ToolNodeLike {
  return (
    isObject(value) &&
    Array.isArray(readData(value, 'tools')) &&
    typeof memberOf(value, 'runTool') === 'function' &&
    typeof memberOf(value, 'run') === 'function'
  );
}

/** Whether a tool node is `langchain`'s (it runs the agent's `wrapToolCall` middleware chain). */
export function hasMiddlewareChain(node: ToolNodeLike): boolean {
  return 'wrapToolCall' in node;
}

/** Whether a value is a LangChain tool that runs in this process (a Runnable tool with `call`). */
export function isLocalTool(value: unknown): value is ToolLike {
  return (
    isObject(value) &&
    typeof readData(value, 'name') === 'string' &&
    typeof memberOf(value, 'call') === 'function' &&
    typeof memberOf(value, 'invoke') === 'function' &&
    readData(value, 'lc_runnable') !== false
  );
}

/**
 * Whether a value is a runnable used as a tool (what `runnable.asTool()` returns, a `RunnableToolLike`): named, with a
 * schema, run through the runnable it binds. It reaches a tool node, but what it runs (a graph, an agent) is not a
 * tool gate-audit can put the gate in front of.
 */
export function isRunnableTool(value: unknown): boolean {
  if (!isObject(value) || isLocalTool(value)) return false;
  const bound = readData(value, 'bound');
  return (
    typeof readData(value, 'name') === 'string' &&
    readData(value, 'schema') !== undefined &&
    typeof memberOf(value, 'invoke') === 'function' &&
    isObject(bound) &&
    typeof memberOf(bound, 'invoke') === 'function'
  );
}

/** The name of a tool or tool definition, for reports. */
export function toolName(value: unknown): string {
  if (!isObject(value)) return String(value);
  const name = readData(value, 'name');
  if (typeof name === 'string') return name;
  const type = readData(value, 'type');
  return typeof type === 'string' ? type : '(unnamed tool)';
}

/** The class names of `langchain`'s own model and middleware nodes: they call the model and run no tool. */
const AGENT_INTERNAL_NODES = new Set([
  'AgentNode',
  'BeforeAgentNode',
  'AfterAgentNode',
  'BeforeModelNode',
  'AfterModelNode',
]);

/**
 * The source of `createReactAgent`'s own `callModel` (prebuilt/react_agent_executor.js, the same in every tested
 * version): a user's function named `callModel` (LangGraph's tutorials name theirs so) does not have it.
 */
const PREBUILT_CALL_MODEL = [
  '_getDynamicModel(llm, state, config)',
  '_getStaticModel(llm)',
  'getModelInputState(state)',
];

/**
 * Whether a node's runnable is one of the framework's own model-calling nodes, which run no tool: `createAgent`'s
 * model and middleware nodes (by class), and `createReactAgent`'s `agent` node (its `callModel`, by its source).
 * Anything else is a node of the app's, walked or judged as such.
 */
export function isFrameworkModelNode(bound: unknown): boolean {
  if (!isObject(bound)) return false;
  const name = (bound as { constructor?: { name?: unknown } }).constructor?.name;
  if (typeof name === 'string' && AGENT_INTERNAL_NODES.has(name)) return true;
  const func = readData(bound, 'func');
  if (name !== 'RunnableCallable' || typeof func !== 'function' || (func as { name?: unknown }).name !== 'callModel') {
    return false;
  }
  let source: string;
  try {
    source = Function.prototype.toString.call(func);
  } catch {
    return false;
  }
  return PREBUILT_CALL_MODEL.every((part) => source.includes(part));
}

/**
 * Whether a node runs nothing of the app's: a `RunnablePassthrough` without a function (the graph's own
 * `__start__`, or a passthrough node). A node is never skipped for its name.
 */
export function isPlumbing(bound: unknown): boolean {
  const ctor = isObject(bound) ? (bound as { constructor?: { name?: unknown } }).constructor?.name : undefined;
  return ctor === 'RunnablePassthrough' && readData(bound, 'func') === undefined;
}

/** The server-side tools a `createAgent` agent hands its model (they never reach a tool node). */
export function providerToolsOf(agent: unknown): unknown[] {
  const options = readData(agent, 'options');
  const tools = isObject(options) ? readData(options, 'tools') : undefined;
  return Array.isArray(tools) ? tools.filter((tool) => !isLocalTool(tool) && !isRunnableTool(tool)) : [];
}

/** Where `@langchain/core` keeps its AsyncLocalStorage (any copy in the process), and the config's key in a store. */
const LANGCHAIN_ALS = Symbol.for('ls:tracing_async_local_storage');
const LANGCHAIN_CHILD_CONFIG = Symbol.for('lc:child_config');

/**
 * The config of the runnable running now, as LangChain passes it on to a nested invoke that was given none (what a
 * function node's `agent.invoke(input)` inherits), or undefined outside any run.
 */
export function implicitConfig(): unknown {
  const storage = (globalThis as Record<symbol, unknown>)[LANGCHAIN_ALS] as { getStore?: () => unknown } | undefined;
  if (typeof storage?.getStore !== 'function') return undefined;
  try {
    const store = storage.getStore() as { extra?: Record<symbol, unknown> } | undefined;
    return store?.extra?.[LANGCHAIN_CHILD_CONFIG];
  } catch {
    return undefined;
  }
}
