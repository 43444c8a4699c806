/**
 * What gate-audit knows about a run while it runs: whether the root invocation was stopped by a gate
 * failure, and where each part of it runs (the run context: the root run and the place).
 *
 * **The root invocation.** The SDK threads one `invocationState` object through a whole run: a Graph or
 * Swarm hands it to every node, a nested orchestrator and an agent used as a tool get the same object.
 * gate-audit keys its own state by that object's identity (in a `WeakMap`, never inside the object,
 * which tools can edit). A stop is never lifted: a later run that uses the same object (a caller may pass it
 * again) is stopped too. An agent run that starts with another object inside a governed custom node's run (a
 * node that invokes its agent without passing its `invocationState` on, or builds one per call) joins the root.
 *
 * **Where a call runs.** Where a call runs is read from the run it is part of, never from every place the
 * agent could sit at: an agent called as a tool runs inside an `AsyncLocalStorage` context set by the caller's
 * execution check around each step of the call, naming the agent and its places; a governed custom node's run
 * is wrapped the same way (`node-run.ts`), naming the root run and the node's places; an agent a node guard
 * let start as a node of a run has its places in the tree that run's root orchestrator was installed with.
 * Only wrapping a step sets a context (never `enterWith`, which would leak into concurrent siblings). Anywhere
 * else an agent has no known place.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Agent } from '@strands-agents/sdk';
import { segmentOf, UNNAMED } from '../tree-paths.js';

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
  const run = runOf(key);
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

/** Places, each a chain of escaped segments from the root of a tree. */
export type Places = readonly (readonly string[])[];

/**
 * Where a step of work runs: the root run it belongs to and its place there. Set only by wrapping each step of a
 * run (`runInContext`, `runSteps`), never with `enterWith`, which would leak into concurrent siblings.
 */
export interface RunContext {
  /** The root run's `invocationState`: an agent run that starts inside joins it (a custom node's run). */
  readonly root?: unknown;
  /**
   * The one agent the places are for (an agent called as a tool), or undefined for a governed custom node's run,
   * whose places hold for every agent started inside it.
   */
  readonly agent?: unknown;
  /** Every place the work may be at (empty when none is known). */
  readonly paths: Places;
}

/** The places an agent is being called at as a tool, set around the call by the caller's execution check. */
export interface CalledAt extends RunContext {
  /** The agent that is called. */
  readonly agent: Agent;
}

/** A context and the one it was entered in. */
interface Linked {
  readonly context: RunContext;
  readonly outer: Linked | undefined;
}

const contextStore = new AsyncLocalStorage<Linked>();

/** Each context's link to the one it was first entered in, so a context stepped many times allocates one link. */
const links = new WeakMap<RunContext, Linked>();

/**
 * Runs one step of work in a run context (the steps of one run pass the same context object).
 *
 * @param context - the root run and the place
 * @param step - the step (e.g. an inner generator's `next()`)
 */
export function runInContext<T>(context: RunContext, step: () => T): T {
  let link = links.get(context);
  if (link === undefined) {
    link = { context, outer: contextStore.getStore() };
    links.set(context, link);
  }
  return contextStore.run(link, step);
}

/**
 * Runs one step of an agent-as-tool call with the callee's places in context.
 *
 * @param store - the callee and its places
 * @param step - the step (e.g. the inner generator's `next()`)
 */
export function runCalledAt<T>(store: CalledAt, step: () => T): T {
  return runInContext(store, step);
}

/**
 * Runs an async generator step by step in a run context: everything its body starts (an agent run, a promise it
 * awaits) runs in the context, and nothing outside it does.
 *
 * @param context - the root run and the place
 * @param inner - the generator
 */
export async function* runSteps<T, R>(context: RunContext, inner: AsyncGenerator<T, R, unknown>): AsyncGenerator<T, R> {
  let done = false;
  try {
    let step = await runInContext(context, () => inner.next());
    while (step.done !== true) {
      let sent: unknown;
      try {
        sent = yield step.value;
      } catch (error) {
        step = await runInContext(context, () => inner.throw(error));
        continue;
      }
      step = await runInContext(context, () => inner.next(sent));
    }
    done = true;
    return step.value;
  } finally {
    if (!done) await runInContext(context, () => inner.return(undefined as R));
  }
}

/** The context of the agent-as-tool call of `agent` around this step, if any. */
function calledContext(agent: unknown): RunContext | undefined {
  for (let link = contextStore.getStore(); link !== undefined; link = link.outer) {
    if (link.context.agent === agent) return link.context;
  }
  return undefined;
}

/** The nearest governed custom node's run around this step, if any. */
function nodeContext(): RunContext | undefined {
  for (let link = contextStore.getStore(); link !== undefined; link = link.outer) {
    if (link.context.agent === undefined) return link.context;
  }
  return undefined;
}

/**
 * The places an agent is called at right now as a tool, when a caller's execution check says so.
 *
 * @param agent - the callee
 */
export function currentCall(agent: Agent): CalledAt | undefined {
  return calledContext(agent) as CalledAt | undefined;
}

/**
 * The root run of the governed custom node whose run this step is part of (its `invocationState`), or undefined
 * outside any. A run refused inside it (the process guard's refusal of an agent that carries no gate) stops it.
 */
export function contextRoot(): unknown {
  return nodeContext()?.root;
}

/** Where each agent (and each governed custom node) of a tree can run, from the root of one install. */
export type TreePlaces = ReadonlyMap<object, Places>;

/** The places of the tree each install root was gated with (the last install of that root). */
const treesOfRoots = new WeakMap<object, TreePlaces>();

/**
 * Records the places of a tree gated from `root` (`installMultiagent`): a run that `root` starts is a run of
 * this tree, and its agents run at their places in it.
 *
 * @param root - the root orchestrator of the install
 * @param places - every agent and governed custom node of the tree, with its places
 */
export function setTreePlaces(root: object, places: TreePlaces): void {
  treesOfRoots.set(root, places);
}

/** The tree each root run runs (set when its root orchestrator starts it), by the run's state. */
const treeOfRun = new WeakMap<RootRun, TreePlaces | undefined>();

/**
 * One start a node guard let happen: the node's places, and the governed custom node's run the guard ran in
 * (undefined at the top of the run). Only a start in that same context is that node: an agent a custom node
 * starts elsewhere meanwhile (a fan-out sibling sharing the agent) is not.
 */
interface ExpectedStart {
  readonly places: Places;
  readonly at: RunContext | undefined;
}

/** What an orchestrator's guard let start in a run and has not started yet: executor → each start. */
const expected = new WeakMap<RootRun, Map<object, ExpectedStart[]>>();

/** The run record of an `invocationState` object, made when it has none. */
function runOf(key: object): RootRun {
  let run = runs.get(key);
  if (run === undefined) {
    run = { failure: undefined };
    runs.set(key, run);
  }
  return run;
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((segment, i) => segment === b[i]);
}

/**
 * Notes that a node guard let `executor` (an agent, or a nested Graph or Swarm) start as node `nodeId` of
 * `orchestrator` in the run: its run that starts next in this run is that node, at the node's places in the run's
 * tree (none when the run's tree, or the node in it, is not known).
 *
 * @param invocationState - the run's `invocationState`
 * @param executor - what the node runs
 * @param orchestrator - the Graph or Swarm the node belongs to
 * @param nodeId - the node's id
 */
export function expectNode(invocationState: unknown, executor: unknown, orchestrator: object, nodeId: string): void {
  const key = keyOf(invocationState);
  if (key === undefined || typeof executor !== 'object' || executor === null) return;
  const run = runOf(key);
  const tree = treeOfRun.get(run);
  const segment = segmentOf(nodeId, UNNAMED);
  const known = tree?.get(executor) ?? [];
  const places = (tree?.get(orchestrator) ?? [])
    .map((place) => [...place, segment])
    .filter((place) => known.some((other) => samePath(place, other)));
  const pending = expected.get(run) ?? new Map<object, ExpectedStart[]>();
  pending.set(executor, [...(pending.get(executor) ?? []), { places, at: nodeContext() }]);
  expected.set(run, pending);
}

/**
 * Takes the first expected start of `executor` in the run made in the context this start happens in: its
 * places, or undefined when none was expected there.
 */
function takeExpected(invocationState: unknown, executor: object): Places | undefined {
  const key = keyOf(invocationState);
  const run = key === undefined ? undefined : runs.get(key);
  const pending = run === undefined ? undefined : expected.get(run);
  const starts = pending?.get(executor);
  if (pending === undefined || starts === undefined) return undefined;
  const here = nodeContext();
  const index = starts.findIndex((start) => start.at === here);
  if (index === -1) return undefined;
  const [taken] = starts.splice(index, 1);
  if (starts.length === 0) pending.delete(executor);
  return taken?.places;
}

/** The places of `target` in the tree the run runs, or none when the run's tree is not known. */
function placesInRun(invocationState: unknown, target: object): Places {
  const key = keyOf(invocationState);
  const run = key === undefined ? undefined : runs.get(key);
  return (run === undefined ? undefined : treeOfRun.get(run)?.get(target)) ?? [];
}

/**
 * An orchestrator starts an invocation (its first node call): a nested one (a node of the run, or started inside
 * a custom node's run or an agent-as-tool call) is part of the run around it; any other is the root of its run,
 * which runs the tree it was installed as the root of (none, when it is not the root of an install: then its
 * agents have no known place).
 *
 * @param invocationState - the invocation's `invocationState`
 * @param orchestrator - the Graph or Swarm
 */
export function enterOrchestratorRun(invocationState: unknown, orchestrator: object): void {
  const key = keyOf(invocationState);
  if (key === undefined) return;
  if (takeExpected(invocationState, orchestrator) !== undefined) return;
  const node = nodeContext();
  if (node !== undefined) {
    joinRun(node.root, invocationState);
    return;
  }
  if (contextStore.getStore() !== undefined) return;
  treeOfRun.set(runOf(key), treesOfRoots.get(orchestrator));
}

/**
 * The places of a governed custom node's run as it starts: the node's places in the run's tree when a node guard
 * let it start as a node of the run, else none (a run started by app code).
 *
 * @param invocationState - the run's `invocationState`
 * @param node - the custom node (or custom executor)
 */
export function startNodeRun(invocationState: unknown, node: object): Places {
  return takeExpected(invocationState, node) ?? [];
}

/** Where each gated agent's current invocation runs, set as it enters. */
const invocations = new WeakMap<Agent, Places>();

/** The places of `list` under one of `roots` (the node's), or undefined when none is. */
function under(list: Places, roots: Places): Places | undefined {
  const inside = list.filter((path) =>
    roots.some((root) => root.length < path.length && root.every((segment, i) => path[i] === segment)),
  );
  return inside.length > 0 ? inside : undefined;
}

/**
 * A gated agent enters an invocation: started inside a governed custom node's run it joins that root run, so a
 * failure anywhere in the root stops it and a failure in it stops the root. Its places for the invocation are
 * where it runs now: those its caller's execution check names for an agent-as-tool call; for a node a guard let
 * start in a run of its tree, its places in that tree; inside a custom node's run, its places under the node (the
 * node's own places for an agent the node builds); none anywhere else.
 *
 * @param agent - the agent
 * @param invocationState - its invocation's `invocationState`
 */
export function enterRun(agent: Agent, invocationState: unknown): void {
  const node = nodeContext();
  if (node !== undefined) joinRun(node.root, invocationState);
  let paths = calledContext(agent)?.paths ?? takeExpected(invocationState, agent);
  if (paths === undefined && node !== undefined) {
    paths = under(placesInRun(node.root, agent), node.paths) ?? node.paths;
  }
  invocations.set(agent, paths ?? []);
}

/**
 * A gated agent leaves its invocation: it has no place until it enters another.
 *
 * @param agent - the agent
 */
export function leaveRun(agent: Agent): void {
  invocations.delete(agent);
}

/**
 * Where a call of this agent runs now: the places an agent-as-tool call names, else those of the invocation it is
 * in (`enterRun`), else those of the custom node's run around it; none outside any known run.
 *
 * @param agent - the agent
 */
export function placeNow(agent: Agent): Places {
  return calledContext(agent)?.paths ?? invocations.get(agent) ?? nodeContext()?.paths ?? [];
}
