/**
 * What a gate shows and stores when it pauses a call for approval, the same for every framework: the interrupt's
 * payload (the gate, the decision and the request, with the gate's identity and the pause's nonce, so whoever
 * answers sees exactly what they approve and can sign it) and the pending approval a durable path stores.
 */
import type { AskDecision, RaisedApproval, ToolCallRequest } from './gate.js';

/** One pause for approval: who raised it and what binds the answer to it. */
export interface ApprovalPause {
  /** The raising gate's name and id. */
  readonly gate: { readonly name: string; readonly id: string };
  /** The gate's `ask`. */
  readonly decision: { readonly reason: string; readonly rule?: string };
  readonly request: ToolCallRequest;
  /** Random, issued with this pause only. */
  readonly nonce: string;
  /** The pending approval's id in a durable store, when the path has one. */
  readonly approvalId?: string | undefined;
}

/** The interrupt's payload: the gate, its `ask`, and the request with the gate's id and the pause's nonce. */
export interface ApprovalPayload extends AskDecision {
  readonly gate: string;
  readonly gateId: string;
  readonly approvalId?: string;
  readonly request: ToolCallRequest & { readonly gateId: string; readonly nonce: string };
}

/**
 * The payload an interrupt carries to whoever answers (a copy: the request's places are copied too).
 *
 * @param pause - the pause
 */
export function approvalPayload(pause: ApprovalPause): ApprovalPayload {
  const { gate, decision, request, nonce, approvalId } = pause;
  return {
    gate: gate.name,
    gateId: gate.id,
    ...(approvalId === undefined ? {} : { approvalId }),
    verdict: 'ask',
    reason: decision.reason,
    ...(decision.rule === undefined ? {} : { rule: decision.rule }),
    request: {
      ...request,
      path: [...request.path],
      paths: request.paths.map((p) => [...p]),
      gateId: gate.id,
      nonce,
    },
  };
}

/**
 * The pending approval a durable path stores (`raise`) before the run pauses.
 *
 * @param pause - the pause
 * @param approvalId - the id it is stored under
 */
export function raisedApproval(pause: ApprovalPause, approvalId: string): RaisedApproval {
  const { gate, decision, request, nonce } = pause;
  return {
    id: approvalId,
    gate: gate.name,
    gateId: gate.id,
    nonce,
    reason: decision.reason,
    ...(decision.rule === undefined ? {} : { rule: decision.rule }),
    request,
  };
}
