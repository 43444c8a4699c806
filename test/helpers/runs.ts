/**
 * Settling runs in tests: a run that may throw is awaited to its end, and the test reads what it threw (or
 * `undefined`) instead of wrapping every run in a try/catch.
 */
import type { Agent } from '@strands-agents/sdk';

/** Waits for `run` to settle: `undefined` if it resolved, the error if it rejected. */
export function settle(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** Waits for `run` to settle: what it resolved to, or the error if it rejected. */
export function settleValue(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    (value) => value,
    (error: unknown) => error,
  );
}

/** Invokes `agent` with `'go'` and waits for the run to settle: `undefined` if it finished, the error if it threw. */
export function settleRun(agent: Agent): Promise<unknown> {
  return settle(agent.invoke('go'));
}
