/**
 * `policyGate`: a `Gate` backed by a policy document, with an approval path for `ask` and a decision log.
 * `gateOptions` turns the options shared with `interventionGate` into the gate's `approval` and `record`.
 */
import { canonicalJson, sha256Hex } from '../enforce/digest.js';
import type { ApprovalPath, Gate, GateRecord } from '../enforce/gate.js';
import { GateAuditError } from '../errors.js';
import { type ApprovalSecret, type Approver, approverApprovals, tokenApprovals } from './approval.js';
import { type DurableApprovalOptions, storedApprovals } from './approval-stored.js';
import type { DecisionLogOptions } from './decision-log.js';
import { type DecisionSink, sinkOf } from './decision-sink.js';
import { parsePolicy } from './load.js';
import type { Policy, PolicyInput } from './schema.js';

/** Options of `policyGate` and `interventionGate`. */
export interface GateOptions {
  /** Name shown in logs and reports (default `policy` / `intervention`). */
  readonly name?: string;
  /**
   * Settle `ask` with the SDK interrupt. `{ secret }`: answered in the process that paused, the resume
   * answer a token from `approve(request, { secret })`. `{ store, approvers | keyring }`: the pending
   * approval is written to the store before the run pauses, answered from any process by an approver's
   * signed answer (`approvePending`, `gate-audit approvals approve --key`), and consumed once on resume (the
   * answer is then its id); a secret is refused with a store.
   */
  readonly approvals?: (ApprovalSecret & { readonly store?: undefined }) | DurableApprovalOptions;
  /** Settle `ask` in-process instead: `true` approves; `false`, a rejection, an error or a timeout denies. */
  readonly approver?: Approver;
  /** How long `approver` may take (default 60000 ms). */
  readonly approverTimeoutMs?: number;
  /**
   * Write every decision to a decision log: where and how (see `DecisionLogOptions`, opened here and kept
   * open until the process exits), a log from `openDecisionLog` (shared by several gates, closed by you), or
   * any other `DecisionSink` (e.g. `postgresStore(...)`).
   */
  readonly log?: DecisionLogOptions | DecisionSink;
}

/**
 * The `approval` and `record` members a gate gets from its options.
 *
 * @param options - the caller's options
 * @param subject - the function called, for error messages
 */
export function gateOptions(
  options: GateOptions | undefined,
  subject: string,
): {
  name: string | undefined;
  approval?: ApprovalPath;
  record?: (gateName: string, record: GateRecord) => void | Promise<void>;
} {
  const { approvals, approver, approverTimeoutMs = 60_000, log } = options ?? {};
  if (approvals !== undefined && approver !== undefined) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `subject=<${subject}> | both approvals and approver are given | choose one way to settle "ask"`,
    );
  }
  if (approver !== undefined && typeof approver !== 'function') {
    throw new GateAuditError('INVALID_ARGUMENT', `subject=<${subject}> | approver is not a function`);
  }
  if (!Number.isInteger(approverTimeoutMs) || approverTimeoutMs <= 0) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `subject=<${subject}> | approverTimeoutMs must be a positive whole number of milliseconds`,
    );
  }
  const approval =
    approvals !== undefined
      ? approvals.store !== undefined
        ? storedApprovals(approvals)
        : tokenApprovals(approvals)
      : approver !== undefined
        ? approverApprovals(approver, approverTimeoutMs)
        : undefined;
  const sink = log === undefined ? undefined : sinkOf(log);
  return {
    name: options?.name,
    ...(approval === undefined ? {} : { approval }),
    ...(sink === undefined ? {} : { record: (gateName, record) => sink.append(record, gateName) }),
  };
}

/**
 * The identity of a policy: the SHA-256 (hex) of its canonical JSON (sorted keys) after its presets are
 * resolved, so two policies with different rules never share an id, whatever their gates are named.
 *
 * @param policy - a policy with its presets resolved
 */
export function policyId(policy: Policy): string {
  return sha256Hex(canonicalJson(policy));
}

/**
 * A gate that decides every tool call by a policy: the most restrictive matching rule wins
 * (deny > ask > allow), `default` applies when none matches, and each decision names its rule. Its `id`
 * is `policyId` of the policy, presets resolved.
 *
 * `ask` is settled by `approvals` (the SDK interrupt, answered with an `approve()` token, or with a store by
 * an approver's signed answer), or by `approver` (in-process); with neither it refuses the call, saying no
 * approval path is configured.
 *
 * @param policy - a policy object (validated here) or the result of `loadPolicy`
 * @param options - approvals or approver, the decision log, a name
 * @returns the gate, for `install`, `installMultiagent`, `GatePlugin` or `configureGate`
 * @throws PolicyError when the policy is invalid; GateAuditError `INVALID_ARGUMENT` for bad options
 */
export function policyGate(policy: Policy | PolicyInput, options?: GateOptions): Gate {
  const compiled = parsePolicy(policy);
  const { name = 'policy', approval, record } = gateOptions(options, 'policyGate');
  return {
    name,
    id: policyId(compiled.policy),
    decide: (request) => compiled.decide(request),
    ...(approval === undefined ? {} : { approval }),
    ...(record === undefined ? {} : { record: (entry: GateRecord) => record(name, entry) }),
  };
}
