/**
 * What gate-audit knows about a run while it runs: whether the root invocation was stopped by a gate
 * failure, and where an agent really runs.
 *
 * **The root invocation.** The SDK threads one `invocationState` object through a whole run: a Graph or
 * Swarm hands it to every node, a nested orchestrator and an agent used as a tool get the same object.
 * gate-audit keys its own state by that object's identity (in a `WeakMap`, never inside the object,
 * which tools can edit). A stop is never lifted: a later run that uses the same object (a caller may pass it
 * again) is stopped too.
 *
 * **Where an agent runs.** An agent can sit at several places (a node here, a tool there). When an agent
 * is called as a tool, the caller's execution check runs the call inside an `AsyncLocalStorage` store
 * naming the agent and the places it is called at; only wrapping the run sets a store (never
 * `enterWith`, which would leak into concurrent siblings). Everywhere else the agent's known places are
 * all the places the walk found it at.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Agent } from '@strands-agents/sdk';

interface RootRun {
  failure: string | undefined;
}

const runs = new WeakMap<object, RootRun>();

/**
 * Why a run whose `invocationState` is a string, number or other primitive is refused: the SDK threads whatever
 * the caller passes (`invoke(input, { invocationState })`), and a primitive cannot key the run's state, so a gate
 * failure could not stop it. Such a run is stopped from the start.
 */
export const UNTRACKABLE_RUN =
  'the run was given an invocationState that is not an object (pass an object, or none), so gate-audit cannot keep its state';

function keyOf(invocationState: unknown): object | undefined {
  return (typeof invocationState === 'object' && invocationState !== null) || typeof invocationState === 'function'
    ? invocationState
    : undefined;
}

/** A primitive the run cannot be keyed by (undefined, no state at all, is left alone: the SDK never passes it). */
function untrackable(invocationState: unknown): boolean {
  return invocationState !== undefined && keyOf(invocationState) === undefined;
}

/**
 * Stops the whole root run after a gate failure: every further tool call is refused, every node guard
 * cancels, and every gated agent of the run ends with an error. The first reason is kept.
 *
 * @param invocationState - the run's `invocationState`
 * @param reason - what failed
 */
export function stopRun(invocationState: unknown, reason: string): void {
  const key = keyOf(invocationState);
  if (key === undefined) return;
  const run = runs.get(key);
  if (run === undefined) runs.set(key, { failure: reason });
  else run.failure ??= reason;
}

/**
 * Makes `other` part of the run of `invocationState`: from now on a stop of either is a stop of both (an
 * agent-stream middleware may hand an agent's loop another object than its invocation's). A stop either had
 * already is kept. Where either is a primitive, the other is stopped (see `UNTRACKABLE_RUN`).
 *
 * @param invocationState - the run's `invocationState`
 * @param other - the object its loop runs under
 */
export function joinRun(invocationState: unknown, other: unknown): void {
  const key = keyOf(invocationState);
  const otherKey = keyOf(other);
  if (key === undefined || otherKey === undefined) {
    // A primitive can be neither joined nor stopped: the side that is an object is stopped instead.
    if (untrackable(invocationState) || untrackable(other)) {
      stopRun(invocationState, UNTRACKABLE_RUN);
      stopRun(other, UNTRACKABLE_RUN);
    }
    return;
  }
  let run = runs.get(key);
  if (run === undefined) {
    run = { failure: undefined };
    runs.set(key, run);
  }
  const joined = runs.get(otherKey);
  if (joined === run) return;
  run.failure ??= joined?.failure;
  runs.set(otherKey, run);
}

/**
 * Why the run was stopped, or undefined while it was not.
 *
 * @param invocationState - the run's `invocationState`
 */
export function runFailure(invocationState: unknown): string | undefined {
  if (untrackable(invocationState)) return UNTRACKABLE_RUN;
  const key = keyOf(invocationState);
  return key === undefined ? undefined : runs.get(key)?.failure;
}

/** The places an agent is being called at as a tool, set around the call by the caller's execution check. */
export interface CalledAt {
  /** The agent that is called. */
  readonly agent: Agent;
  /** Every place it is being called at (one when the caller's own place is known). */
  readonly paths: readonly (readonly string[])[];
}

const calledAt = new AsyncLocalStorage<CalledAt>();

/**
 * Runs one step of an agent-as-tool call with the callee's places in context.
 *
 * @param store - the callee and its places
 * @param step - the step (e.g. the inner generator's `next()`)
 */
export function runCalledAt<T>(store: CalledAt, step: () => T): T {
  return calledAt.run(store, step);
}

/** The places an agent is called at right now, when a caller's execution check says so. */
export function currentCall(agent: Agent): CalledAt | undefined {
  const store = calledAt.getStore();
  return store !== undefined && store.agent === agent ? store : undefined;
}

const knownPlaces = new WeakMap<Agent, (readonly string[])[]>();
const overflowing = new WeakSet<Agent>();

/** How many places one agent may have before its place counts as unknown. */
const MAX_KNOWN_PLACES = 64;

/**
 * Records places where an agent was found by a walk (several installs add up).
 *
 * @param agent - the agent
 * @param paths - its places in one tree; an empty list means "too many to list" and makes it unknown
 */
export function addPlaces(agent: Agent, paths: readonly (readonly string[])[]): void {
  if (paths.length === 0) {
    overflowing.add(agent);
    return;
  }
  const list = knownPlaces.get(agent) ?? [];
  for (const path of paths) {
    const key = JSON.stringify(path);
    if (!list.some((p) => JSON.stringify(p) === key)) list.push([...path]);
  }
  if (list.length > MAX_KNOWN_PLACES) overflowing.add(agent);
  knownPlaces.set(agent, list);
}

/** Every place known for an agent; empty when none is known (or too many to be meaningful). */
export function placesOf(agent: Agent): readonly (readonly string[])[] {
  if (overflowing.has(agent)) return [];
  return knownPlaces.get(agent) ?? [];
}
