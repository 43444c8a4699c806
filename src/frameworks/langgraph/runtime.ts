/**
 * The LangGraph gate at run time: what install puts on a tool node, on each of its tools and on each compiled
 * graph, and what each of those does when it runs.
 *
 * - **The decision, outermost.** A gated tool node's own `runTool` (an instance member, in front of the class's)
 *   asks the gate before anything of the node runs: before `langchain`'s `wrapToolCall` middleware chain, before
 *   the prebuilt node's lookup. A deny answers the model with a tool message; the tool never runs.
 * - **The execution check, at the tool itself.** Each tool's own `call` (which `invoke` goes through) runs only
 *   inside the call its node judged, once, with exactly the judged arguments (a frozen copy); a middleware that
 *   rewrote them, a second `tool.invoke` for one judged call, or a call with no judged call around it is refused.
 *   On `langchain`'s node the innermost link of the middleware chain also refuses a request whose tool is not the
 *   node's own gated tool.
 * - **Fail closed whatever `handleToolErrors` says.** A refusal of the execution check or a gate failure is kept
 *   on the judged call; once the node's `runTool` returns (even where the node turned the error into a message),
 *   the gated `runTool` throws, so the node fails and the run rejects.
 * - **The root run.** LangGraph has no `invocationState`: each gated graph's `stream` (which `invoke` goes through)
 *   puts a run token into `configurable` when it has none, and a nested graph, a tool node and a nested invoke
 *   inside a function node inherit it. A gate failure stops the token's run: every later tool call of it is
 *   refused and its graphs will not start again. A stop is never lifted, and another run has another token.
 * - **The node guard.** Each node's `getNode` (read when the graph builds a task) checks that the node still runs
 *   what install saw, and that it still carries the gate; if not, the task is not built and the run rejects.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { GateFailedError, messageOf } from '../../errors.js';
import type { GateSource } from '../../enforce/gate-source.js';
import type { ToolCallRequest } from '../../enforce/gate.js';
import type { SeamPlace } from '../installer.js';
import { type InputSnapshot, sameInput, snapshotInput } from '../../enforce/digest.js';
import { type Judgement, judgeCall, recordBase } from '../../enforce/judge.js';
import { viewGate } from '../../enforce/gate-identity.js';
import { type ObservedVerdict, observeAllowedRun, observeTool, type ToolDecision } from '../../enforce/observe.js';
import { canPause, pausedCall, pauseKey, settleAskByInterrupt } from './approval.js';
import { BLOCKED } from '../../enforce/texts.js';
import {
  hasMiddlewareChain,
  implicitConfig,
  type PregelLike,
  type PregelNodeLike,
  type ToolCallLike,
  type ToolLike,
  type ToolNodeLike,
} from './shape.js';

/** The key of the run token in a run's `configurable` (double underscore: LangGraph keeps it out of checkpoints). */
export const RUN_KEY = '__gate_audit_run';

interface RunState {
  failure: string | undefined;
}

/** Run tokens this copy of gate-audit issued, with their state (a token is a frozen empty object). */
const runs = new WeakMap<object, RunState>();

function newRun(): object {
  const token = Object.freeze(Object.create(null) as object);
  runs.set(token, { failure: undefined });
  return token;
}

function configurableOf(config: unknown): Record<string, unknown> | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  const configurable = (config as { configurable?: unknown }).configurable;
  return typeof configurable === 'object' && configurable !== null
    ? (configurable as Record<string, unknown>)
    : undefined;
}

/** The run a config belongs to, if it carries a token this copy issued. */
function runOf(config: unknown): { token: object; state: RunState } | undefined {
  const token = configurableOf(config)?.[RUN_KEY];
  if (typeof token !== 'object' || token === null) return undefined;
  const state = runs.get(token);
  return state === undefined ? undefined : { token, state };
}

function stop(run: { state: RunState } | undefined, reason: string): void {
  if (run !== undefined) run.state.failure ??= reason;
}

/** What a gated tool node knows: its gate, where it sits, and the originals install replaced. */
export interface ToolNodeGate {
  readonly source: GateSource;
  /**
   * Every place installs met it at, the first first (a node of an agent gated alone, then as part of a graph, runs
   * at both): a request names them all, and its one place only when there is one, so a policy's `paths:` rules
   * see every place, as the audit and `check-policy` do.
   */
  readonly places: (readonly string[])[];
  /** The name of the graph the node belongs to (the "agent" of its requests). */
  readonly agentName: string;
  readonly runTool: (call: ToolCallLike, config: unknown, state: unknown) => Promise<unknown>;
  /** The `wrapToolCall` install composed (on `langchain`'s node only). */
  readonly wrapToolCall: unknown;
}

/** The gated tool nodes, by node (this copy's marks). */
export const toolNodeGates = new WeakMap<object, ToolNodeGate>();

/** The wrapped tools: each tool's own `call` install put there. */
export const wrappedTools = new WeakMap<
  object,
  { readonly call: unknown; readonly invoke: unknown; readonly name: string }
>();

/** What the node guard of one graph holds: each node's runnable as install saw it, and the installed members. */
export interface GraphGuard {
  readonly source: GateSource;
  readonly path: readonly string[];
  readonly stream: unknown;
  readonly nodes: ReadonlyMap<string, { readonly node: object; readonly bound: unknown; readonly getNode: unknown }>;
  /** Nodes accepted at install (a remote or opaque node), by name, with why. */
  readonly accepted: ReadonlyMap<string, string>;
}

/** The guarded graphs, by graph. */
export const graphGuards = new WeakMap<object, GraphGuard>();

/** One call the gate judged, while its node runs it. */
interface JudgedCall {
  readonly toolName: string;
  readonly snapshot: InputSnapshot;
  /** The registered tool the call was judged for, when the node has one of that name. */
  readonly tool: unknown;
  /** The run the call belongs to (none for a tool node invoked on its own). */
  readonly run: { readonly state: RunState } | undefined;
  used: boolean;
  failure: string | undefined;
}

const judged = new AsyncLocalStorage<JudgedCall>();

/** Whether a tool node still carries this gate as install put it (its members, and every tool wrapped). */
export function toolNodeIntact(node: object): boolean {
  const gate = toolNodeGates.get(node);
  if (gate === undefined) return false;
  if (!Object.hasOwn(node, 'runTool') || (node as { runTool?: unknown }).runTool !== gatedRunTools.get(node))
    return false;
  if (
    hasMiddlewareChain(node as ToolNodeLike) &&
    (node as { wrapToolCall?: unknown }).wrapToolCall !== gate.wrapToolCall
  ) {
    return false;
  }
  const tools = (node as { tools?: unknown }).tools;
  return Array.isArray(tools) && tools.every((tool) => toolIntact(tool));
}

/** Whether a tool still carries the execution check install put on it. */
export function toolIntact(tool: unknown): boolean {
  if (typeof tool !== 'object' || tool === null) return false;
  const wrapped = wrappedTools.get(tool);
  const own = tool as { call?: unknown; invoke?: unknown; name?: unknown };
  return (
    wrapped !== undefined &&
    Object.hasOwn(tool, 'call') &&
    own.call === wrapped.call &&
    Object.hasOwn(tool, 'invoke') &&
    own.invoke === wrapped.invoke &&
    own.name === wrapped.name
  );
}

const gatedRunTools = new WeakMap<object, unknown>();

/** The ToolMessage class of the app's `@langchain/core`, loaded once (install checks it loads). */
type ToolMessageClass = new (fields: Record<string, unknown>) => unknown;
let toolMessageClass: ToolMessageClass | undefined;

/**
 * A LangGraph tool call as the gate's request: the call id (empty when the model gave none), the tool's name, the
 * input (a frozen copy), and the place of the tool node's agent.
 */
export function langGraphRequest(call: ToolCallLike, place: SeamPlace): ToolCallRequest {
  return {
    toolUseId: typeof call.id === 'string' ? call.id : '',
    toolName: String(call.name),
    input: call.args,
    ...place,
    framework: 'langgraph',
  };
}

/**
 * Loads `@langchain/core`'s `ToolMessage` (the answer a deny gives the model). LangGraph tells messages apart by a
 * `Symbol.for` mark, so a message of this copy is a message to any copy in the process.
 *
 * @returns why it cannot be loaded, or undefined when it is
 */
export function loadToolMessage(): string | undefined {
  if (toolMessageClass !== undefined) return undefined;
  try {
    const required = createRequire(import.meta.url)('@langchain/core/messages') as { ToolMessage?: unknown };
    if (typeof required.ToolMessage !== 'function') return '@langchain/core/messages has no ToolMessage';
    toolMessageClass = required.ToolMessage as ToolMessageClass;
    return undefined;
  } catch (error) {
    return `@langchain/core cannot be loaded from gate-audit's folder: ${messageOf(error)}`;
  }
}

function denial(call: ToolCallLike, text: string): unknown {
  const ToolMessage = toolMessageClass;
  if (ToolMessage === undefined) throw new GateFailedError('@langchain/core was not loaded at install');
  return new ToolMessage({ content: text, tool_call_id: call.id ?? '', name: call.name, status: 'error' });
}

function argsOf(input: unknown): unknown {
  if (typeof input === 'object' && input !== null && (input as { type?: unknown }).type === 'tool_call') {
    return (input as { args?: unknown }).args;
  }
  return input;
}

/** How a call ended at the gate, as the decision observer reads it. */
interface CallOutcome {
  readonly verdict: ObservedVerdict;
  readonly rule?: string | undefined;
  readonly reason?: string | undefined;
}

/** Tells the decision observer (`gate-audit/otel`) how a call ended at the gate; it never changes the call. */
function observeCall(
  gate: ToolNodeGate,
  request: ToolCallRequest,
  gateName: string | undefined,
  outcome: CallOutcome,
): void {
  observeTool(() => decisionOf(gate, request, gateName, outcome));
}

/** A call's decision as the observer reads it. */
function decisionOf(
  gate: ToolNodeGate,
  request: ToolCallRequest,
  gateName: string | undefined,
  outcome: CallOutcome,
): ToolDecision {
  return {
    framework: 'langgraph',
    agentId: gate.agentName,
    toolName: request.toolName,
    toolUseId: request.toolUseId,
    path: request.path,
    ...(gateName === undefined ? {} : { gate: gateName }),
    verdict: outcome.verdict,
    ...(outcome.rule === undefined ? {} : { rule: outcome.rule }),
    ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
  };
}

/**
 * The gated `runTool` of a tool node: decides, runs the original inside the judged call, and throws when the
 * judged call failed, whatever the node made of the error.
 */
export function gatedRunTool(node: ToolNodeLike, gate: ToolNodeGate): ToolNodeLike['runTool'] {
  const runTool = async function runTool(
    this: unknown,
    call: ToolCallLike,
    config: unknown,
    state: unknown,
  ): Promise<unknown> {
    const started = performance.now();
    const run = runOf(config) ?? runOf(implicitConfig());
    if (run?.state.failure !== undefined) throw new GateFailedError(run.state.failure);
    let snapshot: InputSnapshot;
    try {
      snapshot = snapshotInput(call.args);
    } catch (error) {
      const failure = `the input of tool "${String(call.name)}" cannot be copied: ${messageOf(error)}`;
      stop(run, failure);
      throw new GateFailedError(failure);
    }
    const request = langGraphRequest(
      { id: call.id, name: call.name, args: snapshot.frozen },
      {
        agentId: gate.agentName,
        agentName: gate.agentName,
        path: gate.places.length === 1 ? (gate.places[0] ?? []) : [],
        paths: [...gate.places],
        toolKind: 'function',
      },
    );
    // A call this gate paused for approval is not decided again when LangGraph runs the node again on resume.
    const resolved = gate.source.resolve();
    const view = resolved === undefined ? undefined : viewGate(resolved);
    const paused =
      view === undefined || 'error' in view ? undefined : pausedCall(view, pauseKey(config, request.toolUseId));
    const judgement: Judgement =
      paused !== undefined && view !== undefined && !('error' in view)
        ? { verdict: 'ask', ...paused, view }
        : await judgeCall(gate.source, request, canPause(config));
    const gateName = view === undefined || 'error' in view ? undefined : view.name;
    if ('failure' in judgement) {
      stop(run, judgement.failure);
      observeCall(gate, request, gateName, { verdict: 'error', reason: judgement.failure });
      throw new GateFailedError(judgement.failure);
    }
    // A sibling of this call (a parallel tool call, a `Send` branch) may have stopped the run while this one waited.
    if (run?.state.failure !== undefined) {
      observeCall(gate, request, gateName, { verdict: 'error', reason: run.state.failure });
      throw new GateFailedError(run.state.failure);
    }
    const rule = judgement.rule;
    if (judgement.verdict === 'deny') {
      observeCall(gate, request, gateName, { verdict: 'deny', rule, reason: judgement.reason });
      return denial(call, `${BLOCKED} ${judgement.reason}`);
    }
    if (judgement.verdict === 'ask') {
      const { view: asked } = judgement;
      const base = recordBase(request, asked.id);
      const outcome = await settleAskByInterrupt(
        asked,
        gate.source.timeoutMs,
        request,
        snapshot,
        judgement,
        base,
        pauseKey(config, request.toolUseId),
        started,
        judgement.path,
      );
      if ('pause' in outcome) {
        observeCall(gate, request, gateName, { verdict: 'ask', rule, reason: 'paused for approval' });
        throw outcome.pause;
      }
      if ('failure' in outcome) {
        stop(run, outcome.failure);
        observeCall(gate, request, gateName, { verdict: 'error', rule, reason: outcome.failure });
        throw new GateFailedError(outcome.failure);
      }
      if ('deny' in outcome) {
        observeCall(gate, request, gateName, { verdict: 'deny', rule, reason: outcome.deny });
        return denial(call, `${BLOCKED} ${outcome.deny}`);
      }
      if (run?.state.failure !== undefined) {
        observeCall(gate, request, gateName, { verdict: 'error', rule, reason: run.state.failure });
        throw new GateFailedError(run.state.failure);
      }
    }
    const tools = (node as { tools?: unknown }).tools;
    const registered: unknown = Array.isArray(tools)
      ? (tools as unknown[]).find((tool) => (tool as { name?: unknown } | null)?.name === call.name)
      : undefined;
    const current: JudgedCall = {
      toolName: String(call.name),
      snapshot,
      tool: registered,
      run,
      used: false,
      failure: undefined,
    };
    let result: unknown;
    try {
      // The observer is told of the allowance, and the tool runs inside its context: the tool span `langGraphTracer`
      // makes when this call's tool starts carries it (a tool started elsewhere, or another tool here, never does).
      result = await observeAllowedRun(
        () => decisionOf(gate, request, gateName, { verdict: 'allow', rule }),
        () => judged.run(current, () => gate.runTool.call(this, { ...call, args: snapshot.frozen }, config, state)),
      );
    } catch (error) {
      // The node (or a middleware) may have wrapped the refusal: the run fails with gate-audit's own error.
      if (current.failure === undefined) throw error;
    }
    if (current.failure !== undefined) {
      stop(run, current.failure);
      throw new GateFailedError(current.failure);
    }
    return result;
  };
  gatedRunTools.set(node, runTool);
  return runTool;
}

/** Refuses inside the judged call: kept on it (so the node's `runTool` throws after), and thrown here. */
function refuseInCall(current: JudgedCall | undefined, config: unknown, failure: string): never {
  if (current !== undefined) current.failure ??= failure;
  else stop(runOf(config) ?? runOf(implicitConfig()), failure);
  throw new GateFailedError(failure);
}

/** The judged call a tool's own `invoke` checked and is running (its `call` then only checks it is the same). */
const checkedInvoke = new AsyncLocalStorage<{ readonly current: JudgedCall; readonly tool: object }>();

/** Checks one run of a tool against the judged call and takes the call; returns the judged input to run with. */
function takeJudgedCall(
  tool: ToolLike,
  name: string,
  arg: unknown,
  config: unknown,
): { current: JudgedCall; input: unknown } {
  const current = judged.getStore();
  if (current === undefined) {
    refuseInCall(
      current,
      config,
      `tool "${name}" was called outside a call its gate judged (it runs only from its gated tool node)`,
    );
  }
  if (current.run?.state.failure !== undefined) refuseInCall(current, config, current.run.state.failure);
  if (current.used) refuseInCall(current, config, `tool "${name}" was called a second time for one judged call`);
  if (current.toolName !== name) {
    refuseInCall(current, config, `tool "${name}" was called for a call judged for tool "${current.toolName}"`);
  }
  if (wrappedTools.get(tool)?.name !== name) {
    refuseInCall(
      current,
      config,
      `tool "${name}" was renamed after install (it was "${String(wrappedTools.get(tool)?.name)}")`,
    );
  }
  if (!sameArgs(arg, current))
    refuseInCall(current, config, `the arguments of tool "${name}" changed after the gate judged them`);
  current.used = true;
  const input =
    typeof arg === 'object' && arg !== null && (arg as { type?: unknown }).type === 'tool_call'
      ? { ...arg, args: current.snapshot.frozen }
      : current.snapshot.frozen;
  return { current, input };
}

function sameArgs(arg: unknown, current: JudgedCall): boolean {
  try {
    return sameInput(argsOf(arg), current.snapshot);
  } catch {
    return false;
  }
}

function rejection(error: unknown): Promise<never> {
  return Promise.reject(error instanceof Error ? error : new GateFailedError(messageOf(error)));
}

/**
 * The execution check a tool's own `invoke` runs (a tool class whose `invoke` does not go through `call` is
 * checked here): the judged call is taken, and the tool's `call` inside it only checks it is the same.
 */
export function gatedToolInvoke(tool: ToolLike, original: ToolLike['invoke']): ToolLike['invoke'] {
  return function invoke(this: unknown, arg: unknown, config?: unknown): Promise<unknown> {
    try {
      const { current, input } = takeJudgedCall(tool, String(tool.name), arg, config);
      return checkedInvoke.run({ current, tool }, () => original.call(this, input, config));
    } catch (error) {
      return rejection(error);
    }
  };
}

/** The execution check a tool's own `call` runs. */
export function gatedToolCall(tool: ToolLike, original: ToolLike['call']): ToolLike['call'] {
  return function call(this: unknown, arg: unknown, config?: unknown, tags?: unknown): Promise<unknown> {
    const name = String(tool.name);
    try {
      const inside = checkedInvoke.getStore();
      const current = judged.getStore();
      // Inside the tool's own checked invoke: the same judged call, the same tool, the judged arguments.
      if (inside !== undefined && inside.current === current && inside.tool === tool) {
        if (!sameArgs(arg, inside.current)) {
          refuseInCall(inside.current, config, `the arguments of tool "${name}" changed after the gate judged them`);
        }
        return original.call(this, arg, config, tags);
      }
      const { input } = takeJudgedCall(tool, name, arg, config);
      return original.call(this, input, config, tags);
    } catch (error) {
      return rejection(error);
    }
  };
}

/**
 * The innermost link of `langchain`'s middleware chain: the request that reaches the tool must be for the judged
 * call, with the node's own (gated) tool.
 */
export function innermostCheck(): (request: unknown, handler: (request: unknown) => unknown) => unknown {
  return (request, handler) => {
    const current = judged.getStore();
    const toolCall = (request as { toolCall?: ToolCallLike } | null)?.toolCall;
    const tool = (request as { tool?: unknown } | null)?.tool;
    if (current === undefined)
      refuseInCall(current, undefined, 'a tool request reached the tool node outside a judged call');
    if (tool !== undefined && tool !== current.tool) {
      refuseInCall(
        current,
        undefined,
        `a middleware handed tool "${String(toolCall?.name)}" another tool object than the node's gated one`,
      );
    }
    if (toolCall === undefined || toolCall.name !== current.toolName) {
      refuseInCall(current, undefined, `a middleware changed the tool of the call judged for "${current.toolName}"`);
    }
    let same: boolean;
    try {
      same = sameInput(toolCall.args, current.snapshot);
    } catch {
      same = false;
    }
    if (!same)
      refuseInCall(
        current,
        undefined,
        `a middleware changed the arguments of tool "${current.toolName}" after the gate judged them`,
      );
    const next = { ...(request as object), toolCall: { ...toolCall, args: current.snapshot.frozen } };
    return handler(next);
  };
}

/** Composes the app's `wrapToolCall` chain with the innermost check (the chain keeps running as it did). */
export function composeWrapToolCall(
  existing: unknown,
): (request: unknown, handler: (request: unknown) => unknown) => unknown {
  const check = innermostCheck();
  if (typeof existing !== 'function') return (request, handler) => check(request, handler);
  const chain = existing as (request: unknown, handler: (request: unknown) => unknown) => unknown;
  return (request, handler) => chain(request, (inner) => check(inner, handler));
}

/** Why a graph's node no longer runs what install saw, or no longer carries the gate; undefined when it does. */
export function nodeProblem(guard: GraphGuard, name: string, node: PregelNodeLike): string | undefined {
  const seen = guard.nodes.get(name);
  if (seen === undefined) return `node "${name}" was added after install`;
  if (seen.node !== node) return `node "${name}" was replaced after install`;
  const bound = (node as { bound?: unknown }).bound;
  if (bound !== seen.bound) return `the runnable of node "${name}" was swapped after install`;
  if (toolNodeGates.has(bound as object) && !toolNodeIntact(bound as object)) {
    return `tool node "${name}" no longer carries its gate (a member or a tool was replaced after install)`;
  }
  return undefined;
}

/** The node guard's `getNode`. */
export function guardedGetNode(graph: object, name: string, original: () => unknown): () => unknown {
  return function getNode(this: PregelNodeLike): unknown {
    const guard = graphGuards.get(graph);
    const problem =
      guard === undefined ? `the node guard of node "${name}" was removed` : nodeProblem(guard, name, this);
    if (problem !== undefined) throw new GateFailedError(`${problem}: the node was stopped before it ran`);
    return original.call(this);
  };
}

/** Why a guarded graph cannot start: a node added, replaced or ungated since install. */
export function graphProblem(graph: PregelLike, guard: GraphGuard): string | undefined {
  const nodes = (graph as { nodes?: unknown }).nodes;
  if (typeof nodes !== 'object' || nodes === null) return 'its nodes were replaced after install';
  for (const [name, node] of Object.entries(nodes as Record<string, PregelNodeLike>)) {
    const problem = nodeProblem(guard, name, node);
    if (problem !== undefined) return problem;
    if (Object.hasOwn(node, 'getNode') && (node as { getNode?: unknown }).getNode !== guard.nodes.get(name)?.getNode) {
      return `the node guard of node "${name}" was replaced`;
    }
  }
  return undefined;
}

/** Decides a graph about to start a root run (the process guard's, when it stands): why it must not, or undefined. */
let rootRunJudge: ((graph: object) => string | undefined) | undefined;

/**
 * Sets the judge every graph starting a root run asks (the process guard sets it once and never unsets it).
 *
 * @param judge - the guard's judgement
 */
export function judgeRootRuns(judge: (graph: object) => string | undefined): void {
  rootRunJudge ??= judge;
}

/**
 * The guarded `stream` of a graph, its own member: it marks the graph as installed (the audit and the node guard read
 * it) and hands the call on. Every check and the run token are in `_streamIterator`, which every way of running a
 * graph reaches (`invoke`, `stream`, `streamEvents`, a `withConfig` copy, a graph piped into a chain).
 */
export function guardedStream(graph: PregelLike, original: PregelLike['stream']): PregelLike['stream'] {
  return function stream(this: unknown, input: unknown, config?: unknown): Promise<unknown> {
    // The same checks as at the run's start, made at once (before LangGraph sets the run up).
    const guard = graphGuards.get(graph);
    const inherited = runOf(config) ?? runOf(implicitConfig());
    const problem = guard === undefined ? 'its node guard was removed' : graphProblem(graph, guard);
    if (problem !== undefined) {
      const failure = `graph "${String((graph as { name?: unknown }).name)}" cannot start: ${problem}`;
      stop(inherited, failure);
      return Promise.reject(new GateFailedError(failure));
    }
    if (inherited?.state.failure !== undefined) return Promise.reject(new GateFailedError(inherited.state.failure));
    return original.call(this, input, config);
  };
}

/** The graphs whose nodes a guarded graph holds, by their `nodes` object (a `withConfig` copy shares it). */
export const graphOfNodes = new WeakMap<object, object>();

/** The guarded graph a running graph is, or is a copy of (it holds the same `nodes` object). */
function guardedGraphOf(self: object): PregelLike | undefined {
  if (graphGuards.has(self)) return self as PregelLike;
  const nodes = (self as { nodes?: unknown }).nodes;
  const owner = typeof nodes === 'object' && nodes !== null ? graphOfNodes.get(nodes) : undefined;
  return owner !== undefined && graphGuards.has(owner) ? (owner as PregelLike) : undefined;
}

type StreamIterator = (this: object, input: unknown, options?: unknown) => AsyncGenerator<unknown, void, unknown>;

const patchedIterators = new WeakSet<object>();

/**
 * Puts the run's start on the class of a guarded graph: `_streamIterator`, which every way of running a graph
 * reaches. It stays for the life of the process (a graph install does not guard passes it through untouched): for a
 * guarded graph, or a copy of one, it checks the graph before it starts (every node as install saw it, the run not
 * stopped, the process guard's judgement), gives a root run its token, and when the root run ends after a gate
 * failure that something swallowed (an error handler, a node catching an error), it throws the failure: the run
 * rejects whatever the host did with the error.
 *
 * @returns why it cannot, or undefined when it stands
 */
export function guardRunStart(graph: object): string | undefined {
  const problem = runStartProblem(graph);
  if (problem !== undefined) return problem;
  patchIterator(iteratorOwner(graph)!);
  return undefined;
}

/**
 * Puts the run's start on a copy's `Pregel` class for the process guard: every graph of the copy that starts a run,
 * root or nested, by any way (`invoke`, `stream`, `transform`, piped into a chain), is judged at its start. It is
 * not fixed in place (another copy of gate-audit installing on the same class wraps it again): whatever replaces it
 * without calling it (`Runnable`'s own `_streamIterator`, say) runs the graph through `stream`, which the guard
 * fixes in place, or runs LangGraph's internals itself.
 *
 * @param proto - the copy's `Pregel.prototype`
 * @returns whether it stands (false when the class's `_streamIterator` cannot be wrapped)
 */
export function guardRunStartOf(proto: object): boolean {
  if (patchedIterators.has(proto)) return true;
  const descriptor = Object.getOwnPropertyDescriptor(proto, '_streamIterator');
  if (typeof descriptor?.value !== 'function' || descriptor.writable !== true || descriptor.configurable !== true) {
    return false;
  }
  patchIterator(proto);
  return true;
}

/** Wraps the own `_streamIterator` of `owner` (once). */
function patchIterator(owner: object): void {
  if (patchedIterators.has(owner)) return;
  const descriptor = Object.getOwnPropertyDescriptor(owner, '_streamIterator')!;
  const original = descriptor.value as StreamIterator;
  const wrapped = async function* _streamIterator(
    this: object,
    input: unknown,
    options?: unknown,
  ): AsyncGenerator<unknown, void, unknown> {
    let graph = guardedGraphOf(this);
    const inherited = runOf(options) ?? runOf(implicitConfig());
    if (graph === undefined) {
      // Under the process guard, a graph no install guarded is judged at its start, whichever way it was started
      // (`transform` and a chain it is piped into reach no `stream`): at the root, and inside a gated run, where it
      // is no part of the gated tree (a middleware hook or a tool of the tree invoked it) and its refusal stops the
      // run it started in. With `onUngated: 'install'` the judgement gates it, and it runs guarded.
      if (rootRunJudge !== undefined) {
        const refusal = rootRunJudge(this);
        if (refusal !== undefined) {
          stop(inherited, refusal);
          throw new GateFailedError(refusal);
        }
        graph = guardedGraphOf(this);
      }
      if (graph === undefined) {
        yield* original.call(this, input, options);
        return;
      }
    }
    const guard = graphGuards.get(graph)!;
    const problem = graphProblem(graph, guard);
    if (problem !== undefined) {
      const failure = `graph "${String((graph as { name?: unknown }).name)}" cannot start: ${problem}`;
      stop(inherited, failure);
      throw new GateFailedError(failure);
    }
    if (inherited?.state.failure !== undefined) throw new GateFailedError(inherited.state.failure);
    // Every run of a gated graph, root or nested, is judged by the process guard too (it must carry one of the
    // guard's gates: a graph gated with another gate, invoked inside a run, is refused as at the root).
    const refusal = rootRunJudge?.(graph);
    if (refusal !== undefined) {
      stop(inherited, refusal);
      throw new GateFailedError(refusal);
    }
    const token = inherited?.token ?? newRun();
    const base = typeof options === 'object' && options !== null ? (options as Record<string, unknown>) : {};
    yield* original.call(this, input, { ...base, configurable: { ...configurableOf(options), [RUN_KEY]: token } });
    const failure = inherited === undefined ? runs.get(token)?.failure : undefined;
    if (failure !== undefined) throw new GateFailedError(failure);
  };
  Object.defineProperty(owner, '_streamIterator', { ...descriptor, value: wrapped });
  patchedIterators.add(owner);
}

/** The prototype (or the graph itself) whose own `_streamIterator` runs for a graph. */
function iteratorOwner(graph: object): object | undefined {
  let owner: object | null = graph;
  while (owner !== null && !Object.hasOwn(owner, '_streamIterator'))
    owner = Object.getPrototypeOf(owner) as object | null;
  return owner ?? undefined;
}

/**
 * Why the run's start cannot be put on a graph's class (pure), or undefined when it can (or stands already).
 *
 * @param graph - a compiled graph
 */
export function runStartProblem(graph: object): string | undefined {
  const owner = iteratorOwner(graph);
  if (owner === undefined) return 'its class has no _streamIterator';
  if (patchedIterators.has(owner)) return undefined;
  if (owner === graph) return 'it has a _streamIterator of its own';
  const descriptor = Object.getOwnPropertyDescriptor(owner, '_streamIterator');
  if (typeof descriptor?.value !== 'function' || descriptor.writable !== true || descriptor.configurable !== true) {
    return 'its _streamIterator cannot be wrapped';
  }
  return undefined;
}

/**
 * Stops the gated run a config (or, without one, the runnable running now) belongs to, if any: every later tool
 * call of it is refused, and it rejects at its end.
 *
 * @param config - the config a graph was started with
 * @param reason - why
 */
export function stopRunOf(config: unknown, reason: string): void {
  stop(runOf(config) ?? runOf(implicitConfig()), reason);
}

/** Whether a config (or, without one, the runnable running now) belongs to a run a gated graph started. */
export function hasRun(config: unknown): boolean {
  return (runOf(config) ?? runOf(implicitConfig())) !== undefined;
}
