/**
 * `gate-audit/vitest`: a `toBeFullyGated()` matcher. Import this module in a test (or a setup file) and
 * `expect(graph).toBeFullyGated()` fails listing every node that fails the run under the one exit rule,
 * with its path and fix. `toBeFullyGated({ gate: 'name' })` also fails on any node gated by another gate,
 * or when two different gates share that name.
 */
import { expect } from 'vitest';
import { audit, notGatedLines, otherGateLines } from './report/audit.js';

/** The result vitest expects from a matcher. */
export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

/** Options of `toBeFullyGated`. */
export interface FullyGatedOptions {
  /** The name of the gate every gated node must carry. */
  readonly gate?: string;
}

/**
 * Passes when every node of the orchestrator (or agent) passes the one exit rule (and, with `gate`, is
 * gated by that gate).
 *
 * @param received - a Graph, a Swarm or an Agent
 * @param options - `{ gate }`: the gate every gated node must carry
 */
export function toBeFullyGated(received: unknown, options: FullyGatedOptions = {}): MatcherResult {
  const report = audit(received);
  const lines = [...notGatedLines(report), ...(options.gate === undefined ? [] : otherGateLines(report, options.gate))];
  return {
    pass: lines.length === 0,
    message: () =>
      lines.length === 0
        ? 'expected some node not to be gated, but every node is gated'
        : `expected every node to be gated${options.gate === undefined ? '' : ` by gate "${options.gate}"`}:\n${lines.map((l) => `  - ${l}`).join('\n')}`,
  };
}

expect.extend({ toBeFullyGated });

declare module 'vitest' {
  // The type parameter must be declared exactly as vitest declares it for the interfaces to merge.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-unused-vars
  interface Matchers<T = any> {
    /** Passes when every node of the orchestrator is gated (see `assertFullyGated`); `{ gate }` names the gate. */
    toBeFullyGated(options?: FullyGatedOptions): void;
  }
}
