/**
 * The gate on one agent: which hooks it registers and where, and the handle returned for it. The jobs
 * themselves live apart: the decision (`decision.ts`), settling an `ask` (`ask.ts`), the seal and the
 * execution check (`execution-check.ts`), the per-call context and records (`call.ts`), the run's own state
 * (`run-state.ts`).
 *
 * Hooks, in the order they run for one call:
 * 1. `BeforeInvocationEvent` (first): the agent enters the run.
 * 2. `BeforeToolCallEvent` (first of all): the decision, which never throws.
 * 3. `BeforeToolCallEvent` (last): notes the cancel the SDK will act on.
 * 4. `ExecuteToolStage` middleware (innermost): the execution check.
 * 5. `AfterToolCallEvent` (first): a call answered around the check is withheld and the run stops.
 * 6. `AfterToolCallEvent` (last): a withheld result stays withheld.
 * 7. `BeforeModelCallEvent` (first and last): once the run was stopped, the model is not called again; a tool
 *    executor that is no longer the SDK's stops the run first (last hook).
 * 8. `BeforeToolsEvent` (first: takes the batch's `cancel` into keeping; last: a tool executor that is no longer
 *    the SDK's stops the run before the turn's tools).
 * 9. `AfterInvocationEvent` (first: the agent leaves the run; last: a stopped run ends with `GateFailedError`).
 *
 * "First" and "last" are kept at every dispatch, whatever the app registers at the same order, by the dispatch
 * check (`dispatch-check.ts`). Every value a hook sets to refuse is held, not only thrown: a model call's or a tool
 * batch's `cancel` cannot be cleared, a withheld result cannot be replaced nor the call retried, since once any
 * hook threw the SDK drains the loop and only logs later errors.
 */
import {
  AfterInvocationEvent,
  AfterToolCallEvent,
  type Agent,
  BeforeInvocationEvent,
  BeforeModelCallEvent,
  BeforeToolCallEvent,
  BeforeToolsEvent,
  ExecuteToolStage,
  type ToolResultBlock,
} from '@strands-agents/sdk';
import { GateFailedError, messageOf } from '../errors.js';
import { agentGateState, executorRefusal } from '../walker/classify.js';
import {
  AGENT_GATE_MARK,
  type AgentGateMark,
  agentGateMark,
  gatePluginMark,
  isGatePlugin,
  type MarkedHook,
  nodeGuardMark,
  noteAgentGateMark,
} from '../walker/marks.js';
import {
  agentHookRegistry,
  hiddenPrototypes,
  isSdkToolExecutor,
  pendingPlugins,
  toolExecutorOf,
} from '../frameworks/strands/sdk-internals.js';
import { readData } from '../walker/safe-read.js';
import { segmentOf, UNNAMED } from '../tree-paths.js';
import {
  ERROR,
  fail,
  otherRun,
  recordTampering,
  type GateSource,
  type GateState,
  type PendingApproval,
  type Seal,
} from './call.js';
import { decideCall } from './decision.js';
import { enterRun, leaveRun, runFailure, stopRun } from './run-state.js';
import { auditResult, createExecutionCheck, keepWithheld, noteCancel } from './execution-check.js';
import { CONFIGURED, gateSource } from './gate-source.js';
import { dispatchShapeError, type OwnHooks, planDispatch, standOnDispatch } from './dispatch-check.js';
import { SDK_PACKAGE } from '../frameworks/strands/sdk-package.js';
import { holdCancel, keepCancel, lockAgent, moveHookFirst } from '../frameworks/strands/sdk-mutations.js';

export { APPROVAL_INTERRUPT } from './ask.js';
export { BLOCKED, ERROR, type GateSource } from './call.js';

export { DEFAULT_DECISION_TIMEOUT_MS } from './gate-source.js';

/** A handle on the gate installed on one agent. */
export interface AgentGate {
  /** The gated agent. */
  readonly agent: Agent;
  /** Where the agent was found when the gate was installed (first place; it may sit at others too). */
  readonly path: readonly string[];
  /** Name of the gate, or `configured` when the process-wide gate is resolved at each call. */
  readonly gateName: string;
  /** Whether every hook and the execution check are still registered. */
  isActive(): boolean;
  /** Removes the hooks, the middleware and the mark (used for rollback). */
  uninstall(): void;
}

/** The gate's state and its hooks for one agent. */
class AgentGateRuntime implements GateState {
  readonly seals = new Map<string, Seal>();
  readonly pending = new Map<string, PendingApproval>();
  readonly withheld = new Map<string, ToolResultBlock>();
  readonly ownResults = new WeakSet<object>();
  readonly executionCheck = createExecutionCheck(this);

  constructor(
    readonly agent: Agent,
    readonly source: GateSource,
    /**
     * The gate of the tree the agent was gated in (`installMultiagent`), or undefined (`install`, a plugin) until
     * a tree takes in the agent already gated (`joinTree`).
     */
    public tree: { readonly key: unknown; readonly name: string } | undefined,
  ) {}

  readonly calleeRefusal = (agent: unknown): string | undefined =>
    adoptPendingPlugin(agent) ?? executorRefusal(agent) ?? this._otherTreeGate(agent);

  /** One gate per tree, as the node guard keeps it for nodes (`treeGateRefusal`). */
  private _otherTreeGate(agent: unknown): string | undefined {
    return this.tree === undefined
      ? undefined
      : treeGateRefusal(agent, this.tree, "call installMultiagent on the tree's root after adding it as a tool");
  }

  /**
   * The decision hook. It throws exactly one thing: the `InterruptError` of an `ask` that pauses the run.
   * A call the gate decides synchronously is decided synchronously (no promise).
   */
  readonly decide = (event: BeforeToolCallEvent): void | Promise<void> => {
    let decided: ReturnType<typeof decideCall>;
    try {
      decided = decideCall(this, event);
    } catch (error) {
      // Anything unexpected in gate-audit's own code refuses the call too: never let the hook throw.
      failUnexpected(this, event, error);
      return;
    }
    if (decided instanceof Promise) {
      return decided.then(raisePause, (error: unknown) => failUnexpected(this, event, error));
    }
    raisePause(decided);
  };

  readonly noteCancel = (event: BeforeToolCallEvent): void => noteCancel(this, event);
  /** The first `AfterToolCallEvent` hook: the after-call audit; a result it withholds is held there. */
  readonly audit = (event: AfterToolCallEvent): void => {
    auditResult(this, event);
    const withheld = this.withheld.size === 0 ? undefined : this.withheld.get(event.toolUse.toolUseId);
    if (withheld !== undefined && event.result === withheld) holdWithheld(this, event, withheld);
  };
  readonly keepWithheld = (event: AfterToolCallEvent): void => keepWithheld(this, event);

  /** The first `BeforeModelCallEvent` hook: once the run was stopped by a gate failure, the model is not called again. */
  readonly stopModelFirst = (event: BeforeModelCallEvent): void => {
    const failure =
      (event.agent === this.agent ? otherRun(this, event.invocationState) : undefined) ??
      runFailure(event.invocationState);
    if (failure !== undefined) holdCancel(event, `${ERROR} ${failure}; the run was stopped`, () => undefined);
  };

  /**
   * The last `BeforeModelCallEvent` hook: as the first, and the model is not called when the agent's tool executor
   * is no longer one of the SDK's (its tool calls would reach no hook): that stops the run. The tools of the turn
   * are checked again just before they run (`guardTools`).
   */
  readonly stopModel = (event: BeforeModelCallEvent): void => {
    const foreign = event.agent === this.agent ? this._foreignExecutor() : undefined;
    if (foreign !== undefined) stopRun(event.invocationState, foreign);
    this.stopModelFirst(event);
  };

  /**
   * The last `BeforeToolsEvent` hook: the SDK hands a turn's tool calls to the agent's tool executor right after
   * this event's hooks, with nothing in between. One that is not the SDK's own (set by a hook after the model
   * call, or between an approval pause and its resume, which runs the paused calls without calling the model)
   * would run them through no hook: the run stops here, before any of them runs (a hook that throws at this event
   * ends the run; the SDK does not go on to the tools).
   */
  readonly guardTools = (event: BeforeToolsEvent): void => {
    if (event.agent !== this.agent) return;
    const foreign = this._foreignExecutor();
    if (foreign === undefined) return;
    stopRun(event.invocationState, foreign);
    // Held as well as thrown: in the SDK's drain (a hook threw earlier in the call) the throw is only logged, and
    // the batch's cancel is what keeps the tools from the executor.
    holdCancel(event, `${ERROR} ${foreign}; the run was stopped`, () => undefined);
    throw new GateFailedError(foreign);
  };

  /**
   * The first `BeforeToolsEvent` hook: takes the batch's `cancel` into keeping before any other hook sees the
   * event, so none can make it a field the last hook cannot hold a refusal in.
   */
  readonly keepToolsCancel = (event: BeforeToolsEvent): void => {
    if (event.agent === this.agent) keepCancel(event);
  };

  /** Why the agent's tool executor is not the SDK's own, or undefined when it is. */
  private _foreignExecutor(): string | undefined {
    if (isSdkToolExecutor(toolExecutorOf(this.agent))) return undefined;
    return (
      `agent "${String(readData(this.agent, 'id'))}" runs its tools with a tool executor that is not the SDK's ` +
      '(replaced after install), so its tool calls would reach no gate'
    );
  }

  run: unknown = undefined;
  lastRun: unknown = undefined;

  readonly enter = (event: BeforeInvocationEvent): void => {
    this.run = event.invocationState;
    // Where the invocation runs, and the root run it joins when a custom node's run started it.
    enterRun(this.agent, event.invocationState);
  };
  readonly leave = (event: AfterInvocationEvent): void => {
    this.run = undefined;
    this.lastRun = event.invocationState;
    leaveRun(this.agent);
  };

  /** A run stopped by a gate failure ends with an error naming it, so a node running this agent fails. */
  readonly endStopped = (event: AfterInvocationEvent): void => {
    const failure = runFailure(event.invocationState);
    if (failure !== undefined) throw new GateFailedError(failure);
  };
}

/**
 * Holds a withheld result on its event: a later hook can neither put another result there nor have the call run
 * again (an attempt to replace it is recorded as tampering). Where the event's fields cannot be redefined, the
 * last hook (`keepWithheld`) puts the result back.
 */
function holdWithheld(state: GateState, event: AfterToolCallEvent, withheld: ToolResultBlock): void {
  const name = String(event.toolUse.name);
  const id = event.toolUse.toolUseId;
  try {
    Object.defineProperty(event, 'result', {
      configurable: false,
      enumerable: true,
      get: () => withheld,
      set: (value: unknown) => {
        if (value !== withheld) {
          recordTampering(state, name, id, 'a hook put back the result of a call that bypassed the gate');
        }
      },
    });
    Object.defineProperty(event, 'retry', {
      configurable: false,
      enumerable: true,
      get: () => false,
      set: () => undefined,
    });
  } catch {
    // left as it is: the last hook puts the withheld result back
  }
}

/** Raises the interrupt of an `ask` that pauses the run. */
function raisePause(pause: Error | undefined): void {
  if (pause !== undefined) throw pause;
}

/** The catch-all of the decision hook: it refuses and stops first, and cannot throw itself. */
function failUnexpected(state: GateState, event: BeforeToolCallEvent, error: unknown): void {
  let name = '(unknown tool)';
  let toolUseId = '(unknown)';
  try {
    name = String(event.toolUse.name);
    toolUseId = String(event.toolUse.toolUseId);
  } catch {
    // keep the placeholders
  }
  fail(
    state,
    {
      event,
      started: performance.now(),
      invocation: event.invocationState,
      name,
      toolUseId,
      tool: undefined,
      path: [],
      paths: [],
    },
    `gate-audit failed while deciding: ${messageOf(error)}`,
  );
}

/** gate-audit's own copy of the SDK: its hook dispatch is checked from the first gate installed. */
function standOnOwnDispatch(): void {
  standOnDispatch(hiddenPrototypes().hookRegistry, (what) => dispatchShapeError(SDK_PACKAGE, what));
}

/**
 * Installs the gate on one agent, unless it carries one already.
 *
 * @param agent - a local Agent already checked by the preflight
 * @param source - the gate, or the process-wide gate resolved at each call
 * @param path - the first place the agent was found at (for the handle)
 * @param tree - the gate of the tree being gated (`installMultiagent`): the agents it calls as tools must carry it
 * @returns the new handle, or undefined when the agent was gated already
 */
export function installAgentGate(
  agent: Agent,
  source: GateSource,
  path: readonly string[],
  tree?: GateSource,
): AgentGate | undefined {
  if (agentGateState(agent) === 'gated' && isOwnGate(agent)) {
    if (tree !== undefined) joinTree(agent, tree);
    return undefined;
  }
  const runtime = new AgentGateRuntime(agent, source, tree);
  const cleanups: (() => void)[] = [];
  const hooks: MarkedHook[] = [];
  const add = <E>(event: new (...args: never[]) => E, callback: (e: E) => unknown, order: number): void => {
    cleanups.push(agent.addHook(event as never, callback as never, { order }));
    hooks.push({ event, callback });
  };
  const uninstall = (): void => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
    if (agentGateMark(agent)?.decisionHook === runtime.decide) {
      delete (agent as unknown as Record<symbol, unknown>)[AGENT_GATE_MARK];
      noteAgentGateMark(agent, undefined);
    }
  };
  try {
    standOnOwnDispatch();
    add(BeforeInvocationEvent, runtime.enter, -Infinity);
    cleanups.push(agent.addHook(BeforeToolCallEvent, runtime.decide, { order: -Infinity }));
    moveHookFirst(agent, runtime.decide);
    add(BeforeToolCallEvent, runtime.noteCancel, Infinity);
    // First so an earlier throwing hook cannot skip it, last so a later hook cannot clear the cancel.
    add(BeforeModelCallEvent, runtime.stopModelFirst, -Infinity);
    add(BeforeModelCallEvent, runtime.stopModel, Infinity);
    add(BeforeToolsEvent, runtime.keepToolsCancel, -Infinity);
    add(BeforeToolsEvent, runtime.guardTools, Infinity);
    add(AfterToolCallEvent, runtime.audit, -Infinity);
    add(AfterToolCallEvent, runtime.keepWithheld, Infinity);
    add(AfterInvocationEvent, runtime.leave, -Infinity);
    add(AfterInvocationEvent, runtime.endStopped, Infinity);
    cleanups.push(agent.addMiddleware(ExecuteToolStage, runtime.executionCheck));
    const outermost = new Map<unknown, OwnHooks>([
      [BeforeInvocationEvent, { first: runtime.enter }],
      [BeforeToolCallEvent, { first: runtime.decide, last: runtime.noteCancel }],
      [BeforeModelCallEvent, { first: runtime.stopModelFirst, last: runtime.stopModel }],
      [BeforeToolsEvent, { first: runtime.keepToolsCancel, last: runtime.guardTools }],
      [AfterToolCallEvent, { first: runtime.audit, last: runtime.keepWithheld }],
      [AfterInvocationEvent, { first: runtime.leave, last: runtime.endStopped }],
    ]);
    cleanups.push(planDispatch(agentHookRegistry(agent) as object, outermost));
    const mark: AgentGateMark = Object.freeze({
      decisionHook: runtime.decide,
      executionCheck: runtime.executionCheck,
      hooks: Object.freeze(hooks),
      gateName: source.name,
      gateKey: source.key,
      path,
      ...(tree === undefined ? {} : { treeGateKey: tree.key, treeGateName: tree.name }),
    });
    writeMark(agent, mark);
    ownDecisionHooks.add(runtime.decide);
    runtimes.set(runtime.decide, runtime);
  } catch (error) {
    uninstall();
    throw error;
  }
  return {
    agent,
    path,
    gateName: source.name,
    isActive: () => agentGateMark(agent)?.decisionHook === runtime.decide && agentGateState(agent) === 'gated',
    uninstall,
  };
}

/**
 * One gate per tree (installMultiagent refuses another at install): what runs as a node of a tree, or as a tool of
 * an agent of a tree, runs under the tree's gate. An agent gated by another gate (its own, or one a promise named)
 * or a Graph or Swarm guarded for another gate is refused; an agent carrying the tree's gate joins the tree, so the
 * agents it calls as tools must carry it too. Undefined when nothing is refused.
 *
 * @param executor - what is about to run (an agent, an orchestrator, anything else)
 * @param tree - the tree's gate: its key (gate object or `configured`) and name
 * @param fix - how to fix a refusal, after "gate it with the tree's gate: "
 */
export function treeGateRefusal(
  executor: unknown,
  tree: { readonly key: unknown; readonly name: string },
  fix: string,
): string | undefined {
  const mark = agentGateMark(executor);
  if (mark !== undefined && mark.gateKey !== tree.key) {
    return `runs an agent gated by "${String(mark.gateName)}", not by this tree's gate "${tree.name}" | gate it with the tree's gate: ${fix}`;
  }
  if (mark !== undefined) joinTree(executor as Agent, tree);
  // A nested Graph or Swarm guarded for another gate runs its agents under that gate.
  const guard = nodeGuardMark(executor);
  if (guard !== undefined && 'treeGateKey' in guard && guard.treeGateKey !== tree.key) {
    return (
      `runs an orchestrator guarded for "${String(guard.treeGateName)}", not for this tree's gate "${tree.name}" | ` +
      `gate it with the tree's gate: ${fix}`
    );
  }
  return undefined;
}

/** The decision hooks this copy of gate-audit made: a gate mark naming another is not taken on trust. */
const ownDecisionHooks = new WeakSet<object>();

/** Each decision hook's gate, to find the gate of an agent this copy gated. */
const runtimes = new WeakMap<object, AgentGateRuntime>();

/**
 * A tree takes in an agent this copy gated on its own (`install`, a plugin) with the tree's gate: at install
 * (`installMultiagent`; another gate is a `GateConflictError` before this), or when it is about to run as a node
 * or be called as a tool in that tree. From then on the agents it calls as tools must carry the tree's gate too.
 * The first tree's gate stays. Nothing happens for an agent this copy did not gate.
 *
 * @param agent - an agent carrying the tree's gate
 * @param tree - the tree's gate: its key (gate object or `configured`) and name
 */
export function joinTree(agent: Agent, tree: { readonly key: unknown; readonly name: string }): void {
  const mark = agentGateMark(agent);
  const runtime = typeof mark?.decisionHook === 'function' ? runtimes.get(mark.decisionHook) : undefined;
  if (mark === undefined || runtime === undefined || runtime.tree !== undefined) return;
  runtime.tree = tree;
  writeMark(agent, Object.freeze({ ...mark, treeGateKey: tree.key, treeGateName: tree.name }));
}

/** Writes an agent's gate mark (frozen), and notes it as the one this copy wrote there. */
function writeMark(agent: Agent, mark: AgentGateMark): void {
  Object.defineProperty(agent, AGENT_GATE_MARK, { value: mark, configurable: true, enumerable: false });
  noteAgentGateMark(agent, mark);
}

/** Whether the agent's gate mark names a decision hook this copy of gate-audit installed. */
export function isOwnGate(agent: Agent): boolean {
  const hook = agentGateMark(agent)?.decisionHook;
  return typeof hook === 'function' && ownDecisionHooks.has(hook);
}

/**
 * The gate an agent only promises, as a source, read as data (a plugin is never called): a pending
 * `GatePlugin`'s gate and timeout, or the gate a gate mark this copy did not make names. Undefined when the agent
 * promises nothing (no gate, one this copy installed, or one whose hooks were removed). Throws what `gateSource`
 * throws for a promise that names no usable gate.
 *
 * @param agent - a local agent
 */
export function promisedGateSource(agent: Agent): GateSource | undefined {
  const state = agentGateState(agent);
  let gate: unknown;
  let timeoutMs: unknown;
  if (state === 'pending-plugin') {
    const mark = gatePluginMark(pendingPlugins(agent).find(isGatePlugin));
    gate = mark?.gate;
    timeoutMs = mark?.timeoutMs;
  } else if (state === 'gated' && !isOwnGate(agent)) {
    const key = agentGateMark(agent)?.gateKey;
    gate = key === CONFIGURED ? undefined : key;
  } else {
    return undefined;
  }
  return gateSource(
    {
      ...(gate === undefined ? {} : { gate: gate as never }),
      ...(timeoutMs === undefined ? {} : { timeoutMs: timeoutMs as never }),
    },
    `the gate promised to agent "${String(readData(agent, 'id'))}"`,
  );
}

/**
 * Before an agent runs (a node, an agent used as a tool), installs this copy's gate where the agent only
 * promises one (`promisedGateSource`: a pending `GatePlugin`, or a gate mark this copy did not make, from
 * another copy of gate-audit or from code that wrote the mark with hooks of its own), so a look-alike gets a
 * real gate, not a pass. A gate whose hooks were removed is refused as such (the node guard cancels it), never
 * quietly replaced. Idempotent: an agent this copy gated is left alone, and a real plugin then finds the agent
 * gated and adds nothing.
 *
 * @param agent - any executor
 * @returns undefined when the agent is gated by this copy now (or is not an agent that promises a gate), else
 *   why it cannot be
 */
export function adoptPendingPlugin(agent: unknown): string | undefined {
  if (!(agent instanceof Object)) return undefined;
  try {
    const source = promisedGateSource(agent as Agent);
    if (source === undefined) return undefined;
    const id = String(readData(agent, 'id'));
    installAgentGate(agent as Agent, source, [segmentOf(id, UNNAMED)]);
    lockAgent(agent as Agent);
    return undefined;
  } catch (error) {
    return `runs an agent whose promised gate cannot be installed: ${messageOf(error)} | gate it with installMultiagent or install`;
  }
}
