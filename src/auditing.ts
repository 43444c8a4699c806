/**
 * Whether this process is an audit child: `gate-audit` loads users' modules and entry points with
 * `GATE_AUDIT_AUDITING=1` set. While it is set, gate-audit's own sinks (the file decision log, the PostgreSQL
 * store) open no file and no connection, and a sink asked to record refuses the call as a failing
 * destination does: an audit records nothing, and never drops a record silently.
 */

import { AUDIT_GUARD_NOTE, AUDIT_KEYRING_NOTE, AUDITING_MARK } from './walker/marks.js';

/** The environment variable of an audit. */
export const AUDITING_ENV = 'GATE_AUDIT_AUDITING';

/**
 * The mark the audit child's preload sets on `globalThis` before any user code runs (not writable, not
 * configurable): an app that resets `process.env` cannot turn auditing off.
 */
export { AUDITING_MARK };

/** Whether this process is auditing (its sinks record nothing). */
export function isAuditing(): boolean {
  return (
    process.env[AUDITING_ENV] === '1' || Object.getOwnPropertyDescriptor(globalThis, AUDITING_MARK)?.value === true
  );
}

/** The reason a sink gives for refusing to record while auditing. */
export const AUDITING_REFUSAL =
  'gate-audit is auditing this process (GATE_AUDIT_AUDITING=1): its decision log and stores record nothing, so the call is refused';

/**
 * Where the audit child's preload takes note of a process guard started while auditing (a function on
 * `globalThis` that cannot be replaced): the report says whether the entry started the guard, from this note,
 * never from a mark any code could write.
 */
export { AUDIT_GUARD_NOTE };

/**
 * Where the audit child's preload takes note of a gate built with `allowWritableKeyring: true` (the keyring
 * file it names): the report carries a `writable-keyring` note for it.
 */
export { AUDIT_KEYRING_NOTE };
