/**
 * Canonical forms of a tool input: the frozen copy a gate judges and a tool runs with, and the digest that
 * seals it.
 */

import { hash } from 'node:crypto';

/**
 * The SHA-256 of a text (UTF-8), in lower-case hex: the one digest of the decision log's chains, the
 * fleet log's records and writers, input digests and policy ids.
 *
 * @param text - the exact text that was hashed (and is stored, where it is verified later)
 */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

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

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A stable text form of a JSON-like value: object keys sorted, own enumerable keys only (so `__proto__`
 * is just a key), `-0` written apart from `0`, a present `undefined` apart from a missing key. Anything
 * that is not plain JSON-like data (a class instance, a Map, a Date, a function, a hole in an array, a
 * cycle, a non-finite number) throws, which callers treat as a refusal: two inputs that differ can never
 * share one form.
 */
export function canonicalJson(value: unknown): string {
  const seen = new Set<object>();
  const encode = (v: unknown): string => {
    if (v === null || typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v);
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new TypeError(`input holds a non-finite number (${v})`);
      return Object.is(v, -0) ? '-0' : JSON.stringify(v);
    }
    if (v === undefined) return 'undefined';
    if (typeof v !== 'object') throw new TypeError(`input holds a ${typeof v}`);
    if (seen.has(v)) throw new TypeError('input is cyclic');
    seen.add(v);
    let body: string;
    if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype) throw new TypeError('input holds an array subclass');
      const items: string[] = [];
      for (let i = 0; i < v.length; i += 1) {
        if (!Object.hasOwn(v, i)) throw new TypeError('input holds an array with holes');
        items.push(encode(v[i]));
      }
      body = `[${items.join(',')}]`;
    } else {
      if (!isPlainObject(v)) throw new TypeError('input holds an object that is not plain data');
      body = `{${Object.keys(v)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${encode((v as Record<string, unknown>)[k])}`)
        .join(',')}}`;
    }
    seen.delete(v);
    return body;
  };
  return encode(value);
}

/** Freezes a plain value and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** A tool input taken once: a deep-frozen copy and its canonical form. */
export interface InputSnapshot {
  /** The copy the gate judges and the tool runs with; nobody can change it. */
  readonly frozen: unknown;
  /** `canonicalJson(frozen)`: what a later input is compared with. */
  readonly canonical: string;
}

/**
 * Takes a tool input once: copies it the way the SDK copies an input before running a tool (a JSON round
 * trip, without the SDK's background marker: `-0` becomes `0`, `undefined` members and functions vanish,
 * a getter is read once), freezes the copy deeply and writes its canonical form. The copy is what the gate
 * judges and what the tool runs with, so what runs is exactly what was judged. Throws when the input
 * cannot be copied (a refusal for the caller).
 *
 * @param input - the live input
 */
export function snapshotInput(input: unknown): InputSnapshot {
  const text = JSON.stringify(withoutMarker(input));
  const frozen: unknown = deepFreeze(text === undefined ? undefined : JSON.parse(text));
  return { frozen, canonical: canonicalJson(frozen) };
}

/**
 * The canonical form of an input as it reaches the execution check (the SDK copied it already), to compare
 * with a snapshot's. Throws when it cannot be written.
 *
 * @param input - the input the execution check sees
 */
export function canonicalInput(input: unknown): string {
  return canonicalJson(withoutMarker(input));
}
