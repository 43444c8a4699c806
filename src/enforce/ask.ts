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
import { messageOf } from '../errors.js';
import { isInterruptError } from '../frameworks/strands/sdk-internals.js';
import {
  type Call,
  fail,
  type GateState,
  Late,
  type Outcomes,
  observe,
  recordOf,
  settle,
  writeRecord,
} from './call.js';
import type { ApprovalBinding, AskDecision, RaisedApproval, ToolCallRequest } from './gate.js';
import { runFailure } from './run-state.js';
import { approvalPayload, raisedApproval } from './approval-request.js';

/** Name of the interrupt an `ask` raises on the tool call (its id is `hook:beforeToolCall:<toolUseId>:<name>`). */
export const APPROVAL_INTERRUPT = 'gate-audit:approval';

/** An approval outcome, read once: granted only for exactly `granted: true`; the ids it names, when strings. */
function readOutcome(value: unknown): ({ granted: true } | { granted: false; reason: string }) & {
  ids: { approvalId?: string; approverId?: string };
} {
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

/** Why a settled approval check failed (late or thrown), or undefined when it answered. */
function failureOf(settled: { value: unknown } | Late | { thrown: unknown }): string | undefined {
  if (settled instanceof Late) return `the approval check did not answer within ${settled.ms} ms`;
  if ('thrown' in settled) return `the approval check failed: ${messageOf(settled.thrown)}`;
  return undefined;
}

function readMember(owner: object, key: string): unknown {
  try {
    return (owner as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

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
  const approval = view.approval;
  const via = approval === undefined ? undefined : readMember(approval, 'via');
  const method = approval === undefined ? undefined : readMember(approval, via === 'callback' ? 'ask' : 'check');
  if (approval === undefined || (via !== 'interrupt' && via !== 'callback') || typeof method !== 'function') {
    const reason = `approval required (${decision.reason}) but no approval path is configured`;
    await outcomes.deny(state, call, reason, 'deny', rule);
    return undefined;
  }
  let outcome: unknown;
  if (via === 'callback') {
    const settled = await settle(
      () => (method as (r: ToolCallRequest, d: AskDecision) => unknown).call(approval, request, decision),
      undefined,
    );
    outcome =
      settled instanceof Late || 'thrown' in settled
        ? {
            granted: false,
            reason: `the approval step failed: ${'thrown' in settled ? messageOf(settled.thrown) : 'late'}`,
          }
        : settled.value;
  } else {
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
        if (written instanceof Late || 'thrown' in written) {
          const why = written instanceof Late ? `no answer within ${written.ms} ms` : messageOf(written.thrown);
          fail(state, call, `gate "${view.name}" could not store the pending approval: ${why}`);
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
    let settled: { value: unknown } | Late | { thrown: unknown } | undefined;
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
      const failure = failureOf(settled);
      if (failure !== undefined) {
        fail(state, call, failure);
        return undefined;
      }
      outcome = (settled as { value: unknown }).value;
    }
  }
  const read = readOutcome(outcome);
  const tags = { ...rule, ...read.ids };
  if (read.granted) return outcomes.allow(state, call, 'approval-granted', tags, decision.reason);
  await outcomes.deny(state, call, `approval refused (${read.reason})`, 'approval-refused', tags);
  return undefined;
}
