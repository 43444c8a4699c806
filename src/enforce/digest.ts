/**
 * Canonical forms of a tool input: the copy a gate judges and the digest that seals it.
 */

/** Input key the SDK adds to agentic background calls; it is stripped before the tool runs. */
export const BACKGROUND_MARKER = '_background_execution';

/** Removes the SDK's background-task marker from a top-level input object (without changing the input). */
export function withoutMarker(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input) || !Object.hasOwn(input, BACKGROUND_MARKER)) {
    return input;
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(input)) {
    if (key !== BACKGROUND_MARKER) copy[key] = (input as Record<string, unknown>)[key];
  }
  return copy;
}

/**
 * A stable text form of a JSON-like value: object keys sorted, own enumerable keys only (so `__proto__`
 * is just a key). Throws on cycles and values JSON cannot carry, which callers treat as a refusal.
 */
export function canonicalJson(value: unknown): string {
  const seen = new Set<object>();
  const encode = (v: unknown): string => {
    if (v === null || typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v);
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new TypeError(`input holds a non-finite number (${v})`);
      return JSON.stringify(v);
    }
    if (v === undefined) return 'undefined';
    if (typeof v !== 'object') throw new TypeError(`input holds a ${typeof v}`);
    if (seen.has(v)) throw new TypeError('input is cyclic');
    seen.add(v);
    const body = Array.isArray(v)
      ? `[${v.map(encode).join(',')}]`
      : `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${encode((v as Record<string, unknown>)[k])}`)
          .join(',')}}`;
    seen.delete(v);
    return body;
  };
  return encode(value);
}
