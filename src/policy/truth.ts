/**
 * Three-valued truth for conditions on values the policy cannot always know exactly (a shell word that is
 * a glob, a relative path without `cwd`, an argument of the wrong type). `maybe` holds for `deny` and
 * `ask` rules and never for `allow` rules: prove allow, assume deny.
 */

/** `no`, `maybe` or `yes`, ordered so that `Math.min` is AND and `Math.max` is OR. */
export type Truth = 0 | 1 | 2;

/** Does not hold. */
export const NO: Truth = 0;
/** May hold: not known exactly. */
export const MAYBE: Truth = 1;
/** Holds. */
export const YES: Truth = 2;

/** `yes` or `no` from a boolean. */
export function truth(value: boolean): Truth {
  return value ? YES : NO;
}

/** Three-valued AND. */
export function and(a: Truth, b: Truth): Truth {
  return a < b ? a : b;
}

/** Three-valued OR. */
export function or(a: Truth, b: Truth): Truth {
  return a > b ? a : b;
}

/** Three-valued NOT. */
export function not(a: Truth): Truth {
  return (2 - a) as Truth;
}

/**
 * Whether a condition counts for a rule of this verdict: `yes` always, `maybe` for deny and ask only.
 *
 * @param value - the condition's truth
 * @param allow - whether the rule allows
 */
export function holds(value: Truth, allow: boolean): boolean {
  return value === YES || (value === MAYBE && !allow);
}
