/**
 * Where a gate's decision records go: the local file log (`openDecisionLog`, whose `DecisionLog` is a sink) is one sink, a
 * `postgresStore` (one hash chain per writer, for a fleet of processes) is another.
 */
import type { GateRecord } from '../enforce/gate.js';
import { GateAuditError } from '../errors.js';
import { type DecisionLogOptions, openDecisionLog } from './decision-log.js';

/**
 * A destination for decision records. `append` may return a promise: the enforcement point waits for it
 * (within the gate's `timeoutMs`) before the call runs, and a failed or late append refuses the call and
 * stops the run. Nothing is dropped silently.
 */
export interface DecisionSink {
  /**
   * Writes one record; resolves once it is durable, rejects or throws when it is not.
   *
   * @param record - the record
   * @param gateName - the gate's name
   */
  append(record: GateRecord, gateName: string): void | Promise<void>;
}

/** Whether a value is a `DecisionSink` (it has an `append` method). */
export function isDecisionSink(value: unknown): value is DecisionSink {
  return typeof value === 'object' && value !== null && typeof (value as DecisionSink).append === 'function';
}

/**
 * The sink of a gate's `log` option: a sink as it is, or the file log its options open.
 *
 * @param log - a `DecisionSink` or `DecisionLogOptions`
 * @throws GateAuditError when the file log cannot be opened
 */
export function sinkOf(log: DecisionLogOptions | DecisionSink): DecisionSink {
  if (isDecisionSink(log)) return log;
  if (typeof log !== 'object' || log === null) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      'option=<log> | expected { destination } or a decision sink (e.g. postgresStore(...))',
    );
  }
  return openDecisionLog(log);
}
