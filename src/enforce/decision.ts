/**
 * The decision: the first `BeforeToolCallEvent` callback of a gated agent. It reads the call once (name,
 * id, tool, input copied and frozen, place) before anything awaits, asks the gate, reads the gate's answer
 * once, and seals the outcome. It never throws, except the SDK's own `InterruptError` for an `ask` that
 * pauses the run (a throwing hook would fail open: the agent loop drains on and later calls run
 * ungated, see `docs/sdk-paths.md`).
 */
import type { BeforeToolCallEvent } from '@strands-agents/sdk';
import { messageOf } from '../errors.js';
import { askGate, type Decision, gateNow } from './gate-answer.js';
import { executorRefusal } from '../walker/classify.js';
import { toolFacts } from '../frameworks/strands/sdk-internals.js';
import { ownDataShape, readData } from '../walker/safe-read.js';
import { settleAsk } from './ask.js';
import { checkBackgroundDispatch } from '../frameworks/strands/background-dispatch.js';
import { strandsRequest } from '../frameworks/strands/request.js';
import {
  agentIdOf,
  andThen,
  BLOCKED,
  type Call,
  ERROR,
  fail,
  type GateState,
  observe,
  otherRun,
  recordBestEffort,
  type RecordTags,
  recordOf,
  refuse,
  seal,
  viewOf,
  writeRecord,
} from './call.js';
import { sameInput, snapshotInput } from './digest.js';
import type { AskDecision } from './gate.js';
import { placeNow, runFailure } from './run-state.js';
import { lockedToolFacts, lockSdkTool, moveMiddlewareInnermost } from '../frameworks/strands/sdk-mutations.js';

export { readDecision } from './read-decision.js';

/** Where a call of this agent runs now (`placeNow`): `path` when that is one place. */
function placeOf(state: GateState): { path: readonly string[]; paths: readonly (readonly string[])[] } {
  const paths = placeNow(state.agent);
  return { path: paths.length === 1 && paths[0] !== undefined ? paths[0] : [], paths };
}

/** What changed in the live event since the call was read, or undefined when nothing did. */
function drift(call: Call): string | undefined {
  const event = call.event;
  const toolUse = event.toolUse;
  if (toolUse.name !== call.name) return `the tool name changed ("${call.name}" → "${toolUse.name}")`;
  if (toolUse.toolUseId !== call.toolUseId) return 'the tool use id changed';
  if ((event.selectedTool ?? event.tool) !== call.tool) return 'a different tool object was selected';
  let same: boolean;
  try {
    same = call.snapshot !== undefined && sameInput(toolUse.input, call.snapshot);
  } catch {
    same = false;
  }
  return same ? undefined : 'the input changed';
}

/** Refuses a call before or after the gate is asked, and records the refusal. */
async function refuseRecorded(state: GateState, call: Call, message: string, reason: string): Promise<void> {
  refuse(state, call, message);
  observe(state, call, message.startsWith(ERROR) ? 'error' : 'deny', undefined, reason);
  const view = call.gate ?? viewOf(state.source.resolve());
  if (view === undefined) return;
  const problem = await writeRecord(state, view, () => recordOf(state, call, { event: 'deny', reason }));
  if (problem !== undefined) fail(state, call, problem);
}

/**
 * A delegate agent-as-tool re-yields its inner `BeforeToolCallEvent` to the outer agent's hooks, after the inner
 * agent's own. An inner agent whose gate is not intact is refused here. One whose gate is intact decides and
 * checks its own call (a stopped run included): a cancel set here after its gate noted the call would be taken
 * by it for an answer around the gate, so an inner refusal keeps its own text and an allowed call is left alone.
 */
function decideForeign(event: BeforeToolCallEvent): void {
  if (event.cancel) return;
  const refusal = executorRefusal(event.agent);
  if (refusal !== undefined) {
    event.cancel = `${BLOCKED} agent "${String(readData(event.agent, 'id'))}" ${refusal}`;
  }
}

/** What deciding a call gives: the interrupt of an `ask` that pauses the run, or undefined. */
type Decided = Error | undefined;

/**
 * Decides one call. It stays synchronous from reading the call to sealing it when the gate decides (and
 * records) synchronously: nothing else can run in between, and a plain allowed call costs no promise.
 *
 * @returns the interrupt to raise when the run must pause for an approval (a promise of it when
 *   something had to be awaited)
 */
export function decideCall(state: GateState, event: BeforeToolCallEvent): Decided | Promise<Decided> {
  const started = performance.now();
  const toolUse = event.toolUse;
  const { path, paths } = placeOf(state);
  const call: Call = {
    event,
    started,
    invocation: event.invocationState,
    name: toolUse.name,
    toolUseId: toolUse.toolUseId,
    tool: event.selectedTool ?? event.tool,
    path,
    paths,
  };
  if (!moveMiddlewareInnermost(state.agent, state.executionCheck)) {
    fail(state, call, "the gate's execution check was removed from this agent", true);
    return undefined;
  }
  if (event.agent !== state.agent) {
    decideForeign(event);
    return undefined;
  }
  // The SDK's second dispatch point: checked before every decision and locked once it holds, so what the tool
  // executor hands the call to after the hooks still runs it through the execution check.
  const dispatch = checkBackgroundDispatch(state.agent);
  if (dispatch !== undefined) {
    fail(
      state,
      call,
      `agent "${agentIdOf(state.agent)}" ${dispatch}, so its calls could run around the gate check`,
      true,
    );
    return undefined;
  }
  const elsewhere = otherRun(state, call.invocation);
  if (elsewhere !== undefined) {
    fail(state, call, elsewhere, true);
    return undefined;
  }
  try {
    call.snapshot = snapshotInput(toolUse.input);
  } catch (error) {
    fail(state, call, `the input of tool "${call.name}" cannot be copied: ${messageOf(error)}`);
    return undefined;
  }
  // What the tool object is now, so the execution check can tell it was changed in place (a swapped schema,
  // callback or own `stream` would run other code, or another input, than was judged); a tool of the SDK's own
  // classes is locked against any change from its first decided call on, and read no more after that.
  let facts = lockedToolFacts(call.tool);
  if (facts === undefined) {
    call.toolShape = ownDataShape(call.tool);
    if (call.toolShape === undefined) {
      fail(state, call, `tool "${call.name}" is a Proxy or has a getter among its own fields: it cannot be sealed`);
      return undefined;
    }
    try {
      lockSdkTool(call.tool);
    } catch (error) {
      fail(state, call, `tool "${call.name}" cannot be made read-only: ${messageOf(error)}`);
      return undefined;
    }
    // A tool left open is read now; the execution check's comparison of its shape keeps this read true.
    facts = lockedToolFacts(call.tool) ?? toolFacts(call.tool);
  }
  call.agentTool = facts.agentTool;
  const failure = runFailure(call.invocation);
  if (failure !== undefined) {
    return refuseRecorded(state, call, `${ERROR} ${failure}; the run was stopped`, failure).then(() => undefined);
  }
  const agentTool = facts.agentTool;
  if (agentTool.kind !== 'not-agent-tool') {
    const refusal = agentTool.kind === 'opaque' ? agentTool.reason : state.calleeRefusal(agentTool.agent);
    if (refusal !== undefined) {
      const reason = `tool "${call.name}" ${refusal}`;
      return refuseRecorded(state, call, `${BLOCKED} ${reason}`, reason).then(() => undefined);
    }
  }
  const view = gateNow(state.source);
  if ('failure' in view) {
    fail(state, call, view.failure);
    return undefined;
  }
  call.gate = view;
  const request = strandsRequest(
    { toolUseId: call.toolUseId, name: call.name, input: call.snapshot.frozen },
    {
      agentId: agentIdOf(state.agent),
      agentName: String(readData(state.agent, 'name')),
      path,
      paths,
      toolKind: facts.kind,
    },
  );
  call.request = request;
  const context = { agent: state.agent, invocationState: event.invocationState };
  return andThen(askGate(view, request, context, state.source.timeoutMs), (answer) => {
    if ('failure' in answer) {
      fail(state, call, answer.failure);
      return undefined;
    }
    return conclude(state, call, answer);
  });
}

/** After the gate answered: the run may have been stopped or the call changed meanwhile; else apply the verdict. */
function conclude(state: GateState, call: Call, decision: Decision): Decided | Promise<Decided> {
  const rule = decision.rule === undefined ? {} : { rule: decision.rule };
  const stopped = runFailure(call.invocation);
  if (stopped !== undefined) {
    return refuseRecorded(state, call, `${ERROR} ${stopped}; the run was stopped`, stopped).then(() => undefined);
  }
  const changed = drift(call);
  if (changed !== undefined) {
    fail(state, call, `tool call "${call.name}" changed while the gate decided: ${changed}`, true);
    return undefined;
  }
  // Checked just now, with nothing awaited since: `allow` need not look again unless a record runs.
  if (decision.verdict === 'allow') return allow(state, call, 'allow', rule);
  if (decision.verdict === 'deny') return andThen(deny(state, call, decision.reason, 'deny', rule), () => undefined);
  const ask: AskDecision = { verdict: 'ask', reason: decision.reason, ...rule };
  return settleAsk(state, call, ask, { allow: allowChecked, deny });
}

/**
 * Records an allowance and seals it; a record that fails refuses the call instead. Its callers have just
 * checked that the run goes on and the call is unchanged; only a record runs code since, so only after a
 * record is that checked again.
 */
function allow(
  state: GateState,
  call: Call,
  event: 'allow' | 'approval-granted',
  rule: RecordTags,
  reason?: string,
): undefined | Promise<undefined> {
  if (call.gate!.record === undefined) return sealAllowed(state, call, rule);
  return allowChecked(state, call, event, rule, reason);
}

/**
 * Records an allowance, then checks once more that the run goes on and the call is unchanged before it
 * seals it: for an allowance that follows a wait (an approval), and after any record.
 */
function allowChecked(
  state: GateState,
  call: Call,
  event: 'allow' | 'approval-granted',
  rule: RecordTags,
  reason?: string,
): undefined | Promise<undefined> {
  const problem = writeRecord(state, call.gate!, () =>
    recordOf(state, call, { event, ...rule, ...(reason === undefined ? {} : { reason }) }),
  );
  return andThen(problem, (settled) => afterRecord(state, call, rule, settled));
}

/** After an allowance was recorded (or waited for): things may have changed meanwhile, so check once more, then seal. */
function afterRecord(state: GateState, call: Call, rule: { rule?: string }, problem: string | undefined): undefined {
  const view = call.gate!;
  if (problem !== undefined) {
    fail(state, call, problem);
    return undefined;
  }
  const stopped = runFailure(call.invocation);
  const changed = stopped === undefined ? drift(call) : undefined;
  if (stopped !== undefined) {
    refuse(state, call, `${ERROR} ${stopped}; the run was stopped`);
    observe(state, call, 'error', rule.rule, stopped);
    recordBestEffort(state, view, recordOf(state, call, { event: 'deny', reason: stopped }));
    return undefined;
  }
  if (changed !== undefined) {
    fail(state, call, `tool call "${call.name}" changed while its decision was recorded: ${changed}`, true);
    return undefined;
  }
  return sealAllowed(state, call, rule);
}

function sealAllowed(state: GateState, call: Call, rule: { rule?: string }): undefined {
  seal(state, call, true);
  observe(state, call, 'allow', rule.rule);
  return undefined;
}

/** Refuses a call with the gate's reason, then records it (a record that fails stops the run). */
function deny(
  state: GateState,
  call: Call,
  reason: string,
  event: 'deny' | 'approval-refused',
  rule: RecordTags,
): void | Promise<void> {
  const named = rule.rule === undefined ? '' : `, rule=<${rule.rule}>`;
  refuse(state, call, `${BLOCKED} ${reason} | tool=<${call.name}>, agent=<${agentIdOf(state.agent)}>${named}`);
  observe(state, call, 'deny', rule.rule, reason);
  const problem = writeRecord(state, call.gate!, () => recordOf(state, call, { event, reason, ...rule }));
  return andThen(problem, (settled) => {
    if (settled !== undefined) fail(state, call, settled);
  });
}
