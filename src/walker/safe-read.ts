/**
 * Safe reads of any object: an own data property read from its descriptor (no getter runs), a `Proxy` never looked
 * into (its traps could show gate-audit one object and the SDK another), plain arrays and maps told from look-alikes,
 * members an instance or a subclass shadows. Nothing here knows the SDK: its private fields are read in
 * `src/frameworks/strands/sdk-internals.ts`, on top of these. Nothing in this module mutates anything.
 */
import { types } from 'node:util';

/** Whether `value` is an object or a function (something that can hold properties). */
export function isObjectLike(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/** Whether `value` is a `Proxy` (whose traps could show gate-audit one object and the SDK another). */
export function isProxy(value: unknown): boolean {
  return isObjectLike(value) && types.isProxy(value);
}

/** A field read from its own property descriptor: its value, or why it could not be read as data. */
export type FieldRead =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly why: 'absent' | 'accessor' | 'proxy' | 'not-object' };

/**
 * Reads an own data property without running any code of the object: no getter, no Proxy trap.
 *
 * @param owner - the object
 * @param key - the property
 */
export function dataField(owner: unknown, key: PropertyKey): FieldRead {
  if (!isObjectLike(owner)) return { ok: false, why: 'not-object' };
  if (types.isProxy(owner)) return { ok: false, why: 'proxy' };
  const descriptor = Object.getOwnPropertyDescriptor(owner, key);
  if (descriptor === undefined) return { ok: false, why: 'absent' };
  if (!('value' in descriptor)) return { ok: false, why: 'accessor' };
  return { ok: true, value: descriptor.value as unknown };
}

/** An own data property's value, or undefined when it is absent, an accessor, or the owner a Proxy. */
export function readData(owner: unknown, key: PropertyKey): unknown {
  // `dataField` without its result object: this runs several times on every tool call.
  if (!isObjectLike(owner) || types.isProxy(owner)) return undefined;
  const descriptor = Object.getOwnPropertyDescriptor(owner, key);
  return descriptor !== undefined && 'value' in descriptor ? (descriptor.value as unknown) : undefined;
}

/**
 * An object's own fields as plain data, with its prototype first: `[prototype, key, value, key, value, …]`, or
 * undefined when it is a `Proxy` or an own field is an accessor (either could answer each read differently). A
 * value that is not an object reads as `[value]`. Two reads equal element by element (`sameShape`) show an object
 * whose prototype and own fields did not change in between (objects its fields point to may have).
 *
 * @param value - the object (a tool, at a decision and again at its execution)
 */
export function ownDataShape(value: unknown): readonly unknown[] | undefined {
  if (!isObjectLike(value)) return [value];
  if (types.isProxy(value)) return undefined;
  const shape: unknown[] = [Object.getPrototypeOf(value)];
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || !('value' in descriptor)) return undefined;
    shape.push(key, descriptor.value);
  }
  return shape;
}

/** Whether two `ownDataShape` reads are the same (an unreadable one is never the same as anything). */
export function sameShape(a: readonly unknown[] | undefined, b: readonly unknown[] | undefined): boolean {
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (!Object.is(a[i], b[i])) return false;
  return true;
}

/** Says in words why a field could not be read as plain data. */
export function describeFieldProblem(what: string, key: string, read: FieldRead): string | undefined {
  if (read.ok) return undefined;
  switch (read.why) {
    case 'accessor':
      return `${what}'s "${key}" is a getter, which could show gate-audit one value and the SDK another`;
    case 'proxy':
      return `${what} is a Proxy, whose traps could show gate-audit one object and the SDK another`;
    case 'absent':
      return `${what} has no "${key}"`;
    default:
      return `${what} is not an object`;
  }
}

/** Whether `value` is a plain array (not a Proxy, not a subclass). */
export function isPlainArray(value: unknown): value is readonly unknown[] {
  if (!Array.isArray(value) || types.isProxy(value) || Object.getPrototypeOf(value) !== Array.prototype) return false;
  // Own properties besides the items and `length` (an own `map` or `Symbol.iterator`) could show the SDK other
  // entries than gate-audit's reads see; an item that is a getter could answer each read differently.
  if (Reflect.ownKeys(value).length !== value.length + 1) return false;
  for (let i = 0; i < value.length; i += 1) {
    const descriptor = Object.getOwnPropertyDescriptor(value, i);
    if (descriptor === undefined || !('value' in descriptor)) return false;
  }
  return true;
}

/** Whether `value` is a plain `Map`: not a Proxy, not a subclass, no own properties (which could shadow `get`). */
export function isPlainMap(value: unknown): value is Map<unknown, unknown> {
  // A Proxy first: `instanceof` would run its `getPrototypeOf` trap.
  if (types.isProxy(value) || !(value instanceof Map) || Object.getPrototypeOf(value) !== Map.prototype) return false;
  return Reflect.ownKeys(value).length === 0;
}

const membersByPrototype = new WeakMap<object, ReadonlySet<PropertyKey>>();

/** Every member name of a prototype chain from `proto` up (not counting `Object.prototype`), except `constructor`. */
function membersOf(proto: object | null): ReadonlySet<PropertyKey> {
  if (proto === null || proto === Object.prototype) return new Set();
  const known = membersByPrototype.get(proto);
  if (known !== undefined) return known;
  const members = new Set<PropertyKey>(membersOf(Object.getPrototypeOf(proto) as object | null));
  for (const key of Reflect.ownKeys(proto)) if (key !== 'constructor') members.add(key);
  membersByPrototype.set(proto, members);
  return members;
}

/**
 * The first own property of `value` (string or symbol key, data or accessor) named like a member of the
 * prototype chain starting at `proto`: the SDK calls `this.x`, so an own `x` replaces what runs.
 *
 * @param value - the instance
 * @param proto - where the members to protect start (usually the SDK class's prototype)
 * @param allowed - own keys a plain instance of the SDK class has by itself
 */
export function shadowedMember(
  value: object,
  proto: object,
  allowed: ReadonlySet<PropertyKey> = new Set(),
): PropertyKey | undefined {
  const members = membersOf(proto);
  for (const key of Reflect.ownKeys(value)) {
    if (members.has(key) && !allowed.has(key)) return key;
  }
  return undefined;
}

/**
 * The first member of `base`'s chain that a prototype between `value` and `base` redefines, or undefined
 * when the subclass only adds new members (or there is no subclass).
 */
export function shadowingSubclassMember(value: object, base: object): PropertyKey | undefined {
  const members = membersOf(base);
  let proto = Object.getPrototypeOf(value) as object | null;
  while (proto !== null && proto !== base) {
    for (const key of Reflect.ownKeys(proto)) if (key !== 'constructor' && members.has(key)) return key;
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return undefined;
}

/** Whether `base` is on `value`'s prototype chain (read without `instanceof`, which a Proxy can answer). */
export function inheritsFrom(value: unknown, base: object): boolean {
  if (!isObjectLike(value) || types.isProxy(value)) return false;
  let proto = Object.getPrototypeOf(value) as object | null;
  while (proto !== null) {
    if (proto === base) return true;
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return false;
}

/** The class name of a value, for messages and duck-typed recognition across SDK copies. */
export function className(value: unknown): string {
  if (!isObjectLike(value)) return typeof value;
  if (types.isProxy(value)) return 'Proxy';
  const ctor = readData(Object.getPrototypeOf(value), 'constructor');
  const name = typeof ctor === 'function' ? ctor.name : '';
  return name === '' ? 'Object' : name;
}

/**
 * The objects a value holds where the walker can see them without running any of its code: its own data
 * properties (no getter is called), and the values of a plain `Map` or `Set` (read through the built-in
 * methods, not the object's own). Nothing for a Proxy, whose traps would run.
 *
 * @param owner - a node, an executor or an object one of them holds
 */
export function heldObjects(owner: unknown): object[] {
  if (!isObjectLike(owner) || types.isProxy(owner)) return [];
  const held: object[] = [];
  for (const key of Reflect.ownKeys(owner)) {
    const descriptor = Object.getOwnPropertyDescriptor(owner, key);
    if (descriptor !== undefined && 'value' in descriptor && isObjectLike(descriptor.value))
      held.push(descriptor.value);
  }
  if (types.isMap(owner)) {
    Map.prototype.forEach.call(owner, (value: unknown) => {
      if (isObjectLike(value)) held.push(value);
    });
  } else if (types.isSet(owner)) {
    Set.prototype.forEach.call(owner, (value: unknown) => {
      if (isObjectLike(value)) held.push(value);
    });
  }
  return held;
}
