/**
 * The protocol by which a custom `Node` (or a custom `MultiAgent` executor) declares what it runs, so it
 * can be governed instead of refused. A pure method under `Symbol.for('gate-audit.governs.v1')` returns:
 *
 * ```ts
 * class ReviewNode extends Node {
 *   private readonly _reviewer = new Agent({ id: 'reviewer', tools: [...] });
 *   [GOVERNS](): GovernanceDeclaration {
 *     return { agents: [this._reviewer] }; // the agents handle() runs
 *   }
 * }
 * ```
 *
 * or `{ createsGatedAgents: true }` for a node that builds its agents per call, only with `gatedAgent()`.
 * The key uses `Symbol.for`, so a node declares itself without importing gate-audit's copy. `handle()` should pass
 * the node's `invocationState` on to the agents it invokes (`agent.invoke(input, { invocationState })`); one that
 * does not is still part of the run, since `installMultiagent` wraps a declaring node's run in the run context
 * (`src/enforce/node-run.ts`) and an agent started inside it joins the root run.
 */

import { messageOf } from '../errors.js';
import { GOVERNS } from './marks.js';

export { GOVERNS };

/** What a custom node or executor declares about what it runs. */
export interface GovernanceDeclaration {
  /** The Agents (or Graphs and Swarms) its `handle()`/`stream()` runs; they are gated and guarded like nodes. */
  readonly agents?: readonly unknown[];
  /** It creates further agents per call, only with `gatedAgent()` (declared, not provable: `attested`). */
  readonly createsGatedAgents?: boolean;
}

/** A declaration that was read and checked. */
export interface Declared {
  readonly agents: readonly unknown[];
  readonly createsGatedAgents: boolean;
}

/** How to declare, for messages about custom nodes. */
export const HOW_TO_DECLARE =
  `declare what it runs: a [Symbol.for('${GOVERNS.description ?? ''}')]() method returning { agents } ` +
  '(or { createsGatedAgents: true } when it builds them with gatedAgent())';

/**
 * Reads a value's declaration, when it has one.
 *
 * @returns undefined when there is none, the declaration, or what is wrong with it
 */
export function readDeclaration(value: unknown): Declared | { readonly error: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const method = (value as Record<symbol, unknown>)[GOVERNS];
  if (method === undefined) return undefined;
  if (typeof method !== 'function') return { error: 'its governance declaration is not a method' };
  let declared: unknown;
  try {
    declared = (method as () => unknown).call(value);
  } catch (error) {
    return { error: `its governance declaration threw: ${messageOf(error)}` };
  }
  if (typeof declared !== 'object' || declared === null)
    return { error: 'its governance declaration returned no object' };
  const { agents, createsGatedAgents } = declared as GovernanceDeclaration;
  if (agents !== undefined && !Array.isArray(agents)) return { error: 'its declared agents are not an array' };
  if (createsGatedAgents !== undefined && typeof createsGatedAgents !== 'boolean') {
    return { error: 'its createsGatedAgents is not a boolean' };
  }
  const list = agents ?? [];
  if (list.length === 0 && createsGatedAgents !== true) {
    return { error: 'its governance declaration names no agents and does not say it creates gated ones' };
  }
  return { agents: list, createsGatedAgents: createsGatedAgents === true };
}
