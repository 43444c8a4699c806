/**
 * Where a gate comes from, checked before anything is gated: a fixed gate (validated the way every call reads
 * it) or the process-wide gate resolved at each call, with the decision timeout.
 */
import { GateAuditError, NoGateError } from '../errors.js';
import { configuredDefaultGate, type Gate, isGate } from './gate.js';
import { viewGate } from './gate-identity.js';

/** Where the gate comes from: a fixed gate, or the process-wide one resolved at each call. */
export interface GateSource {
  /** Name of the gate, or `configured`. */
  readonly name: string;
  /** What identifies the source for conflicts: the gate object, or `configured`. */
  readonly key: unknown;
  resolve(): Gate | undefined;
  /** How long an asynchronous decision (or record) may take, in milliseconds. */
  readonly timeoutMs: number;
}

/** How long an asynchronous gate decision may take by default, in milliseconds. */
export const DEFAULT_DECISION_TIMEOUT_MS = 30_000;

/** What a gate source is made from: `install`'s and `GatePlugin`'s options. */
export interface GateSourceOptions {
  readonly gate?: Gate;
  readonly timeoutMs?: number;
}

function decisionTimeout(options: GateSourceOptions | undefined, subject: string): number {
  const ms = options?.timeoutMs ?? DEFAULT_DECISION_TIMEOUT_MS;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `subject=<${subject}> | options.timeoutMs must be a positive number of milliseconds`,
    );
  }
  return ms;
}

/** The key of the process-wide gate in marks and conflicts. */
export const CONFIGURED = 'configured';

/**
 * Turns options into a gate source, or throws `NoGateError` when there is no gate at all.
 *
 * @param options - the caller's options
 * @param subject - what is being installed, for the error message
 */
export function gateSource(options: GateSourceOptions | undefined, subject: string): GateSource {
  const gate = options?.gate;
  const timeoutMs = decisionTimeout(options, subject);
  if (gate !== undefined) {
    if (!isGate(gate)) {
      throw new GateAuditError(
        'INVALID_ARGUMENT',
        `subject=<${subject}> | options.gate is not a Gate | pass an object with a string name and a decide() method`,
      );
    }
    // Every call reads the gate this way and refuses one it cannot use: say so now, before gating anything.
    const view = viewGate(gate);
    if ('error' in view) {
      throw new GateAuditError(
        'INVALID_ARGUMENT',
        `subject=<${subject}> | options.gate is not a usable Gate: ${view.error} | ` +
          'give it a non-empty string id (or none), a record() function (or none) and an approval object (or none)',
      );
    }
    return { name: gate.name, key: gate, resolve: () => gate, timeoutMs };
  }
  if (configuredDefaultGate() === undefined) throw new NoGateError(subject);
  return { name: CONFIGURED, key: CONFIGURED, resolve: configuredDefaultGate, timeoutMs };
}
