/**
 * One tool call as the gate handles it, and the things every step does with it: refusing it, failing
 * closed, sealing it and recording it. The other modules of the gate (decision, approval, execution
 * check) share this per-call context instead of passing the same five parameters around.
 */
import { type Agent, type BeforeToolCallEvent, TextBlock, ToolResultBlock } from '@strands-agents/sdk';
import { messageOf } from '../errors.js';
import { writeRecord as writeGateRecord } from './gate-answer.js';
import type { GateSource } from './gate-source.js';
import { ERROR } from './texts.js';
import { joinPath } from '../tree-paths.js';
import type { InputSnapshot } from './digest.js';
import type { Gate, GateRecord, ToolCallRequest } from './gate.js';
import { type GateView, viewGate } from './gate-identity.js';
import { log } from './log.js';
import { type ObservedVerdict, observeTool } from './observe.js';
import { joinRun, stopRun } from './run-state.js';
import { holdCancel } from '../frameworks/strands/sdk-mutations.js';
import type { AgentToolRead } from '../frameworks/strands/sdk-internals.js';

export { BLOCKED, ERROR } from './texts.js';
export { andThen, Late, settle, type Settled } from './settle.js';

export type { GateSource } from './gate-source.js';

/** What the gate of one agent keeps between the decision and the execution of a call. */
export interface Seal {
  readonly allowed: boolean;
  readonly name: string;
  readonly toolUseId: string;
  /**
   * The judged input as taken once (absent for a call refused before its input was read); its deep-frozen copy is
   * what the tool runs with.
   */
  readonly input: InputSnapshot | undefined;
  readonly tool: unknown;
  /**
   * The tool object's prototype and own fields when the call was read (absent for a call refused before, and for
   * a tool the lock had made unchangeable already).
   */
  readonly toolShape: readonly unknown[] | undefined;
  /**
   * The tool read as an agent used as a tool (or not) when the call was read: still true at the check of a tool
   * whose shape is unchanged (absent for a call refused before it was read).
   */
  readonly agentTool: AgentToolRead | undefined;
  /** The run this call belongs to. */
  readonly invocation: unknown;
  /** Every place the call may run at. */
  readonly paths: readonly (readonly string[])[];
  /** The cancel message the SDK will turn into the call's result, as it stood after every hook. */
  cancelText: string | undefined;
  /** Whether the execution check saw the call. */
  checked: boolean;
}

/** What one agent's gate keeps: the seals, the raised approvals, the withheld results. */
export interface GateState {
  readonly agent: Agent;
  readonly source: GateSource;
  readonly seals: Map<string, Seal>;
  readonly pending: Map<string, PendingApproval>;
  readonly withheld: Map<string, ToolResultBlock>;
  /** Results gate-audit itself made for refused calls (so they are not taken for bypasses). */
  readonly ownResults: WeakSet<object>;
  /**
   * Why the agent behind an agent-as-tool must not run now, or undefined: it gets the gate it only promises
   * installed first (a pending `GatePlugin`, a mark this copy did not make), then must carry a live gate, and,
   * where this agent was gated as part of a tree (`installMultiagent`), that tree's gate.
   */
  readonly calleeRefusal: (agent: unknown) => string | undefined;
  readonly executionCheck: unknown;
  /**
   * The `invocationState` of the invocation the agent is in, from its `BeforeInvocationEvent` (the SDK runs
   * one invocation of an agent at a time); undefined outside one.
   */
  run: unknown;
  /** The `invocationState` of the last invocation the agent ended. */
  readonly lastRun: unknown;
}

/**
 * Why a hook of the agent must refuse for the run it sees: the agent is in no invocation though it ended one
 * before (the SDK fires `BeforeInvocationEvent` before anything else of a run, so a loop driven after its
 * invocation ended is not the SDK's), or undefined. An agent gated during the first event of a run takes the
 * run it first sees as its own. An event carrying another `invocationState` than the agent's invocation (an agent-stream
 * middleware can hand the loop a fresh or copied object) joins that object to the invocation's run, so a stop
 * of either reaches both.
 *
 * @param state - the agent's gate
 * @param invocationState - what the hook's event carries
 */
export function otherRun(state: GateState, invocationState: unknown): string | undefined {
  const run = state.run;
  if (invocationState === run) return undefined;
  if (run === undefined) {
    // Gated during the first event of its run (its own run-entry hook was not called for it): this is its run.
    if (state.lastRun === undefined) {
      state.run = invocationState;
      return undefined;
    }
    const reason =
      `agent "${agentIdOf(state.agent)}" runs a model or tool call outside any invocation of its own ` +
      '(its loop was driven without the SDK starting an invocation)';
    stopRun(invocationState, reason);
    // The run the agent was last in may still be going (a Graph running its next node): it stops too.
    stopRun(state.lastRun, reason);
    return reason;
  }
  joinRun(run, invocationState);
  return undefined;
}

/** An approval interrupt this gate raised, kept in memory only. */
export interface PendingApproval {
  readonly gate: Gate;
  readonly gateId: string;
  readonly nonce: string;
  readonly name: string;
  readonly canonical: string;
  /** The id of the pending approval in a durable store, when the path has one. */
  readonly approvalId?: string;
  /** The run the approval was asked in: an answer resumed after that run was stopped is refused. */
  readonly invocation: unknown;
}

/** One tool call, read once from the live event before anything awaits. */
export interface Call {
  readonly event: BeforeToolCallEvent;
  readonly started: number;
  readonly invocation: unknown;
  readonly name: string;
  readonly toolUseId: string;
  readonly tool: unknown;
  readonly path: readonly string[];
  readonly paths: readonly (readonly string[])[];
  snapshot?: InputSnapshot;
  /** The tool object's prototype and own fields as they were when the call was read (`ownDataShape`). */
  toolShape?: readonly unknown[];
  /** The tool read as an agent used as a tool (or not). */
  agentTool?: AgentToolRead;
  gate?: GateView;
  request?: ToolCallRequest;
}

/** The agent's id as plain data (an id that is not a string reads as its text). */
export function agentIdOf(agent: Agent): string {
  const descriptor = Object.getOwnPropertyDescriptor(agent, 'id');
  const id: unknown = descriptor !== undefined && 'value' in descriptor ? descriptor.value : undefined;
  return typeof id === 'string' ? id : String(id);
}

/** An error result for a call, made by gate-audit. */
export function refusalResult(state: GateState, toolUseId: string, text: string): ToolResultBlock {
  const result = new ToolResultBlock({ toolUseId, status: 'error', content: [new TextBlock(text)] });
  state.ownResults.add(result);
  return result;
}

/** Seals a call: what was decided, on which input, tool and place. */
export function seal(state: GateState, call: Call, allowed: boolean, cancelText?: string): void {
  state.seals.set(call.toolUseId, {
    allowed,
    name: call.name,
    toolUseId: call.toolUseId,
    input: call.snapshot,
    tool: call.tool,
    toolShape: call.toolShape,
    agentTool: call.agentTool,
    invocation: call.invocation,
    paths: call.paths,
    cancelText,
    checked: false,
  });
}

/**
 * Sets a refusal as the call's cancel and holds it (`holdCancel`): a hook that tries to clear it gets the run
 * stopped and the attempt recorded. Where the cancel cannot be held, the execution check refuses a refused
 * call that reaches it all the same.
 */
function refuseHeld(state: GateState, call: Call, text: string): void {
  holdCancel(call.event, text, () => clearedCancel(state, call));
}

/** A hook tried to clear the cancel of a refused call: the refusal stays, the run stops, it is recorded. */
function clearedCancel(state: GateState, call: Call): void {
  const reason = `a hook tried to clear the gate's refusal of tool call "${call.name}"`;
  stopRun(call.invocation, reason);
  recordTampering(state, call.name, call.toolUseId, `${reason}; the refusal stands and the run stops`);
}

/** Records tampering seen after the decision (best effort: the call is refused either way). */
export function recordTampering(state: GateState, toolName: string, toolUseId: string, reason: string): void {
  try {
    log('error', { tool: toolName, toolUseId, agent: agentIdOf(state.agent) }, reason);
  } catch {
    // stderr failed; the record below and the refusal still stand
  }
  const view = viewOf(state.source.resolve());
  recordBestEffort(state, view, {
    event: 'tampering',
    verdict: 'deny',
    reason,
    toolName,
    toolUseId,
    agentId: agentIdOf(state.agent),
    path: [],
  });
}

/** Refuses a call: the SDK turns the cancel message into the call's error result. */
export function refuse(state: GateState, call: Call, message: string): void {
  refuseHeld(state, call, message);
  seal(state, call, false, message);
}

/**
 * Tells the decision observer (OpenTelemetry) how a call ended, after it is sealed or refused.
 *
 * @param verdict - allow, deny, ask or error
 * @param rule - the gate's rule, when it named one
 * @param reason - why it was not allowed
 */
export function observe(state: GateState, call: Call, verdict: ObservedVerdict, rule?: string, reason?: string): void {
  observeTool(() => ({
    agent: state.agent,
    agentId: agentIdOf(state.agent),
    toolName: call.name,
    toolUseId: call.toolUseId,
    ...(call.path.length === 0 ? {} : { path: call.path }),
    ...(call.gate === undefined ? {} : { gate: call.gate.name }),
    verdict,
    ...(rule === undefined ? {} : { rule }),
    ...(reason === undefined ? {} : { reason }),
  }));
}

/** The record of a call for `Gate.record`. */
export function recordOf(
  state: GateState,
  call: Call,
  what: Pick<GateRecord, 'event' | 'rule' | 'reason' | 'approvalId' | 'approverId'>,
): GateRecord {
  // Built field by field: spreading `what`, whose shape differs by caller, costs about a microsecond per record
  // (V8 clones a spread source of many shapes on its slow path).
  const event = what.event;
  const record: { -readonly [K in keyof GateRecord]: GateRecord[K] } = { event } as GateRecord;
  if (what.reason !== undefined) record.reason = what.reason;
  if (what.rule !== undefined) record.rule = what.rule;
  if (what.approvalId !== undefined) record.approvalId = what.approvalId;
  if (what.approverId !== undefined) record.approverId = what.approverId;
  record.verdict = event === 'allow' || event === 'approval-granted' ? 'allow' : event === 'ask' ? 'ask' : 'deny';
  record.toolName = call.name;
  record.toolUseId = call.toolUseId;
  record.agentId = agentIdOf(state.agent);
  record.path = call.path;
  record.paths = call.paths;
  if (call.gate !== undefined) record.gateId = call.gate.id;
  if (call.snapshot !== undefined) record.input = call.snapshot.frozen;
  record.durationMs = performance.now() - call.started;
  return record;
}

/**
 * Gives the gate its record of a call within the run's timeout (`writeRecord` of `gate-answer.ts`).
 *
 * @param make - builds the record
 * @returns undefined when the record was taken (or the gate takes none), else why it was not; a promise of
 *   that when the gate's `record` returned one
 */
export function writeRecord(
  state: GateState,
  view: GateView,
  make: () => GateRecord,
): string | undefined | Promise<string | undefined> {
  return writeGateRecord(view, state.source.timeoutMs, make);
}

/** The view of a gate when it is a usable gate, else undefined. */
export function viewOf(gate: Gate | undefined): GateView | undefined {
  if (gate === undefined) return undefined;
  const view = viewGate(gate);
  return 'error' in view ? undefined : view;
}

/** Gives the gate a record without waiting or failing: for records of calls refused anyway. */
export function recordBestEffort(state: GateState, view: GateView | undefined, record: GateRecord): void {
  try {
    const written = view?.record?.(record);
    if (written instanceof Promise) written.catch(() => undefined);
  } catch (error) {
    try {
      log('error', { agent: agentIdOf(state.agent) }, `could not record a refusal: ${messageOf(error)}`);
    } catch {
      // stderr failed too; the call is refused either way
    }
  }
}

/**
 * Fails closed: refuses the call, stops the whole run, then logs and records what it can. The refusal and
 * the stop come first and cannot throw, so nothing after them (a message that cannot be formatted, a log
 * that fails) can turn this into a throwing hook.
 *
 * @param tampering - record it as tampering rather than a gate error
 */
export function fail(state: GateState, call: Call, problem: string, tampering = false): void {
  const text = `${ERROR} ${problem}; the run stops`;
  try {
    refuseHeld(state, call, text);
  } catch {
    // the event refuses the cancel: the execution check still refuses, there is no seal allowing it
  }
  stopRun(call.invocation, `the gate failed earlier in this run (${problem})`);
  try {
    seal(state, call, false, text);
  } catch {
    // the cancel above refuses the call
  }
  observe(state, call, 'error', undefined, problem);
  try {
    log('error', { tool: call.name, agent: agentIdOf(state.agent), path: joinPath(call.path) }, problem);
    recordBestEffort(
      state,
      call.gate ?? viewOf(state.source.resolve()),
      recordOf(state, call, { event: tampering ? 'tampering' : 'error', reason: problem }),
    );
  } catch {
    // the call is refused and the run stopped whatever the log does
  }
}

/** What a record of an outcome names besides the event: the rule, and a stored approval and its approver. */
export type RecordTags = Pick<GateRecord, 'rule' | 'approvalId' | 'approverId'>;

/** The two ways an `ask` ends, for `settleAsk`. */
export interface Outcomes {
  allow(
    state: GateState,
    call: Call,
    event: 'approval-granted',
    rule: RecordTags,
    reason?: string,
  ): undefined | Promise<undefined>;
  deny(
    state: GateState,
    call: Call,
    reason: string,
    event: 'approval-refused' | 'deny',
    rule: RecordTags,
  ): void | Promise<void>;
}
