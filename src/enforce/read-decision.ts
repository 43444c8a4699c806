/** Reading a gate's answer into a plain decision, framework-neutral. */
import { messageOf } from '../errors.js';

/** A gate's answer, each field read exactly once. */
export type ReadDecision =
  | { readonly verdict: 'allow'; readonly rule?: string }
  | { readonly verdict: 'deny' | 'ask'; readonly reason: string; readonly rule?: string }
  | { readonly error: string };

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  return typeof value;
}

/**
 * Reads a gate's answer into a plain decision, reading `verdict`, `reason` and `rule` once each: an
 * answer whose getters change between reads, or throw, cannot be judged twice differently.
 */
export function readDecision(value: unknown): ReadDecision {
  if (typeof value !== 'object' || value === null) return { error: `decision is ${describe(value)}, not an object` };
  let verdict: unknown;
  let reason: unknown;
  let rule: unknown;
  try {
    ({ verdict, reason, rule } = value as Record<string, unknown>);
  } catch (error) {
    return { error: `reading the decision threw: ${messageOf(error)}` };
  }
  if (rule !== undefined && typeof rule !== 'string') return { error: `decision rule is ${describe(rule)}` };
  const named = rule === undefined ? {} : { rule };
  if (verdict === 'allow') return { verdict, ...named };
  if (verdict === 'deny' || verdict === 'ask') {
    if (typeof reason !== 'string' || reason.trim() === '')
      return { error: `${verdict === 'ask' ? 'an' : 'a'} ${verdict} decision has no reason` };
    return { verdict, reason, ...named };
  }
  return { error: `decision verdict is ${describe(verdict)}` };
}
