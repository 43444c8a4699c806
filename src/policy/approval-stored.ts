/**
 * The gate's side of approvals kept in a store: `raise` writes the pending approval before the run pauses;
 * on resume the answer (the approval id) is checked and consumed once, in this process or a restarted one.
 *
 * What a resume checks, in order, before it spends anything: the stored pause is for exactly this call
 * (gate, agent, place, tool, `toolUseId`, input) and its digests match its call; in the process that paused,
 * its nonce is the one this gate issued; after a restart, no later pause of the same call exists (a resume
 * binds to the newest pause of its call, so the approval of an earlier pause is refused). Only then is the
 * approval consumed (an insert the store takes once: of two racing resumers one runs), and only an answer
 * signed by an approver listed in the gate's keyring, under the name it is listed with, over exactly this
 * pause and call, and not expired, grants. A resume naming another pause's approval spends nothing.
 */
import { hostname } from 'node:os';
import type {
  ApprovalBinding,
  ApprovalOutcome,
  ApprovalPath,
  RaisedApproval,
  ToolCallRequest,
} from '../enforce/gate.js';
import { GateAuditError } from '../errors.js';
import { joinPath } from '../tree-paths.js';
import { quoted } from '../escape.js';
import { callDigest, inputDigest } from './approval.js';
import { type ApproverKeysOptions, approverKeys, type Keyring } from './approval-keys.js';
import { answerProblem } from './approval-signature.js';
import {
  type ApprovalConsumption,
  type ApprovalStore,
  type PendingApprovalEntry,
  STORE_METHODS,
} from './approval-store.js';

/** Options of `approvals` with a store: the store, the approvers' public keys, the expiry. */
export interface DurableApprovalOptions extends ApproverKeysOptions {
  /** Where pending approvals are written, answered and consumed. */
  readonly store: ApprovalStore;
  /** How long a pending approval may be answered and consumed, in ms (default one hour). */
  readonly ttlMs?: number;
}

const DEFAULT_TTL_MS = 60 * 60 * 1000;
const APPROVAL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Why a stored pause does not hold together (its digests are not its call's), or undefined.
 *
 * @param entry - the stored pending approval
 */
export function entryProblem(entry: PendingApprovalEntry): string | undefined {
  try {
    if (inputDigest(entry.request.input) !== entry.inputDigest) {
      return "the stored approval's input does not match its digest";
    }
    if (callDigest({ ...entry.request, gateId: entry.gateId }) !== entry.callDigest) {
      return "the stored approval's call does not match its digest";
    }
  } catch {
    return 'the stored approval is malformed';
  }
  return undefined;
}

function sameCall(entry: PendingApprovalEntry, request: ToolCallRequest, gateId: string): string | undefined {
  const differs: string[] = [];
  if (entry.gateId !== gateId) differs.push('gate');
  if (entry.request.agentId !== request.agentId) differs.push('agent');
  if (joinPath(entry.request.path) !== joinPath(request.path)) differs.push('place');
  if (entry.request.toolName !== request.toolName) differs.push('tool');
  if (entry.request.toolUseId !== request.toolUseId) differs.push('toolUseId');
  if (entry.inputDigest !== inputDigest(request.input)) differs.push('input');
  return differs.length === 0 ? undefined : `the stored approval is for another call (${differs.join(', ')} differ)`;
}

function consumption(approvalId: string, outcome: ApprovalConsumption['outcome']): ApprovalConsumption {
  return { approvalId, consumedAt: Date.now(), outcome, by: `${hostname()}/${process.pid}` };
}

/**
 * Checks a stored approval against the live call and consumes it once. Integrity problems throw (the gate
 * refuses the call and stops the run); a human's denial is a refusal.
 */
async function redeem(
  keyring: Keyring,
  store: ApprovalStore,
  id: string,
  request: ToolCallRequest,
  gateId: string,
  nonce: string | undefined,
): Promise<ApprovalOutcome> {
  const stored = await store.getPending(id);
  if (stored === undefined) throw new Error(`approval ${id} is unknown`);
  const { entry } = stored;
  // Nothing is spent until the approval is known to be this pause's.
  const problem = entryProblem(entry) ?? sameCall(entry, request, gateId);
  if (problem !== undefined) throw new Error(problem);
  if (nonce !== undefined && entry.nonce !== nonce) {
    throw new Error('the stored approval is not the one this gate raised for this interrupt (nonce differs)');
  }
  if (nonce === undefined && stored.supersededBy !== undefined) {
    throw new Error(
      `approval ${id} is for an earlier pause of this call: it paused again as ${quoted(stored.supersededBy)}, resume with that one`,
    );
  }
  if (stored.consumption !== undefined) throw new Error(`approval ${id} was already used`);
  const { answer } = stored;
  if (answer === undefined) {
    // This pause is answered (the interrupt is spent) without an approval: the approval is spent too.
    await store.consumePending(consumption(id, 'unanswered'));
    throw new Error(`approval ${id} was not answered before the run resumed`);
  }
  const digest = callDigest({ ...request, gateId });
  const forged = answerProblem(
    answer,
    { approvalId: id, nonce: entry.nonce, toolUseId: request.toolUseId, callDigest: digest },
    keyring,
  );
  if (forged !== undefined) throw new Error(`approval ${id}: ${forged}`);
  const expiresAt = Math.min(answer.expiresAt, entry.expiresAt);
  if (Date.now() > expiresAt) throw new Error(`approval ${id} expired at ${new Date(expiresAt).toISOString()}`);
  const granted = answer.decision === 'approve';
  if (!(await store.consumePending(consumption(id, granted ? 'granted' : 'refused')))) {
    throw new Error(`approval ${id} was already used`);
  }
  const ids = { approvalId: id, approverId: answer.approverId };
  return granted ? { granted: true, ...ids } : { granted: false, reason: `denied by ${answer.approverId}`, ...ids };
}

function approvalIdOf(answer: unknown): string | undefined {
  return typeof answer === 'string' && APPROVAL_ID.test(answer) ? answer : undefined;
}

/**
 * The interrupt approval path with a durable store (see the module comment).
 *
 * @param options - `{ store, approvers | keyring, allowWritableKeyring?, ttlMs? }`
 * @throws GateAuditError `INVALID_ARGUMENT` for a `secret` (refused with a store), a store without its
 *   methods, a bad `ttlMs`, or missing or bad approvers
 */
export function storedApprovals(options: DurableApprovalOptions): ApprovalPath {
  if ((options as { secret?: unknown }).secret !== undefined) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      "option=<approvals.secret> | a shared secret cannot answer approvals kept in a store: the agent process holds it, so its tools could approve their own calls | drop the secret, list the approvers' public keys (approvers: { alice: '<public key>' } or keyring: '<file>') and answer with gate-audit approvals approve --key",
    );
  }
  const { store } = options;
  for (const method of STORE_METHODS) {
    if (typeof (store as unknown as Record<string, unknown>)?.[method] !== 'function') {
      throw new GateAuditError(
        'INVALID_ARGUMENT',
        `option=<approvals.store> | the store has no ${method}() | pass postgresStore(...) or memoryApprovalStore()`,
      );
    }
  }
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs <= 0) {
    throw new GateAuditError('INVALID_ARGUMENT', 'option=<approvals.ttlMs> | must be a positive whole number of ms');
  }
  const keys = approverKeys(options, 'approvals');
  return {
    via: 'interrupt',
    raise: async (pending: RaisedApproval): Promise<void> => {
      // A keyring the agent could rewrite is refused before anything is asked.
      keys();
      const createdAt = Date.now();
      const { request } = pending;
      const entry: PendingApprovalEntry = {
        id: pending.id,
        gate: pending.gate,
        gateId: pending.gateId,
        ...(pending.rule === undefined ? {} : { rule: pending.rule }),
        reason: pending.reason,
        request: {
          toolName: request.toolName,
          toolUseId: request.toolUseId,
          input: request.input,
          agentId: request.agentId,
          agentName: request.agentName,
          path: [...request.path],
        },
        inputDigest: inputDigest(request.input),
        callDigest: callDigest({ ...request, gateId: pending.gateId }),
        nonce: pending.nonce,
        createdAt,
        expiresAt: createdAt + ttlMs,
      };
      await store.putPending(entry);
    },
    check: async (request: ToolCallRequest, answer: unknown, binding: ApprovalBinding): Promise<ApprovalOutcome> => {
      const keyring = keys();
      if (binding.approvalId === undefined) throw new Error('no stored approval is waiting for this interrupt');
      if (approvalIdOf(answer) !== binding.approvalId) {
        // This interrupt is answered: its own stored approval is spent too, so it cannot be used later.
        await store.consumePending(consumption(binding.approvalId, 'refused'));
        return {
          granted: false,
          reason: `the answer is not the approval id ${binding.approvalId}`,
          approvalId: binding.approvalId,
        };
      }
      return redeem(keyring, store, binding.approvalId, request, binding.gateId, binding.nonce);
    },
    resume: async (
      request: ToolCallRequest,
      answer: unknown,
      gate: { readonly gateId: string },
    ): Promise<ApprovalOutcome> => {
      const keyring = keys();
      const id = approvalIdOf(answer);
      if (id === undefined) {
        return {
          granted: false,
          reason:
            'the approval answer was not requested by this gate in this process, and it is not the id of a stored approval',
        };
      }
      return redeem(keyring, store, id, request, gate.gateId, undefined);
    },
  };
}
