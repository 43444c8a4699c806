/**
 * The process guard's stand on LangGraph.js: each copy's `Pregel.prototype.stream` (which `invoke`,
 * `streamEvents` and a `createAgent` agent's runs go through; fixed in place) and `_streamIterator` (the run's start,
 * which every way of running a graph reaches: `transform` and a chain the graph is piped into too) are replaced by a
 * check that a graph starting a run carries one of the guard's gates: a root run, and a run started inside a gated run too (a
 * middleware hook or a tool of the tree invoking an agent of no tree). The subgraphs of a gated tree carry its gate.
 * A refusal inside a gated run stops that run as well, so it rejects whatever the code that invoked the graph does
 * with the error.
 */
import { GateFailedError } from '../../errors.js';
import { guardRunStartOf, judgeRootRuns, stopRunOf } from './runtime.js';

/** Decides a graph about to start a run: why it must not run, or undefined. */
export type GraphStartJudge = (graph: object) => string | undefined;

const guarded = new WeakSet<object>();

/**
 * Stands on one copy's `Pregel` class (once).
 *
 * @param cls - the copy's `Pregel` export
 * @param judgeStart - the guard's judgement of a graph starting a root run
 * @returns whether it stands (false when the class is not one)
 */
export function guardPregel(cls: unknown, judgeStart: GraphStartJudge): boolean {
  if (typeof cls !== 'function') return false;
  // A gated graph's own `stream` asks the same judge when it starts a root run.
  judgeRootRuns(judgeStart);
  const proto: unknown = Object.getOwnPropertyDescriptor(cls, 'prototype')?.value;
  if (typeof proto !== 'object' || proto === null) return false;
  if (guarded.has(proto)) return true;
  const descriptor = Object.getOwnPropertyDescriptor(proto, 'stream');
  const original: unknown = descriptor?.value;
  if (typeof original !== 'function') return false;
  // The run's start itself: `transform`, and a chain the graph is piped into, reach `_streamIterator` but no `stream`.
  if (!guardRunStartOf(proto)) return false;
  const stream = function stream(this: object, input: unknown, config?: unknown): Promise<unknown> {
    const refusal = judgeStart(this);
    // A graph gated here (onUngated: 'install') starts its run in its class's `_streamIterator`, as any.
    if (refusal !== undefined) {
      stopRunOf(config, refusal);
      return Promise.reject(new GateFailedError(refusal));
    }
    return (original as (input: unknown, config?: unknown) => Promise<unknown>).call(this, input, config);
  };
  Object.defineProperty(proto, 'stream', { value: stream, writable: false, enumerable: false, configurable: false });
  guarded.add(proto);
  return true;
}
