/**
 * `gate-audit/vitest`: a `toBeFullyGated()` matcher. Import this module in a test (or a setup file) and
 * `expect(graph).toBeFullyGated()` fails listing every node that is not gated, with its path and fix.
 */
import { expect } from 'vitest';
import { audit, notGatedLines } from './report/audit.js';

/** The result vitest expects from a matcher. */
export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

/**
 * Passes when every node of the orchestrator (or agent) is gated.
 *
 * @param received - a Graph, a Swarm or an Agent
 */
export function toBeFullyGated(received: unknown): MatcherResult {
  const lines = notGatedLines(audit(received));
  return {
    pass: lines.length === 0,
    message: () =>
      lines.length === 0
        ? 'expected some node not to be gated, but every node is gated'
        : `expected every node to be gated:\n${lines.map((l) => `  - ${l}`).join('\n')}`,
  };
}

expect.extend({ toBeFullyGated });

declare module 'vitest' {
  // The type parameter must be declared exactly as vitest declares it for the interfaces to merge.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-unused-vars
  interface Matchers<T = any> {
    /** Passes when every node of the orchestrator is gated (see `assertFullyGated`). */
    toBeFullyGated(): void;
  }
}
