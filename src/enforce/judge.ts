/**
 * One decision for an adapter whose tool call is decided in one awaited step (LangGraph's tool node): the gate
 * resolved now, asked once within its timeout, its answer read once, an `ask` settled through the gate's
 * `callback` approval path, and the record written (and awaited) before the answer is given. Asking, reading,
 * recording and the callback approval are `gate-answer.ts`, the same steps the Strands hook takes (`decision.ts`),
 * so both frameworks decide, refuse and fail in the same words. Anything that goes wrong is a failure: the caller
 * refuses the call and stops the run.
 */
import type { GateSource } from './gate-source.js';
import {
  approvalPathOf,
  approvalRefused,
  askApprover,
  askGate,
  gateNow,
  noApprovalPath,
  type UsableApproval,
  writeRecord,
} from './gate-answer.js';
import type { AskDecision, GateRecord, ToolCallRequest } from './gate.js';
import type { GateView } from './gate-identity.js';

/** What judging a call gives: allowed, refused with a reason, or a failure that stops the run. */
export type Judgement =
  | { readonly verdict: 'allow'; readonly rule?: string; readonly gateId: string }
  /** An `ask` whose approval path pauses the run (`via: 'interrupt'`): the adapter pauses, records and settles it. */
  | {
      readonly verdict: 'ask';
      readonly reason: string;
      readonly rule?: string;
      readonly view: GateView;
      /** The approval path as read when the gate asked (read once: the pause uses it, not a second read). */
      readonly path?: Extract<UsableApproval, { via: 'interrupt' }>;
    }
  | { readonly verdict: 'deny'; readonly reason: string; readonly rule?: string; readonly gateId: string }
  | { readonly failure: string };

/** Why an `ask` through an interrupt is refused where the adapter cannot pause a run for it. */
export const NO_PAUSE =
  "the gate asked for approval through an interrupt, and this run cannot pause for one: give the graph a checkpointer, or use an approval path with via: 'callback'";

/**
 * The fields every record of one call carries: the call, where it runs, its judged input, and the gate's identity.
 *
 * @param request - the call
 * @param gateId - the identity of the gate that judges it
 */
export function recordBase(request: ToolCallRequest, gateId: string): Omit<GateRecord, 'event' | 'verdict'> {
  return {
    toolName: request.toolName,
    toolUseId: request.toolUseId,
    agentId: request.agentId,
    path: request.path,
    paths: request.paths,
    gateId,
    input: request.input,
  };
}

/** What one record of a call adds to the fields every record of it carries. */
export type RecordEntry = Pick<GateRecord, 'event' | 'verdict' | 'rule' | 'reason' | 'approvalId' | 'approverId'>;

/**
 * Writes one record of a call: the fields every record of it carries, the entry, and how long since the call was
 * taken. Within the gate's timeout (`writeRecord` of `gate-answer.ts`).
 *
 * @param base - the fields every record of the call carries (`recordBase`)
 * @param started - when the call was taken (`performance.now()`)
 * @returns why the record was not taken, or undefined when it was (or the gate takes none)
 */
export function recordCall(
  view: GateView,
  timeoutMs: number,
  base: Omit<GateRecord, 'event' | 'verdict'>,
  started: number,
  entry: RecordEntry,
): string | undefined | Promise<string | undefined> {
  return writeRecord(view, timeoutMs, () => ({ ...base, ...entry, durationMs: performance.now() - started }));
}

/**
 * Judges one call.
 *
 * @param source - where the gate comes from (a fixed gate, or the configured one resolved now)
 * @param request - the call, as plain data (its `input` a frozen copy)
 * @param pauses - whether the adapter can pause the run for an `ask` through an interrupt (else such an ask is a deny)
 */
export async function judgeCall(source: GateSource, request: ToolCallRequest, pauses = false): Promise<Judgement> {
  const started = performance.now();
  const view = gateNow(source);
  if ('failure' in view) return view;
  const base = recordBase(request, view.id);
  const done = async (entry: RecordEntry, judgement: Judgement): Promise<Judgement> => {
    const problem = await recordCall(view, source.timeoutMs, base, started, entry);
    return problem === undefined ? judgement : { failure: problem };
  };
  const decision = await askGate(view, request, undefined, source.timeoutMs);
  if ('failure' in decision) {
    // Failed whatever the record does: a record that fails too does not change the failure it reports.
    await done({ event: 'error', verdict: 'deny', reason: decision.failure }, decision);
    return decision;
  }
  const rule = decision.rule === undefined ? {} : { rule: decision.rule };
  if (decision.verdict === 'allow')
    return done({ event: 'allow', verdict: 'allow', ...rule }, { verdict: 'allow', ...rule, gateId: view.id });
  if (decision.verdict === 'deny') {
    return done(
      { event: 'deny', verdict: 'deny', reason: decision.reason, ...rule },
      { verdict: 'deny', reason: decision.reason, ...rule, gateId: view.id },
    );
  }
  const ask: AskDecision = { verdict: 'ask', reason: decision.reason, ...rule };
  const path = approvalPathOf(view);
  if (path?.via === 'interrupt' && pauses) {
    return { verdict: 'ask', reason: decision.reason, ...rule, view, path };
  }
  if (path?.via !== 'callback') {
    const reason = path === undefined ? noApprovalPath(ask) : NO_PAUSE;
    return done(
      { event: 'deny', verdict: 'deny', reason, ...rule },
      { verdict: 'deny', reason, ...rule, gateId: view.id },
    );
  }
  const outcome = await askApprover(path, request, ask);
  const tags = { ...rule, ...outcome.ids };
  if (outcome.granted) {
    return done(
      { event: 'approval-granted', verdict: 'allow', reason: decision.reason, ...tags },
      { verdict: 'allow', ...rule, gateId: view.id },
    );
  }
  const why = approvalRefused(outcome);
  return done(
    { event: 'approval-refused', verdict: 'deny', reason: why, ...tags },
    { verdict: 'deny', reason: why, ...rule, gateId: view.id },
  );
}
