/**
 * Everything a call's driver asks of the gate, framework-neutral, so the Strands hook and the LangGraph tool node
 * ask, read and record the same way and fail with the same words: the gate's decision (asked once within its
 * timeout and read once), its record (awaited within the timeout), and an in-process (`callback`) approval with
 * its outcome read once. Each returns what went wrong as data, never throws, and stays synchronous when the gate
 * answers synchronously.
 */
import { messageOf } from '../errors.js';
import { type ReadDecision, readDecision } from './read-decision.js';
import { andThen, Late, type Settled, settle } from './settle.js';
import type { AskDecision, DecideContext, GateRecord, ToolCallRequest } from './gate.js';
import { type GateView, viewGate } from './gate-identity.js';
import type { GateSource } from './gate-source.js';

/** A usable decision of the gate. */
export type Decision = Exclude<ReadDecision, { error: string }>;

/** The gate's answer to one call: its decision, or why it gave none (a failure: the call is refused, the run stops). */
export type GateAnswer = Decision | { readonly failure: string };

/** Why a settled answer of the gate is no answer, or undefined when it answered. */
function notAnswered(view: GateView, settled: Settled, what: string): string | undefined {
  if (settled instanceof Late) return `gate "${view.name}" did not ${what} within ${settled.ms} ms`;
  if ('thrown' in settled) return `gate "${view.name}" threw: ${messageOf(settled.thrown)}`;
  return undefined;
}

/**
 * The gate a call is decided by, resolved now (a configured gate may have been replaced or unset since install)
 * and read once.
 *
 * @param source - where the gate comes from
 * @returns the gate's view, or why there is no usable gate (a failure: the call is refused, the run stops)
 */
export function gateNow(source: GateSource): GateView | { readonly failure: string } {
  const gate = source.resolve();
  if (gate === undefined) return { failure: 'no gate is configured any more (configureGate(undefined) was called)' };
  const view = viewGate(gate);
  return 'error' in view ? { failure: view.error } : view;
}

/**
 * Asks the gate to decide one call, once, and reads its answer once.
 *
 * @param view - the gate, read once
 * @param request - the call, its input a frozen copy
 * @param context - what the framework gives the gate besides the request (Strands: the live agent)
 * @param timeoutMs - how long a promised answer may take
 * @returns the decision or the failure; a promise of it only when the gate answered with one
 */
export function askGate(
  view: GateView,
  request: ToolCallRequest,
  context: DecideContext | undefined,
  timeoutMs: number,
): GateAnswer | Promise<GateAnswer> {
  const answer = settle(() => view.decide(request, context), timeoutMs);
  return andThen(answer, (settled): GateAnswer => {
    const failure = notAnswered(view, settled, 'decide');
    if (failure !== undefined) return { failure };
    const decision = readDecision((settled as { value: unknown }).value);
    return 'error' in decision ? { failure: `gate "${view.name}" answered garbage: ${decision.error}` } : decision;
  });
}

/**
 * Gives the gate its record of a call and waits for it when it returns a promise. The record is built only when
 * the gate takes records.
 *
 * @param make - builds the record
 * @returns undefined when the record was taken (or the gate takes none), else why it was not; a promise of that
 *   when the gate's `record` returned one
 */
export function writeRecord(
  view: GateView,
  timeoutMs: number,
  make: () => GateRecord,
): string | undefined | Promise<string | undefined> {
  const write = view.record;
  if (write === undefined) return undefined;
  const record = make();
  return andThen(
    settle(() => write(record), timeoutMs),
    (settled) => {
      if (settled instanceof Late) return `gate "${view.name}" did not record the decision within ${settled.ms} ms`;
      if ('thrown' in settled) return `gate "${view.name}" could not record the decision: ${messageOf(settled.thrown)}`;
      return undefined;
    },
  );
}

/** An approval's outcome, read once: granted only for exactly `granted: true`, with the ids it names. */
export type OutcomeRead = ({ readonly granted: true } | { readonly granted: false; readonly reason: string }) & {
  readonly ids: { readonly approvalId?: string; readonly approverId?: string };
};

/**
 * Reads an approval outcome once: granted only for exactly `granted: true`; the ids it names when they are strings.
 * A getter that throws, or anything but an object, is a refusal.
 *
 * @param value - what the approval path answered
 */
export function readApprovalOutcome(value: unknown): OutcomeRead {
  if (typeof value !== 'object' || value === null)
    return { granted: false, reason: 'the approval answered no outcome', ids: {} };
  let granted: unknown;
  let reason: unknown;
  let approvalId: unknown;
  let approverId: unknown;
  try {
    ({ granted, reason, approvalId, approverId } = value as Record<string, unknown>);
  } catch (error) {
    return { granted: false, reason: `reading the approval outcome threw: ${messageOf(error)}`, ids: {} };
  }
  const ids = {
    ...(typeof approvalId === 'string' ? { approvalId } : {}),
    ...(typeof approverId === 'string' ? { approverId } : {}),
  };
  if (granted === true) return { granted: true, ids };
  return { granted: false, reason: typeof reason === 'string' && reason !== '' ? reason : 'no reason given', ids };
}

/**
 * Reads one member of an approval path once; a getter that throws reads as absent.
 *
 * @param owner - the approval path
 * @param key - the member
 */
export function readMember(owner: object, key: string): unknown {
  try {
    return (owner as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** A gate's approval path as read once: how it settles an `ask`, and its method for that (`ask` or `check`). */
export type UsableApproval =
  | { readonly via: 'callback'; readonly approval: object; readonly ask: (...args: unknown[]) => unknown }
  | { readonly via: 'interrupt'; readonly approval: object; readonly check: (...args: unknown[]) => unknown };

/**
 * Reads the gate's approval path once.
 *
 * @returns the path, or undefined when there is none or it is not usable (no `via` the gate knows, no method)
 */
export function approvalPathOf(view: GateView): UsableApproval | undefined {
  const approval = view.approval;
  if (approval === undefined) return undefined;
  const via = readMember(approval, 'via');
  if (via !== 'interrupt' && via !== 'callback') return undefined;
  const method = readMember(approval, via === 'callback' ? 'ask' : 'check');
  if (typeof method !== 'function') return undefined;
  return via === 'callback'
    ? { via, approval, ask: method as (...args: unknown[]) => unknown }
    : { via, approval, check: method as (...args: unknown[]) => unknown };
}

/** Why an `ask` is refused when the gate has no usable approval path. */
export function noApprovalPath(decision: AskDecision): string {
  return `approval required (${decision.reason}) but no approval path is configured`;
}

/**
 * Settles an `ask` in-process: the `callback` path's `ask` is awaited (without a deadline: a person may be
 * answering) and its outcome read once. A throw or rejection is a refusal.
 *
 * @param path - the gate's callback approval path
 * @param request - the call
 * @param decision - the gate's `ask`
 */
export async function askApprover(
  path: Extract<UsableApproval, { via: 'callback' }>,
  request: ToolCallRequest,
  decision: AskDecision,
): Promise<OutcomeRead> {
  const settled = await settle(() => path.ask.call(path.approval, request, decision), undefined);
  if (settled instanceof Late || 'thrown' in settled) {
    const why = 'thrown' in settled ? messageOf(settled.thrown) : 'late';
    return { granted: false, reason: `the approval step failed: ${why}`, ids: {} };
  }
  return readApprovalOutcome(settled.value);
}

/** The text a refused approval is refused with. */
export function approvalRefused(outcome: Extract<OutcomeRead, { granted: false }>): string {
  return `approval refused (${outcome.reason})`;
}

/**
 * Why a settled approval check (`check` or `resume` of an interrupt path) gave no answer, or undefined when it
 * answered. A check that throws or hangs (a store that is down, a forged or spent answer) is a gate failure.
 *
 * @param settled - how the check settled
 */
export function approvalCheckFailure(settled: Settled): string | undefined {
  if (settled instanceof Late) return `the approval check did not answer within ${settled.ms} ms`;
  if ('thrown' in settled) return `the approval check failed: ${messageOf(settled.thrown)}`;
  return undefined;
}

/**
 * Why a pending approval was not stored (the path's `raise`), or undefined when it was: the run may pause only
 * once the approver's store holds it.
 *
 * @param view - the gate that asked
 * @param settled - how `raise` settled
 */
export function pendingNotStored(view: GateView, settled: Settled): string | undefined {
  if (!(settled instanceof Late) && !('thrown' in settled)) return undefined;
  const why = settled instanceof Late ? `no answer within ${settled.ms} ms` : messageOf(settled.thrown);
  return `gate "${view.name}" could not store the pending approval: ${why}`;
}

/**
 * Why a paused call cannot be settled: the gate's approval path that paused it cannot be read as one any more (a
 * getter that throws now, a member replaced). A gate failure: the call is refused and the run stops.
 *
 * @param view - the gate that paused the call
 * @param toolName - the paused call's tool
 */
export function pausedUncheckable(view: GateView, toolName: string): string {
  return `gate "${view.name}" paused the call of tool "${toolName}" for approval, and its approval path cannot check it any more`;
}
