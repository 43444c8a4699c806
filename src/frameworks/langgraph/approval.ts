/**
 * An `ask` in a LangGraph run, through LangGraph's own `interrupt()`: the run pauses (a checkpointer is required;
 * without one the ask is a deny that says so), and the answer given on resume is checked against exactly the pause
 * this gate raised, once, with the nonce issued with it and the call's frozen input.
 *
 * - **Decided once.** LangGraph runs the tool node again on resume. A call this gate paused is not decided again:
 *   the pause it raised (kept in this process, never read back from the checkpoint) answers for it, and the
 *   approval's record is the only record of the resume.
 * - **The call that waited is the call that runs.** A resumed call whose name or input differs from the paused one
 *   (rewritten with `updateState` while it waited) is refused and the run stops.
 * - **Answers this gate did not ask for** (a `Command({ resume })` sent before any pause, or after a restart) go to
 *   the approval path's `resume` when it has one (a durable store proves the pause), and are refused otherwise.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { messageOf } from '../../errors.js';
import { type Settled, settle } from '../../enforce/settle.js';
import type { InputSnapshot } from '../../enforce/digest.js';
import type { ApprovalBinding, GateRecord, RaisedApproval, ToolCallRequest } from '../../enforce/gate.js';
import {
  approvalCheckFailure,
  approvalPathOf,
  approvalRefused,
  pausedUncheckable,
  pendingNotStored,
  readApprovalOutcome,
  readMember,
  type UsableApproval,
} from '../../enforce/gate-answer.js';
import { type RecordEntry, recordCall } from '../../enforce/judge.js';
import type { GateView } from '../../enforce/gate-identity.js';
import { approvalPayload, raisedApproval } from '../../enforce/approval-request.js';

/** What a paused call left in this process. */
interface Pause {
  readonly gate: object;
  readonly nonce: string;
  readonly approvalId?: string;
  readonly name: string;
  readonly canonical: string;
  readonly reason: string;
  readonly rule?: string;
}

/** Pauses this process raised, by gate view's gate, then by tool call id. */
const pauses = new WeakMap<object, Map<string, Pause>>();

type InterruptFn = (value: unknown) => unknown;
let interruptFn: InterruptFn | undefined;

/**
 * Loads `@langchain/langgraph`'s `interrupt` (it reads the running node's config from LangChain's process-wide
 * storage, so any copy of the package pauses the run it is called in).
 *
 * @returns why it cannot be loaded, or undefined when it is
 */
export function loadInterrupt(): string | undefined {
  if (interruptFn !== undefined) return undefined;
  try {
    const required = createRequire(import.meta.url)('@langchain/langgraph') as { interrupt?: unknown };
    if (typeof required.interrupt !== 'function') return '@langchain/langgraph has no interrupt()';
    interruptFn = required.interrupt as InterruptFn;
    return undefined;
  } catch (error) {
    return `@langchain/langgraph cannot be loaded from gate-audit's folder: ${messageOf(error)}`;
  }
}

/** Whether a node's config can pause: the graph runs with a checkpointer. */
export function canPause(config: unknown): boolean {
  const configurable = (config as { configurable?: Record<string, unknown> } | undefined)?.configurable;
  return typeof configurable === 'object' && configurable !== null && configurable.__pregel_checkpointer !== undefined;
}

/** What settling an ask gives: allowed, refused, a failure that stops the run, or the pause to throw. */
export type AskOutcome =
  | { readonly allow: true }
  | { readonly deny: string }
  | { readonly failure: string }
  | { readonly pause: unknown };

function isGraphInterrupt(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'GraphInterrupt' || name === 'NodeInterrupt';
}

/**
 * The key a pause is kept under: the thread and checkpoint namespace it paused in, and the tool call's id (a call
 * with the same id in another thread is another call).
 *
 * @param config - the tool node's config
 * @param toolCallId - the call's id
 */
export function pauseKey(config: unknown, toolCallId: string): string {
  const configurable = (config as { configurable?: Record<string, unknown> } | undefined)?.configurable;
  const thread = configurable?.thread_id;
  // The namespace names each node on the way with its task id, which a resume (or an updateState) renews: the
  // node names alone say where the call paused.
  const namespace = configurable?.checkpoint_ns;
  const place =
    typeof namespace === 'string'
      ? namespace
          .split('|')
          .map((part) => part.split(':')[0])
          .join('|')
      : '';
  return JSON.stringify([
    typeof thread === 'string' || typeof thread === 'number' ? String(thread) : '',
    place,
    toolCallId,
  ]);
}

/** Whether a paused call is waiting for its answer (it is not decided again on resume). */
export function pausedCall(view: GateView, key: string): { reason: string; rule?: string } | undefined {
  const pause = pauses.get(view.gate)?.get(key);
  return pause === undefined
    ? undefined
    : { reason: pause.reason, ...(pause.rule === undefined ? {} : { rule: pause.rule }) };
}

/**
 * Settles an `ask` through `interrupt()`.
 *
 * @param view - the gate that asked
 * @param timeoutMs - the gate's timeout
 * @param request - the call
 * @param snapshot - its frozen input
 * @param decision - why the gate asked, and which rule
 * @param base - the fields of every record of this call
 * @param key - where the pause is kept (`pauseKey`)
 * @param started - when the tool node took the call (`performance.now()`), for each record's `durationMs`
 * @param read - the approval path as read when the gate asked, on the pass that pauses (read now when absent: a
 *   resumed call is not decided again)
 */
export async function settleAskByInterrupt(
  view: GateView,
  timeoutMs: number,
  request: ToolCallRequest,
  snapshot: InputSnapshot,
  decision: { readonly reason: string; readonly rule?: string },
  base: Omit<GateRecord, 'event' | 'verdict'>,
  key: string,
  started: number,
  read?: UsableApproval,
): Promise<AskOutcome> {
  const rule = decision.rule === undefined ? {} : { rule: decision.rule };
  const record = (entry: RecordEntry): string | undefined | Promise<string | undefined> =>
    recordCall(view, timeoutMs, base, started, entry);
  const byCall = pauses.get(view.gate) ?? new Map<string, Pause>();
  pauses.set(view.gate, byCall);
  const pending = byCall.get(key);
  const path = read ?? approvalPathOf(view);
  if (path?.via !== 'interrupt' || interruptFn === undefined) {
    if (pending !== undefined) {
      // A call paused by this gate must be checked by the path that paused it: one that is gone (a getter that
      // throws now, a member replaced) cannot, and the pause is answered once, so it is forgotten too.
      byCall.delete(key);
      return { failure: pausedUncheckable(view, pending.name) };
    }
    const reason = 'no approval path can pause this run';
    const problem = await record({ event: 'deny', verdict: 'deny', reason, ...rule });
    return problem === undefined ? { deny: reason } : { failure: problem };
  }
  const { approval, check } = path;
  // Each member of the path is read once: a getter cannot hand the pause one method and the resume another.
  const raise = readMember(approval, 'raise');
  const resume = readMember(approval, 'resume');
  if (pending !== undefined && (pending.name !== request.toolName || pending.canonical !== snapshot.canonical)) {
    byCall.delete(key);
    return { failure: `the call of tool "${pending.name}" that waited for approval was changed before it resumed` };
  }
  const nonce = pending?.nonce ?? randomBytes(16).toString('hex');
  const approvalId =
    pending === undefined ? (typeof raise === 'function' ? randomUUID() : undefined) : pending.approvalId;
  const payload = approvalPayload({ gate: view, decision, request, nonce, approvalId });
  let answer: unknown;
  try {
    answer = interruptFn(payload);
  } catch (error) {
    if (!isGraphInterrupt(error)) return { failure: `pausing for approval failed: ${messageOf(error)}` };
    if (pending !== undefined) return { pause: error };
    // The run pauses: the record first (a failing record refuses instead), then the durable store.
    const problem = await record({
      event: 'ask',
      verdict: 'ask',
      reason: decision.reason,
      ...rule,
    });
    if (problem !== undefined) return { failure: problem };
    if (approvalId !== undefined && typeof raise === 'function') {
      const raised = raisedApproval({ gate: view, decision, request, nonce }, approvalId);
      const unstored = pendingNotStored(
        view,
        await settle(() => (raise as (p: RaisedApproval) => unknown).call(approval, raised), timeoutMs),
      );
      if (unstored !== undefined) return { failure: unstored };
    }
    byCall.set(key, {
      gate: view.gate,
      nonce,
      ...(approvalId === undefined ? {} : { approvalId }),
      name: request.toolName,
      canonical: snapshot.canonical,
      reason: decision.reason,
      ...rule,
    });
    return { pause: error };
  }
  // Each pause is answered once, whatever the answer.
  byCall.delete(key);
  let settled: Settled;
  if (pending === undefined) {
    if (typeof resume !== 'function') {
      const reason =
        'the approval answer was not requested by this gate in this process (sent before any pause, or after a restart?)';
      const refused = approvalRefused({ granted: false, reason, ids: {} });
      const problem = await record({
        event: 'approval-refused',
        verdict: 'deny',
        reason: refused,
        ...rule,
      });
      return problem === undefined ? { deny: refused } : { failure: problem };
    }
    settled = await settle(
      () =>
        (resume as (r: ToolCallRequest, a: unknown, g: { gateId: string }) => unknown).call(approval, request, answer, {
          gateId: view.id,
        }),
      timeoutMs,
    );
  } else {
    const binding: ApprovalBinding = { gateId: view.id, nonce, ...(approvalId === undefined ? {} : { approvalId }) };
    settled = await settle(() => check.call(approval, request, answer, binding), timeoutMs);
  }
  // A check that throws or hangs (a store that is down, a forged or spent answer) refuses the call and stops the run.
  const failure = approvalCheckFailure(settled);
  if (failure !== undefined) return { failure };
  const outcome = readApprovalOutcome((settled as { value: unknown }).value);
  const ids = outcome.ids;
  if (outcome.granted) {
    const problem = await record({
      event: 'approval-granted',
      verdict: 'allow',
      reason: decision.reason,
      ...rule,
      ...ids,
    });
    return problem === undefined ? { allow: true } : { failure: problem };
  }
  const problem = await record({
    event: 'approval-refused',
    verdict: 'deny',
    reason: approvalRefused(outcome),
    ...rule,
    ...ids,
  });
  return problem === undefined ? { deny: approvalRefused(outcome) } : { failure: problem };
}
