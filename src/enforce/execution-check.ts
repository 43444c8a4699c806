/**
 * The execution check and the after-call audit. What runs is what was judged. Later hooks, interventions, plugins and middleware can rename the tool,
 * change the input, select another tool or clear a cancel after the decision (`docs/sdk-paths.md`,
 * "After the decision"). So:
 *
 * - the cancel each call carries after every `BeforeToolCallEvent` hook is noted (a later hook may cancel
 *   an allowed call: that is not a bypass);
 * - the innermost `ExecuteToolStage` middleware refuses anything that differs from the seal, and hands the
 *   tool the sealed, deep-frozen copy of the judged input, so a change made a tick later cannot reach a
 *   tool body that reads its input after an `await`; a call to an agent used as a tool runs with the
 *   callee's place in context;
 * - after each call, a call allowed but never checked, or refused yet answered, was bypassed (a middleware
 *   answered without calling `next`): its result is withheld and the run stops; a last hook puts the
 *   withheld result back if a later hook replaced it.
 */
import type {
  AfterToolCallEvent,
  AgentStreamEvent,
  BeforeToolCallEvent,
  ExecuteToolResult,
  ExecuteToolStage,
  MiddlewareHandlerOf,
} from '@strands-agents/sdk';
import { types } from 'node:util';
import { messageOf } from '../errors.js';
import { segmentOf, UNNAMED } from '../tree-paths.js';
import { ownDataShape, readData, sameShape } from '../walker/safe-read.js';
import { BLOCKED, ERROR, type GateState, recordTampering, refusalResult, type Seal } from './call.js';
import { sameInput } from './digest.js';
import { type CalledAt, runCalledAt, runFailure, stopRun } from './run-state.js';
import { isLockedSdkTool } from '../frameworks/strands/sdk-mutations.js';

type ExecuteToolHandler = MiddlewareHandlerOf<typeof ExecuteToolStage>;
type ExecuteContext = Parameters<ExecuteToolHandler>[0];

/** The text of the SDK's own refusal when a delegating agent-as-tool is not alone in its turn (no body runs). */
const DELEGATION_REFUSAL =
  'Delegation failed: a delegation tool must be the only tool called in a turn. ' +
  'Retry with a single delegation tool call or use only non-delegation tools.';

/** The last `BeforeToolCallEvent` hook: notes the cancel the SDK will act on, after every other hook. */
export function noteCancel(state: GateState, event: BeforeToolCallEvent): void {
  if (event.agent !== state.agent) return;
  const sealed = state.seals.get(event.toolUse.toolUseId);
  if (sealed === undefined) return;
  const cancel: unknown = event.cancel;
  sealed.cancelText = cancel ? (typeof cancel === 'string' ? cancel : 'Tool cancelled by hook') : undefined;
}

/** Why a call reaching the execution check must not run, or undefined when it is exactly what was allowed. */
function mismatch(state: GateState, context: ExecuteContext, next: unknown): string | undefined {
  const sealed = state.seals.get(context.toolUse.toolUseId);
  // The run is the one the call was decided in: a middleware can hand the check another invocationState.
  const failure =
    (sealed === undefined ? undefined : runFailure(sealed.invocation)) ?? runFailure(context.invocationState);
  if (failure !== undefined) return `the run was stopped: ${failure}`;
  if (sealed === undefined) return 'no gate decision exists for this tool use';
  if (!sealed.allowed) return 'the gate refused this call, but a later hook cleared the cancel';
  if (sealed.checked) return 'the call was already run once under its decision (a retry needs a new decision)';
  // The SDK composes the chain when it runs it: each link is an arrow to the next middleware, and only the
  // innermost gets the SDK's own tool run, an async generator function. So what the check is handed proves that
  // no middleware runs inside it, whatever the registry holds (it can be emptied again before the check runs, or
  // show the SDK other entries than a read of it would).
  if (!types.isGeneratorFunction(next) || !types.isAsyncFunction(next)) {
    return 'another middleware runs inside the gate check and could change the call';
  }
  if (context.toolUse.name !== sealed.name) {
    return `the tool name changed after the decision ("${sealed.name}" → "${context.toolUse.name}")`;
  }
  if (context.tool !== sealed.tool) return 'a different tool object was selected after the decision';
  // Changed in place (a swapped schema, callback, agent or own `stream`), the same object would run other code, or
  // another input, than was judged. A tool the lock made unchangeable cannot have been.
  const unchanged =
    sealed.toolShape === undefined
      ? isLockedSdkTool(sealed.tool)
      : sameShape(ownDataShape(sealed.tool), sealed.toolShape);
  if (!unchanged) {
    return 'the tool object was changed after the decision (its prototype or own fields)';
  }
  // The tool is as it was read at the decision, so is what it was read as; the agent an agent-as-tool runs is read
  // by the SDK only when it runs: classify it again now.
  const callee = sealed.agentTool;
  if (callee === undefined) return 'the tool was not read at the decision';
  if (callee.kind === 'opaque') return `the agent-as-tool ${callee.reason}`;
  if (callee.kind === 'agent-tool') {
    const refusal = state.calleeRefusal(callee.agent);
    if (refusal !== undefined) return `the agent-as-tool ${refusal}`;
  }
  // Compared as the SDK would copy it (the tool runs with the sealed copy whatever the live input holds): the
  // same JSON text answers at once, any other is compared by canonical form.
  let same: boolean;
  try {
    same = sealed.input !== undefined && sameInput(context.toolUse.input, sealed.input);
  } catch {
    same = false;
  }
  if (!same) return 'the input changed after the decision';
  return undefined;
}

/** Runs a tool-execution generator step by step with the callee's places in context. */
async function* calledAtEachStep<T, R>(
  store: CalledAt,
  inner: AsyncGenerator<T, R, unknown>,
): AsyncGenerator<T, R, unknown> {
  let done = false;
  try {
    let step = await runCalledAt(store, () => inner.next());
    while (!step.done) {
      let sent: unknown;
      try {
        sent = yield step.value;
      } catch (error) {
        step = await runCalledAt(store, () => inner.throw(error));
        continue;
      }
      step = await runCalledAt(store, () => inner.next(sent));
    }
    done = true;
    return step.value;
  } finally {
    if (!done) await runCalledAt(store, () => inner.return(undefined as R));
  }
}

type ToolRun = AsyncGenerator<AgentStreamEvent, ExecuteToolResult, undefined>;
type ToolStep = IteratorResult<AgentStreamEvent, ExecuteToolResult>;

/**
 * The innermost `ExecuteToolStage` middleware: runs the tool only if it is exactly what was allowed, and
 * runs it with the sealed input.
 */
export function createExecutionCheck(state: GateState): ExecuteToolHandler {
  return function executionCheck(context, next) {
    return new CheckedRun(state, context, next);
  };
}

/**
 * Checks a call when its run is first stepped (as a generator body would), then either answers with the
 * refusal or hands the tool's own run through step by step. It is an iterator rather than a generator
 * so an allowed call's events are not passed through one more generator on their way out, and a class so that
 * a call allocates one object for it, not one closure per method.
 */
class CheckedRun implements ToolRun {
  private _inner: ToolRun | undefined = undefined;
  private _finished = false;

  constructor(
    private readonly _state: GateState,
    private readonly _context: ExecuteContext,
    private readonly _next: Parameters<ExecuteToolHandler>[1],
  ) {}

  next(sent?: undefined): Promise<ToolStep> {
    if (this._inner !== undefined) return this._inner.next(sent);
    if (this._finished) return Promise.resolve({ done: true, value: undefined as unknown as ExecuteToolResult });
    let started: ToolRun | ExecuteToolResult;
    try {
      started = checkCall(this._state, this._context, this._next);
    } catch (error) {
      this._finished = true;
      // Nothing ran; the run this agent is in stops all the same (a context whose fields throw is tampering).
      stopRun(this._state.run, `the execution check could not complete: ${messageOf(error)}`);
      // What was thrown goes on as it is, as it would out of a generator body.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(error);
    }
    if ('result' in started) {
      this._finished = true;
      return Promise.resolve({ done: true, value: started });
    }
    this._inner = started;
    return started.next();
  }

  return(value: ExecuteToolResult): Promise<ToolStep> {
    if (this._inner !== undefined) return this._inner.return(value);
    this._finished = true;
    return Promise.resolve({ done: true, value });
  }

  throw(error: unknown): Promise<ToolStep> {
    if (this._inner !== undefined) return this._inner.throw(error);
    this._finished = true;
    // A generator thrown into before its first step ends, rejecting with exactly what was thrown in.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): ToolRun {
    return this;
  }
}

/** The name a refusal shows: the call's as handed to the check, else (unreadable there) the sealed one. */
function toolNameOf(context: ExecuteContext, sealed: Seal | undefined): string {
  try {
    return String(context.toolUse.name);
  } catch {
    return sealed?.name ?? 'unknown';
  }
}

/** The check itself: the refusal as the call's result, or the tool's run with exactly what was judged. */
function checkCall(
  state: GateState,
  context: ExecuteContext,
  next: Parameters<ExecuteToolHandler>[1],
): ToolRun | ExecuteToolResult {
  // What a middleware hands the check may be anything: every read of it is inside a try.
  let id: unknown;
  let problem: string | undefined;
  try {
    id = context.toolUse.toolUseId;
    problem = mismatch(state, context, next);
  } catch (error) {
    problem = `the call could not be checked: ${messageOf(error)}`;
  }
  const sealed = state.seals.get(id as string);
  if (problem !== undefined || sealed === undefined) {
    const why = problem ?? 'no gate decision exists for this tool use';
    const name = toolNameOf(context, sealed);
    const shownId = typeof id === 'string' ? id : 'unknown';
    const reason = `tool call "${name}" was refused at execution (${why})`;
    if (sealed !== undefined) stopRun(sealed.invocation, reason);
    try {
      stopRun(context.invocationState, reason);
    } catch {
      // Unreadable: the seal's run is stopped above, or (no seal found) the SDK's own call, never checked, is
      // withheld after it and stops the run then.
    }
    recordTampering(state, name, shownId, `call refused at execution: ${why}`);
    return { result: refusalResult(state, shownId, `${BLOCKED} ${why} | tool=<${name}>`) };
  }
  sealed.checked = true;
  const exact = {
    ...context,
    // The run the call was decided in: a callee agent-as-tool runs in it, so a stop inside reaches the caller.
    invocationState: sealed.invocation as ExecuteContext['invocationState'],
    tool: sealed.tool as ExecuteContext['tool'],
    toolUse: {
      name: sealed.name,
      toolUseId: sealed.toolUseId,
      input: sealed.input?.frozen as ExecuteContext['toolUse']['input'],
    },
  };
  const callee = sealed.agentTool;
  if (callee?.kind === 'agent-tool' && sealed.paths.length > 0) {
    const segment = segmentOf(readData(sealed.tool, 'name'), UNNAMED);
    const store: CalledAt = {
      agent: callee.agent as CalledAt['agent'],
      paths: sealed.paths.map((path) => [...path, segment]),
    };
    return calledAtEachStep(store, next(exact));
  }
  return next(exact);
}

function isTextResult(result: unknown, text: string | undefined): boolean {
  if (text === undefined) return false;
  const { status, content } = result as { status?: unknown; content?: unknown };
  if (status !== 'error' || !Array.isArray(content) || content.length !== 1) return false;
  const block: unknown = content[0];
  return typeof block === 'object' && block !== null && (block as { text?: unknown }).text === text;
}

function isDelegationRefusal(tool: unknown, result: unknown): boolean {
  return readData(tool, 'delegate') === true && isTextResult(result, DELEGATION_REFUSAL);
}

/**
 * The first `AfterToolCallEvent` hook: a call allowed but never checked, or refused yet answered with
 * anything but the refusal, was answered around the gate. Its result is withheld and the run stops.
 */
export function auditResult(state: GateState, event: AfterToolCallEvent): void {
  if (event.agent !== state.agent) return;
  const id = event.toolUse.toolUseId;
  const sealed = state.seals.get(id);
  state.seals.delete(id);
  const result = event.result;
  let bypass: string | undefined;
  if (sealed === undefined) {
    if (!state.ownResults.has(result)) bypass = 'was answered without a gate decision';
  } else if (!sealed.checked) {
    const refusedAsSealed = isTextResult(result, sealed.cancelText) || state.ownResults.has(result);
    if (!sealed.allowed) {
      if (!refusedAsSealed) bypass = "was answered otherwise than with the gate's refusal";
    } else if (!refusedAsSealed && !isDelegationRefusal(sealed.tool, result)) {
      bypass = 'skipped the gate check';
    }
  }
  if (bypass === undefined) return;
  const name = event.toolUse.name;
  const text = `${ERROR} tool call "${name}" ${bypass}; its result is withheld and the run stops`;
  const withheld = refusalResult(state, id, text);
  state.withheld.set(id, withheld);
  event.result = withheld;
  const reason = `tool call "${name}" bypassed the gate earlier in this run`;
  if (sealed !== undefined) stopRun(sealed.invocation, reason);
  stopRun(event.invocationState, reason);
  recordTampering(state, name, id, text);
}

/** The last `AfterToolCallEvent` hook: a withheld result stays withheld, whatever a later hook did. */
export function keepWithheld(state: GateState, event: AfterToolCallEvent): void {
  if (event.agent !== state.agent) return;
  const id = event.toolUse.toolUseId;
  const withheld = state.withheld.get(id);
  if (withheld === undefined) return;
  state.withheld.delete(id);
  if (event.result !== withheld) {
    event.result = withheld;
    recordTampering(state, event.toolUse.name, id, 'a hook put back the result of a call that bypassed the gate');
  }
  event.retry = false;
}
