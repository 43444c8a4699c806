/**
 * Who watches decisions besides `Gate.record`: at most one observer (the `gate-audit/otel` span processor)
 * is told of every tool decision and every node the guard cancels, after the decision is applied. Without an
 * observer each call costs one comparison. An observer can never change a decision: it is called after the
 * call is sealed or refused, and whatever it throws is swallowed.
 */
import type { Agent } from '@strands-agents/sdk';

/** How a call ended at the gate: `error` when the gate failed (the run stops). */
export type ObservedVerdict = 'allow' | 'deny' | 'ask' | 'error';

/** One decided tool call. */
export interface ToolDecision {
  /** The Strands agent whose loop made the call; absent for a LangGraph call (a tool node has no agent object). */
  readonly agent?: Agent;
  /** Which framework's call it is (absent: Strands). */
  readonly framework?: 'langgraph';
  readonly agentId: string;
  readonly toolName: string;
  readonly toolUseId: string;
  /**
   * Where the call runs (escaped path segments from the root), when exactly one place is known; absent or
   * empty otherwise (the span processor then reads the place from the spans).
   */
  readonly path?: readonly string[];
  /** The gate's name, when one was asked. */
  readonly gate?: string;
  readonly verdict: ObservedVerdict;
  readonly rule?: string;
  /** Why a call was not allowed. */
  readonly reason?: string;
}

/** One node the node guard cancelled. */
export interface NodeCancel {
  readonly orchestrator: object;
  readonly nodeId: string;
  readonly gate?: string;
  readonly reason: string;
}

/** What an observer is told. */
export interface DecisionObserver {
  tool(decision: ToolDecision): void;
  node(cancel: NodeCancel): void;
  /**
   * Runs the tool of a call the gate allowed (a LangGraph call: its tool span is made inside the run, by a callback
   * handler, so the allowance is bound to the run, never looked up by place and id). Calls `run` exactly once and
   * returns what it returns.
   */
  allowedRun?<T>(decision: ToolDecision, run: () => T): T;
}

let current: DecisionObserver | undefined;

/**
 * Sets (or, with undefined, removes) the observer.
 *
 * @param observer - told of every decision from now on
 */
export function setDecisionObserver(observer: DecisionObserver | undefined): void {
  current = observer;
}

/** Tells the observer of a tool decision; never throws. */
export function observeTool(make: () => ToolDecision): void {
  if (current === undefined) return;
  try {
    current.tool(make());
  } catch {
    // Observation never changes a decision.
  }
}

/** Tells the observer of a cancelled node; never throws. */
export function observeNode(make: () => NodeCancel): void {
  if (current === undefined) return;
  try {
    current.node(make());
  } catch {
    // Observation never changes a decision.
  }
}

/**
 * Tells the observer of an allowed call and runs its tool inside the observer's context (or just runs it, without
 * an observer). The observer cannot change the call: `run` runs exactly once, and its result or error is the call's.
 *
 * @param make - the decision, built only when an observer is set
 * @param run - the tool's run
 */
export function observeAllowedRun<T>(make: () => ToolDecision, run: () => T): T {
  const observer = current;
  if (observer === undefined) return run();
  let decision: ToolDecision | undefined;
  try {
    decision = make();
    observer.tool(decision);
  } catch {
    // Observation never changes a decision.
  }
  // A decision that could not be built, or an observer that does not run calls: the call just runs.
  if (decision === undefined || observer.allowedRun === undefined) return run();
  let ran = false;
  const once = (): T => {
    if (ran) throw new Error('gate-audit: an observer ran an allowed call twice');
    ran = true;
    return run();
  };
  let result: T;
  try {
    result = observer.allowedRun(decision, once);
  } catch (error) {
    // An observer that failed before running the call: the call runs as if unobserved.
    if (!ran) return run();
    throw error;
  }
  // An observer that returned without running the call cannot answer for it: the call runs.
  return ran ? result : run();
}
