/**
 * One decision for a framework adapter's tool call, framework-neutral: the gate resolved now, asked once within
 * its timeout, its answer read once, an `ask` settled through the gate's `callback` approval path, and the
 * record written (and awaited) before the answer is given. Anything that goes wrong is a failure: the caller
 * refuses the call and stops the run.
 */
import { messageOf } from '../errors.js';
import type { GateSource } from './call.js';
import { readDecision } from './read-decision.js';
import { Late, settle } from './settle.js';
import type { GateRecord, ToolCallRequest } from './gate.js';
import { type GateView, viewGate } from './gate-identity.js';

/** What judging a call gives: allowed, refused with a reason, or a failure that stops the run. */
export type Judgement =
  | { readonly verdict: 'allow'; readonly rule?: string; readonly gateId: string }
  /** An `ask` whose approval path pauses the run (`via: 'interrupt'`): the adapter pauses, records and settles it. */
  | { readonly verdict: 'ask'; readonly reason: string; readonly rule?: string; readonly view: GateView }
  | { readonly verdict: 'deny'; readonly reason: string; readonly rule?: string; readonly gateId: string }
  | { readonly failure: string };

/** Why an `ask` through an interrupt is refused where the adapter cannot pause a run for it. */
export const NO_PAUSE =
  "the gate asked for approval through an interrupt, and this run cannot pause for one: give the graph a checkpointer, or use an approval path with via: 'callback'";

function lateOrThrown(view: GateView, what: string, settled: Late | { thrown: unknown }): string {
  return settled instanceof Late
    ? `gate "${view.name}" did not ${what} within ${settled.ms} ms`
    : `gate "${view.name}" threw while it tried to ${what}: ${messageOf(settled.thrown)}`;
}

/**
 * Gives a gate its record and waits for it within the timeout.
 *
 * @returns why the record was not taken, or undefined when it was (or the gate takes none)
 */
export async function record(view: GateView, timeoutMs: number, entry: GateRecord): Promise<string | undefined> {
  const write = view.record;
  if (write === undefined) return undefined;
  const settled = await settle(() => write.call(view.gate, entry), timeoutMs);
  return 'value' in settled ? undefined : lateOrThrown(view, 'record the decision', settled);
}

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

/**
 * Judges one call.
 *
 * @param source - where the gate comes from (a fixed gate, or the configured one resolved now)
 * @param request - the call, as plain data (its `input` a frozen copy)
 * @param pauses - whether the adapter can pause the run for an `ask` through an interrupt (else such an ask is a deny)
 */
export async function judgeCall(source: GateSource, request: ToolCallRequest, pauses = false): Promise<Judgement> {
  const started = performance.now();
  const gate = source.resolve();
  if (gate === undefined) return { failure: 'no gate is configured (configureGate was unset)' };
  const view = viewGate(gate);
  if ('error' in view) return { failure: `the gate cannot be used: ${view.error}` };
  const base = recordBase(request, view.id);
  const done = async (
    entry: Pick<GateRecord, 'event' | 'verdict' | 'rule' | 'reason'>,
    judgement: Judgement,
  ): Promise<Judgement> => {
    const problem = await record(view, source.timeoutMs, {
      ...base,
      ...entry,
      durationMs: performance.now() - started,
    });
    return problem === undefined ? judgement : { failure: problem };
  };
  const settled = await settle(() => view.decide(request), source.timeoutMs);
  if (!('value' in settled)) {
    const failure = lateOrThrown(view, 'decide', settled);
    await record(view, source.timeoutMs, { ...base, event: 'error', verdict: 'deny', reason: failure });
    return { failure };
  }
  const decision = readDecision(settled.value);
  if ('error' in decision) {
    const failure = `gate "${view.name}" gave no usable answer: ${decision.error}`;
    await record(view, source.timeoutMs, { ...base, event: 'error', verdict: 'deny', reason: failure });
    return { failure };
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
  const approval = view.approval;
  if (approval?.via === 'interrupt' && pauses) {
    return { verdict: 'ask', reason: decision.reason, ...rule, view };
  }
  if (approval === undefined || approval.via !== 'callback') {
    const reason = approval === undefined ? `${decision.reason} (no approval path is configured)` : NO_PAUSE;
    return done(
      { event: 'deny', verdict: 'deny', reason, ...rule },
      { verdict: 'deny', reason, ...rule, gateId: view.id },
    );
  }
  const answered = await settle(
    () => approval.ask(request, { verdict: 'ask', reason: decision.reason, ...rule }),
    source.timeoutMs,
  );
  let granted = false;
  let why = 'the approver refused';
  if ('value' in answered) {
    const outcome = answered.value as { granted?: unknown; reason?: unknown } | null;
    granted = typeof outcome === 'object' && outcome !== null && outcome.granted === true;
    if (!granted && typeof outcome?.reason === 'string') why = outcome.reason;
  } else {
    why = lateOrThrown(view, 'settle the approval', answered);
  }
  return granted
    ? done({ event: 'approval-granted', verdict: 'allow', ...rule }, { verdict: 'allow', ...rule, gateId: view.id })
    : done(
        { event: 'approval-refused', verdict: 'deny', reason: why, ...rule },
        { verdict: 'deny', reason: why, ...rule, gateId: view.id },
      );
}
