/**
 * The run of a governed custom node, in the run context. A custom node (or a custom executor behind an
 * `AgentNode` or `MultiAgentNode`) that declares what it runs (`GOVERNS`) runs its agents itself, often with a
 * fresh `invocationState` (`this._agent.invoke(input)`, or an agent it builds per call with `gatedAgent()`). At
 * install its `stream` is wrapped by an own one (marked, undone by a rollback, read-only once the tree is locked,
 * and checked by the node guard before each run): each step of the run is taken inside a run context naming the
 * root run (the `invocationState` the orchestrator hands the node) and the node's places in that run's tree. An
 * agent run that starts inside it joins the root run (`enterRun`), so a gate failure anywhere stops all of it.
 */
import { GateAuditError } from '../errors.js';
import { NODE_RUN_MARK, type NodeRunMark, nodeRunMark, noteNodeRunMark } from '../walker/marks.js';
import { isProxy, readData } from '../walker/safe-read.js';
import { type RunContext, runInContext, runSteps, startNodeRun } from './run-state.js';

/**
 * Where the run's options are among `stream`'s arguments: a `Node`'s `stream(input, state, options)`, or a custom
 * executor's `stream(input, options)`.
 */
export type NodeRunKind = 'node' | 'executor';

/** The `stream` method a value runs with, read as data along its prototype chain (no getter is called). */
function streamMethod(target: object): { value: unknown } | { accessor: true } | undefined {
  for (let owner: unknown = target; owner !== null && typeof owner === 'object'; owner = Object.getPrototypeOf(owner)) {
    if (isProxy(owner)) return { accessor: true };
    const descriptor = Object.getOwnPropertyDescriptor(owner, 'stream');
    if (descriptor === undefined) continue;
    return 'value' in descriptor ? { value: descriptor.value as unknown } : { accessor: true };
  }
  return undefined;
}

/**
 * Why the run of a custom node or executor cannot be wrapped, or undefined when it can (or is already).
 *
 * @param target - the custom node or executor
 */
export function nodeRunProblem(target: unknown): string | undefined {
  if (typeof target !== 'object' || target === null || isProxy(target))
    return 'is not an object whose run can be wrapped';
  if (nodeRunMark(target) !== undefined) return undefined;
  if (!Object.isExtensible(target)) return 'is frozen or sealed, so its run cannot be wrapped';
  const own = Object.getOwnPropertyDescriptor(target, 'stream');
  if (own !== undefined && own.configurable !== true)
    return 'has a stream that cannot be redefined, so its run cannot be wrapped';
  const method = streamMethod(target);
  if (method === undefined || 'accessor' in method || typeof method.value !== 'function') {
    return 'has no stream method that can be read as data, so its run cannot be wrapped';
  }
  return undefined;
}

/**
 * The run a custom node or executor returned, as an async generator whose every step can be run in the run
 * context: an async generator as it is; any other iterator (an object with only `next` is all the SDK's
 * `AgentNode` calls) with its own `next`, and its `throw`/`return` where it has them; undefined for a value that
 * is no iterator (the SDK refuses it itself).
 */
function steppable(value: unknown): AsyncGenerator<unknown, unknown, unknown> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { next, throw: raise, return: end } = value as Record<string, unknown>;
  if (typeof next !== 'function') return undefined;
  if (typeof raise === 'function' && typeof end === 'function')
    return value as AsyncGenerator<unknown, unknown, unknown>;
  const step = next as (sent?: unknown) => unknown;
  const adapted = {
    next: async (sent?: unknown): Promise<IteratorResult<unknown, unknown>> =>
      (await step.call(value, sent)) as IteratorResult<unknown, unknown>,
    throw: async (error?: unknown): Promise<IteratorResult<unknown, unknown>> => {
      if (typeof raise === 'function') return (await raise.call(value, error)) as IteratorResult<unknown, unknown>;
      throw error;
    },
    return: async (result?: unknown): Promise<IteratorResult<unknown, unknown>> =>
      typeof end === 'function'
        ? ((await end.call(value, result)) as IteratorResult<unknown, unknown>)
        : { done: true, value: result },
    [Symbol.asyncIterator]() {
      return adapted;
    },
  };
  return adapted;
}

/**
 * Wraps the run of a governed custom node or executor in the run context, unless it is wrapped already.
 *
 * @param target - the custom node (`kind: 'node'`) or custom executor (`kind: 'executor'`)
 * @param kind - which `stream` signature it has
 * @returns what undoes it (nothing for one wrapped already)
 * @throws GateAuditError `INSTALL_FAILED` when it cannot be wrapped (`nodeRunProblem`)
 */
export function wrapNodeRun(target: object, kind: NodeRunKind): () => void {
  if (nodeRunMark(target) !== undefined) return () => undefined;
  const problem = nodeRunProblem(target);
  const method = streamMethod(target);
  if (problem !== undefined || method === undefined || !('value' in method) || typeof method.value !== 'function') {
    throw new GateAuditError(
      'INSTALL_FAILED',
      `node=<${String(readData(target, 'id'))}> | ${problem ?? 'has no stream'}`,
    );
  }
  const original = method.value as (...args: unknown[]) => unknown;
  const at = kind === 'node' ? 2 : 1;
  const stream = function stream(this: unknown, ...args: unknown[]): unknown {
    const options = args[at];
    const given = typeof options === 'object' && options !== null ? options : undefined;
    let invocationState = readData(given, 'invocationState');
    if (invocationState === undefined) {
      // A run handed no state (a direct call) gets one, as the SDK's Node would make: the node's agents join it.
      invocationState = {};
      args[at] = { ...given, invocationState };
    }
    const context: RunContext = { root: invocationState, paths: startNodeRun(invocationState, target) };
    const run = runInContext(context, () => original.apply(this, args));
    const steps = steppable(run);
    return steps === undefined ? run : runSteps(context, steps);
  };
  const own = Object.getOwnPropertyDescriptor(target, 'stream');
  const mark: NodeRunMark = Object.freeze({ stream });
  const restore = (): void => {
    if (own === undefined) delete (target as Record<string, unknown>).stream;
    else Object.defineProperty(target, 'stream', own);
  };
  Object.defineProperty(target, 'stream', { value: stream, writable: false, configurable: true, enumerable: false });
  try {
    Object.defineProperty(target, NODE_RUN_MARK, { value: mark, configurable: true, enumerable: false });
  } catch (error) {
    // The wrapper cannot be marked (the key is held, fixed in place): it is not left half-made.
    restore();
    throw error;
  }
  noteNodeRunMark(target, mark);
  return () => {
    if (nodeRunMark(target) !== mark) return;
    restore();
    delete (target as Record<symbol, unknown>)[NODE_RUN_MARK];
    noteNodeRunMark(target, undefined);
  };
}

/**
 * Why a governed custom node or executor must not run as it is, or undefined when its run is wrapped in the run
 * context (by this copy of gate-audit, and the wrapper is still its own `stream`).
 *
 * @param target - the custom node or executor about to run
 */
export function nodeRunRefusal(target: unknown): string | undefined {
  const mark = nodeRunMark(target);
  if (mark === undefined) {
    return (
      'is a governed custom node whose run was not wrapped at install (added or made to declare since), so the ' +
      'agents it starts would not join the run | call installMultiagent(orchestrator) after adding or changing custom nodes'
    );
  }
  if (readData(target, 'stream') !== mark.stream) {
    return "had the wrapper of its run replaced after install | do not redefine a governed custom node's stream";
  }
  return undefined;
}
