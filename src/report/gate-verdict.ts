/**
 * The verdict of a gated place, shared by every framework's report: the gate a gate key resolves to now, read
 * the way every call reads it, with its identity; a configured gate that is unset now, or a gate that cannot be
 * read, refuses every call (`blocked`).
 */
import { configuredDefaultGate } from '../enforce/gate.js';
import { gateIdentity, viewGate } from '../enforce/gate-identity.js';
import type { CoverageNode, NodeStatus } from './schema.js';

/** A node's status, why, how to fix it, and its gate. */
export interface Verdict {
  status: NodeStatus;
  reason: string;
  fix?: string;
  problem?: string;
  gate?: CoverageNode['gate'];
}

/**
 * The gate a gate key resolves to now: the gate object itself, or the configured gate (maybe none). Read only
 * through `viewGate`, as every call reads it (a member that throws when read is a broken gate).
 */
function gateOfKey(key: unknown): { gate: object | undefined; configured: boolean } {
  if (key === 'configured') return { gate: configuredDefaultGate(), configured: true };
  return { gate: typeof key === 'object' && key !== null ? key : undefined, configured: false };
}

/** A gated agent's verdict, with the identity of its gate; a configured gate that is unset now refuses every call. */
export function gatedVerdict(key: unknown, how: string): Verdict {
  const { gate, configured } = gateOfKey(key);
  if (gate === undefined) {
    return {
      status: 'blocked',
      reason: configured
        ? `${how}, resolving the configured gate at each call, but no gate is configured now: every call is refused`
        : `${how}, but its gate cannot be read: every call is refused`,
      fix: 'configure a gate before the first run (configureGate), or give the agent its own gate',
    };
  }
  // Every call reads the gate this way and refuses one it cannot use (an id, record or approval of the wrong type).
  const view = viewGate(gate);
  if ('error' in view) {
    return {
      status: 'blocked',
      reason: `${how}, but ${view.error}: every call is refused`,
      fix: 'fix the gate: a non-empty string id (or none), a record() function (or none), an approval object (or none)',
    };
  }
  const identity = gateIdentity(view);
  return {
    status: 'gated',
    reason: `${how}${configured ? ' (the configured gate, resolved at each call)' : ''}`,
    gate: {
      name: identity.name,
      id: identity.id,
      ...(identity.perProcess === true ? { perProcess: true } : {}),
      ...(configured ? { configured: true } : {}),
    },
  };
}
