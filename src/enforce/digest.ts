/**
 * Canonical forms of a tool input: the frozen copy a gate judges and a tool runs with, and the digest that
 * seals it.
 */

import { hash } from 'node:crypto';
import { BACKGROUND_MARKER } from '../frameworks/strands/sdk-input.js';

/**
 * The SHA-256 of a text (UTF-8), in lower-case hex: the one digest of the decision log's chains, the
 * fleet log's records and writers, input digests and policy ids.
 *
 * @param text - the exact text that was hashed (and is stored, where it is verified later)
 */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

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
  return encodeCanonical(value, new Set<object>());
}

/** `canonicalJson` of one value; `open` holds the objects being written around it (a cycle's test). */
function encodeCanonical(v: unknown, open: Set<object>): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(v)) throw new TypeError(`input holds a non-finite number (${v})`);
      return Object.is(v, -0) ? '-0' : JSON.stringify(v);
    case 'undefined':
      return 'undefined';
    case 'object':
      if (v === null) return 'null';
      break;
    default:
      throw new TypeError(`input holds a ${typeof v}`);
  }
  if (open.has(v)) throw new TypeError('input is cyclic');
  open.add(v);
  let body: string;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) throw new TypeError('input holds an array subclass');
    body = '[';
    for (let i = 0; i < v.length; i += 1) {
      if (!Object.hasOwn(v, i)) throw new TypeError('input holds an array with holes');
      body += (i === 0 ? '' : ',') + encodeCanonical(v[i], open);
    }
    body += ']';
  } else {
    if (!isPlainObject(v)) throw new TypeError('input holds an object that is not plain data');
    const keys = Object.keys(v).sort();
    body = '{';
    for (let i = 0; i < keys.length; i += 1) {
      const key = keys[i]!;
      body += `${i === 0 ? '' : ','}${JSON.stringify(key)}:${encodeCanonical((v as Record<string, unknown>)[key], open)}`;
    }
    body += '}';
  }
  open.delete(v);
  return body;
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
  /** `canonicalJson(frozen)`: what a later input is compared with (written when first read). */
  readonly canonical: string;
  /** The JSON text the copy was parsed from (`undefined` for an input JSON cannot write). */
  readonly text: string | undefined;
}

/**
 * A snapshot whose canonical form is written when first asked for: most calls are compared by their JSON text
 * alone, and the copy never changes, so the form written later is the one it would have had at once.
 */
class Snapshot implements InputSnapshot {
  private _canonical: string | undefined;

  constructor(
    readonly frozen: unknown,
    readonly text: string | undefined,
  ) {}

  get canonical(): string {
    this._canonical ??= canonicalJson(this.frozen);
    return this._canonical;
  }
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
  return new Snapshot(frozen, text);
}

/**
 * Whether a live input would be taken as the same snapshot now: its copy has the snapshot's canonical form.
 * The same JSON text parses to the same copy, so an unchanged text answers without parsing; any other text
 * is copied and compared by canonical form (a reordering of keys is no change). Throws when the input
 * cannot be copied.
 *
 * @param input - the live input
 * @param snapshot - what it was taken as before
 */
export function sameInput(input: unknown, snapshot: InputSnapshot): boolean {
  const text = JSON.stringify(withoutMarker(input));
  if (text === snapshot.text) return true;
  return canonicalJson(text === undefined ? undefined : JSON.parse(text)) === snapshot.canonical;
}
