/**
 * Settling an `ask`: refused without an approval path; else asked in-process (`callback`) or through the
 * SDK interrupt (`interrupt`). An interrupt is issued with a random nonce that stays in this gate's memory,
 * with the identity of the gate that raised it; the answer given on resume is checked against exactly that
 * interrupt, once. An answer for an interrupt this gate did not raise in this process (pre-loaded from a
 * snapshot or a session) is refused before the approval path sees it.
 */
import { randomBytes } from 'node:crypto';
import type { JSONValue } from '@strands-agents/sdk';
import { messageOf } from '../errors.js';
import { isInterruptError } from '../walker/sdk-internals.js';
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
import type { ApprovalBinding, AskDecision, ToolCallRequest } from './gate.js';

/** Name of the interrupt an `ask` raises on the tool call (its id is `hook:beforeToolCall:<toolUseId>:<name>`). */
export const APPROVAL_INTERRUPT = 'gate-audit:approval';

/** An approval outcome, read once: granted only for exactly `granted: true`. */
function readOutcome(value: unknown): { granted: true } | { granted: false; reason: string } {
  if (typeof value !== 'object' || value === null)
    return { granted: false, reason: 'the approval answered no outcome' };
  let granted: unknown;
  let reason: unknown;
  try {
    ({ granted, reason } = value as Record<string, unknown>);
  } catch (error) {
    return { granted: false, reason: `reading the approval outcome threw: ${messageOf(error)}` };
  }
  if (granted === true) return { granted: true };
  return { granted: false, reason: typeof reason === 'string' && reason !== '' ? reason : 'no reason given' };
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
    let answer: unknown;
    try {
      // The reason carries the request, the gate's identity and the nonce, so whoever answers can see
      // exactly what they approve and sign it (`approve`).
      const reason = {
        gate: view.name,
        gateId: view.id,
        ...decision,
        request: {
          ...request,
          path: [...request.path],
          paths: request.paths.map((p) => [...p]),
          gateId: view.id,
          nonce,
        },
      };
      answer = call.event.interrupt({ name: APPROVAL_INTERRUPT, reason: reason as unknown as JSONValue });
    } catch (error) {
      if (!isInterruptError(error)) throw error;
      // The run pauses: record it first (a failing record refuses instead), then let the SDK collect it.
      const problem = await writeRecord(
        state,
        view,
        recordOf(state, call, { event: 'ask', reason: decision.reason, ...rule }),
      );
      if (problem !== undefined) {
        fail(state, call, problem);
        return undefined;
      }
      observe(state, call, 'ask', rule.rule, decision.reason);
      state.pending.set(call.toolUseId, {
        gate: view.gate,
        gateId: view.id,
        nonce,
        name: call.name,
        canonical: call.snapshot!.canonical,
      });
      return error;
    }
    // Each interrupt is answered once, whatever the answer: the pending record is gone from here on.
    state.pending.delete(call.toolUseId);
    if (pending === undefined || pending.gate !== view.gate) {
      outcome = {
        granted: false,
        reason:
          'the approval answer was not requested by this gate in this process (pre-loaded from a snapshot or session?)',
      };
    } else if (pending.name !== call.name || pending.canonical !== call.snapshot!.canonical) {
      outcome = { granted: false, reason: 'the call resumed is not the call the approval was asked for' };
    } else {
      const binding: ApprovalBinding = { gateId: pending.gateId, nonce: pending.nonce };
      const settled = await settle(
        () =>
          (method as (r: ToolCallRequest, a: unknown, b: ApprovalBinding) => unknown).call(
            approval,
            request,
            answer,
            binding,
          ),
        state.source.timeoutMs,
      );
      outcome =
        settled instanceof Late
          ? { granted: false, reason: `the approval check did not answer within ${settled.ms} ms` }
          : 'thrown' in settled
            ? { granted: false, reason: `the approval step failed: ${messageOf(settled.thrown)}` }
            : settled.value;
    }
  }
  const read = readOutcome(outcome);
  if (read.granted) return outcomes.allow(state, call, 'approval-granted', rule, decision.reason);
  await outcomes.deny(state, call, `approval refused (${read.reason})`, 'approval-refused', rule);
  return undefined;
}
