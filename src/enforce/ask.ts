/**
 * Settling an `ask`: refused without an approval path; else asked in-process (`callback`) or through the
 * SDK interrupt (`interrupt`). An interrupt is issued with a random nonce that stays in this gate's memory,
 * with the identity of the gate that raised it; the answer given on resume is checked against exactly that
 * interrupt, once. An answer for an interrupt this gate did not raise in this process (pre-loaded from a
 * snapshot or a session) is refused before the approval path sees it, unless the path is durable (`raise`
 * and `resume`): then the pending approval was written to its store before the run paused, and `resume`
 * must prove from an authenticated store row that this gate raised it. A check that throws or hangs
 * refuses the call and stops the run.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { JSONValue } from '@strands-agents/sdk';
import { isInterruptError } from '../frameworks/strands/sdk-internals.js';
import {
  type Call,
  fail,
  type GateState,
  type Outcomes,
  observe,
  recordOf,
  settle,
  type Settled,
  writeRecord,
} from './call.js';
import type { ApprovalBinding, AskDecision, RaisedApproval, ToolCallRequest } from './gate.js';
import { runFailure } from './run-state.js';
import { approvalPayload, raisedApproval } from './approval-request.js';
import {
  type OutcomeRead,
  approvalCheckFailure,
  approvalPathOf,
  approvalRefused,
  askApprover,
  noApprovalPath,
  pausedUncheckable,
  pendingNotStored,
  readApprovalOutcome,
  readMember,
} from './gate-answer.js';

/** Name of the interrupt an `ask` raises on the tool call (its id is `hook:beforeToolCall:<toolUseId>:<name>`). */
export const APPROVAL_INTERRUPT = 'gate-audit:approval';

/**
 * Settles an `ask` decision.
 *
 * @returns the interrupt to raise when the run pauses for an approval
 */
export async function settleAsk(
  state: GateState,
  call: Call,
  decision: AskDecision,
  outcomes: Outcomes,
): Promise<Error | undefined> {
  const view = call.gate!;
  const request = call.request!;
  const rule = decision.rule === undefined ? {} : { rule: decision.rule };
  const path = approvalPathOf(view);
  if (path === undefined) {
    // A call this gate paused must be checked by the path that paused it: one that is gone now (a getter that
    // throws, a member replaced) cannot, and a pause is answered once, so it is forgotten too.
    if (state.pending.has(call.toolUseId)) {
      state.pending.delete(call.toolUseId);
      fail(state, call, pausedUncheckable(view, call.name));
      return undefined;
    }
    await outcomes.deny(state, call, noApprovalPath(decision), 'deny', rule);
    return undefined;
  }
  let outcome: unknown;
  let read: OutcomeRead | undefined;
  if (path.via === 'callback') {
    read = await askApprover(path, request, decision);
  } else {
    const { approval, check: method } = path;
    const pending = state.pending.get(call.toolUseId);
    const nonce = randomBytes(16).toString('hex');
    const raise = readMember(approval, 'raise');
    // A durable path writes the pending approval to its store under a fresh id the approver answers.
    const approvalId = typeof raise === 'function' ? randomUUID() : undefined;
    let answer: unknown;
    try {
      // The reason carries the request, the gate's identity and the nonce, so whoever answers can see
      // exactly what they approve and sign it (`approve`).
      const reason = approvalPayload({ gate: view, decision, request, nonce, approvalId });
      answer = call.event.interrupt({ name: APPROVAL_INTERRUPT, reason: reason as unknown as JSONValue });
    } catch (error) {
      if (!isInterruptError(error)) throw error;
      // The run pauses: record it first (a failing record refuses instead), then let the SDK collect it.
      const problem = await writeRecord(state, view, () =>
        recordOf(state, call, { event: 'ask', reason: decision.reason, ...rule }),
      );
      if (problem !== undefined) {
        fail(state, call, problem);
        return undefined;
      }
      observe(state, call, 'ask', rule.rule, decision.reason);
      if (approvalId !== undefined) {
        // The pending approval is in the store before the run pauses, or the call is refused.
        const raised = raisedApproval({ gate: view, decision, request, nonce }, approvalId);
        const written = await settle(
          () => (raise as (p: RaisedApproval) => unknown).call(approval, raised),
          state.source.timeoutMs,
        );
        const unstored = pendingNotStored(view, written);
        if (unstored !== undefined) {
          fail(state, call, unstored);
          return undefined;
        }
      }
      state.pending.set(call.toolUseId, {
        gate: view.gate,
        gateId: view.id,
        nonce,
        name: call.name,
        canonical: call.snapshot!.canonical,
        ...(approvalId === undefined ? {} : { approvalId }),
        invocation: call.invocation,
      });
      return error;
    }
    // Each interrupt is answered once, whatever the answer: the pending record is gone from here on.
    state.pending.delete(call.toolUseId);
    // A stop is never lifted: an approval asked in a run a gate failure stopped is not answered in a new one.
    const stopped = pending === undefined ? undefined : runFailure(pending.invocation);
    if (stopped !== undefined) {
      fail(state, call, `the approval of tool "${call.name}" was asked in a run that was stopped (${stopped})`);
      return undefined;
    }
    let settled: Settled | undefined;
    const resume = readMember(approval, 'resume');
    if (pending === undefined && typeof resume === 'function') {
      // Raised by another process (or before a restart): the durable path must prove this gate raised it.
      settled = await settle(
        () =>
          (resume as (r: ToolCallRequest, a: unknown, g: { gateId: string }) => unknown).call(
            approval,
            request,
            answer,
            { gateId: view.id },
          ),
        state.source.timeoutMs,
      );
    } else if (pending === undefined || pending.gate !== view.gate) {
      outcome = {
        granted: false,
        reason:
          'the approval answer was not requested by this gate in this process (pre-loaded from a snapshot or session?)',
      };
    } else if (pending.name !== call.name || pending.canonical !== call.snapshot!.canonical) {
      outcome = { granted: false, reason: 'the call resumed is not the call the approval was asked for' };
    } else {
      const binding: ApprovalBinding = {
        gateId: pending.gateId,
        nonce: pending.nonce,
        ...(pending.approvalId === undefined ? {} : { approvalId: pending.approvalId }),
      };
      settled = await settle(
        () =>
          (method as (r: ToolCallRequest, a: unknown, b: ApprovalBinding) => unknown).call(
            approval,
            request,
            answer,
            binding,
          ),
        state.source.timeoutMs,
      );
    }
    if (settled !== undefined) {
      // A check that throws or hangs is a gate error (a store that is down, a forged or spent approval):
      // the call is refused and the run stops.
      const failure = approvalCheckFailure(settled);
      if (failure !== undefined) {
        fail(state, call, failure);
        return undefined;
      }
      outcome = (settled as { value: unknown }).value;
    }
  }
  read ??= readApprovalOutcome(outcome);
  const tags = { ...rule, ...read.ids };
  if (read.granted) return outcomes.allow(state, call, 'approval-granted', tags, decision.reason);
  await outcomes.deny(state, call, approvalRefused(read), 'approval-refused', tags);
  return undefined;
}
