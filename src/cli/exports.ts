/**
 * Reading what a module exports without running code it did not ask to run:
 *
 * - the module's exports are read from its record, never awaited or resolved as a value (a `then` export
 *   stays a plain export);
 * - each top-level export binding is read once, as an `import` would read it (a barrel's re-export accessor
 *   included); below the top level no accessor is called;
 * - no Proxy trap runs: a value, or any prototype in its chain, that is a Proxy is named, not looked into;
 * - `Symbol.toPrimitive`, `toString` and `valueOf` are never called on an export (keys are shown as data).
 *
 * Orchestrators reachable through plain data (own enumerable data properties of plain objects, arrays, Map
 * values and Set members, up to depth 4) are found with their export path (`config.graphs[0]`,
 * `registry["billing"]`); an SDK object the walk cannot reach (deeper, or behind a non-plain object) is
 * reported with the reason, so it is listed as not audited.
 */
import { types } from 'node:util';

// Taken when gate-audit loads, before any module it audits runs: the audited code can replace `util.types`,
// `Object` and the Map and Set prototypes, not these bindings.
const isProxy = types.isProxy;
const isMap = types.isMap;
const isSet = types.isSet;
const getPrototypeOf = Object.getPrototypeOf;
const ownDescriptor = Object.getOwnPropertyDescriptor;
const ownKeys = Object.keys;
const ownNames = Object.getOwnPropertyNames;
const isArray = Array.isArray;
const mapEntries = Object.getOwnPropertyDescriptor(Map.prototype, 'entries')?.value as unknown as () => unknown;
const setValues = Object.getOwnPropertyDescriptor(Set.prototype, 'values')?.value as unknown as () => unknown;
const apply = Reflect.apply;

/** How deep plain data is followed below an export (the export itself is depth 0). */
export const PLAIN_DATA_DEPTH = 4;

/** How many values one export's search for unreachable SDK objects reads at most. */
const SEARCH_BUDGET = 5_000;

/** A value found under an export. */
export interface ExportedValue {
  /** The top-level export name. */
  readonly name: string;
  /** The export path: the name, then `.key`, `["key"]`, `[i]` for each step into plain data. */
  readonly path: string;
  readonly value: unknown;
  /** Depth below the export (0: the export itself). */
  readonly depth: number;
}

/** An SDK object under an export that the walk does not reach. */
export interface Unreachable {
  readonly name: string;
  readonly path: string;
  /** Why it is not reached. */
  readonly reason: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function keyStep(key: string): string {
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function isObjectLike(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/** Whether a value or any prototype of it is a Proxy (checked link by link, no trap runs). */
export function hasProxyInChain(value: unknown): boolean {
  if (!isObjectLike(value)) return false;
  let at: unknown = value;
  for (let depth = 0; depth < 64 && isObjectLike(at); depth += 1) {
    if (isProxy(at)) return true;
    at = getPrototypeOf(at);
  }
  return false;
}

/** Whether a value is plain data to follow: a plain object (prototype `Object.prototype` or null), an array, a Map or a Set. */
function containerKind(value: unknown): 'object' | 'array' | 'map' | 'set' | undefined {
  if (typeof value !== 'object' || value === null || hasProxyInChain(value)) return undefined;
  if (isArray(value)) return 'array';
  if (isMap(value)) return 'map';
  if (isSet(value)) return 'set';
  const proto: unknown = getPrototypeOf(value);
  return proto === Object.prototype || proto === null ? 'object' : undefined;
}

/** The children of a plain container: own enumerable data properties, array items, Map values, Set members. */
function childrenOf(value: object, kind: 'object' | 'array' | 'map' | 'set'): { step: string; value: unknown }[] {
  const out: { step: string; value: unknown }[] = [];
  if (kind === 'map') {
    let i = 0;
    for (const [key, item] of apply(mapEntries, value, []) as Iterable<[unknown, unknown]>) {
      const step =
        typeof key === 'string' ? `[${JSON.stringify(key)}]` : typeof key === 'number' ? `[${key}]` : `[entry ${i}]`;
      out.push({ step, value: item });
      i += 1;
    }
    return out;
  }
  if (kind === 'set') {
    let i = 0;
    for (const item of apply(setValues, value, []) as Iterable<unknown>) out.push({ step: `[${i++}]`, value: item });
    return out;
  }
  for (const key of ownKeys(value)) {
    const descriptor = ownDescriptor(value, key);
    if (descriptor === undefined || !('value' in descriptor)) continue;
    out.push({ step: kind === 'array' && /^\d+$/.test(key) ? `[${key}]` : keyStep(key), value: descriptor.value });
  }
  return out;
}

/**
 * The values under one export: the export itself, then what plain data holds, down to `PLAIN_DATA_DEPTH`.
 * `isSdkObject` names the values the walk audits (they are not looked into).
 *
 * @param name - the export name
 * @param value - the export's value (already read once)
 * @param isSdkObject - whether a value is a Graph, Swarm or Agent
 */
export function valuesUnder(
  name: string,
  value: unknown,
  isSdkObject: (value: unknown) => boolean,
): { found: ExportedValue[]; unreachable: Unreachable[] } {
  const found: ExportedValue[] = [{ name, path: name, value, depth: 0 }];
  const unreachable: Unreachable[] = [];
  const seen = new Set<unknown>([value]);
  let budget = SEARCH_BUDGET;
  // Objects read, not primitives: a list of strings costs nothing. When the budget runs out the export is
  // listed as not fully read, never passed over in silence.
  const spend = (path: string): boolean => {
    budget -= 1;
    if (budget === 0) {
      unreachable.push({
        name,
        path,
        reason: `holds more than ${SEARCH_BUDGET} objects, more than gate-audit reads, so what lies beyond is not known`,
      });
    }
    return budget > 0;
  };
  const visit = (at: unknown, path: string, depth: number): void => {
    if (isSdkObject(at) || budget <= 0) return;
    const kind = containerKind(at);
    if (kind === undefined || typeof at !== 'object' || at === null) {
      if (isObjectLike(at) && typeof at !== 'function' && !hasProxyInChain(at))
        search(at, path, 'is held by an object that is not plain data');
      return;
    }
    for (const child of childrenOf(at, kind)) {
      if (!isObjectLike(child.value) || seen.has(child.value)) continue;
      if (!spend(path)) return;
      seen.add(child.value);
      const childPath = `${path}${child.step}`;
      if (hasProxyInChain(child.value)) continue;
      if (depth + 1 > PLAIN_DATA_DEPTH) {
        if (isSdkObject(child.value)) {
          unreachable.push({
            name,
            path: childPath,
            reason: `lies deeper than ${PLAIN_DATA_DEPTH} steps into the export`,
          });
        } else search(child.value, childPath, `lies deeper than ${PLAIN_DATA_DEPTH} steps into the export`);
        continue;
      }
      if (isSdkObject(child.value)) {
        found.push({ name, path: childPath, value: child.value, depth: depth + 1 });
        continue;
      }
      visit(child.value, childPath, depth + 1);
    }
  };
  // Beyond plain data: look (own data properties only, no accessor, no Proxy) for SDK objects the walk
  // will not audit, only to say so.
  const search = (start: object, path: string, reason: string): void => {
    const queue: { at: object; path: string }[] = [{ at: start, path }];
    while (queue.length > 0 && budget > 0) {
      const { at, path: here } = queue.shift()!;
      let keys: string[];
      try {
        keys = isMap(at) || isSet(at) ? [] : ownNames(at);
      } catch {
        continue;
      }
      const items: { step: string; value: unknown }[] = [];
      for (const key of keys) {
        const descriptor = Object.getOwnPropertyDescriptor(at, key);
        if (descriptor !== undefined && 'value' in descriptor)
          items.push({ step: keyStep(key), value: descriptor.value });
      }
      if (isMap(at) || isSet(at)) items.push(...childrenOf(at, isMap(at) ? 'map' : 'set'));
      for (const item of items) {
        if (!isObjectLike(item.value) || seen.has(item.value) || hasProxyInChain(item.value)) continue;
        if (!spend(here)) return;
        seen.add(item.value);
        const itemPath = `${here}${item.step}`;
        if (isSdkObject(item.value)) {
          unreachable.push({ name, path: itemPath, reason });
          continue;
        }
        if (typeof item.value === 'object') queue.push({ at: item.value, path: itemPath });
      }
    }
  };
  if (!isSdkObject(value) && typeof value === 'object' && value !== null && !hasProxyInChain(value)) {
    visit(value, name, 0);
  }
  return { found, unreachable };
}

/**
 * Reads each top-level export once, as an `import` would: a data property's value, or an accessor's (a
 * barrel's re-export) called once. An accessor that throws reads as the error it threw.
 *
 * @param exports - the module's exports object (its record, never awaited)
 */
export function readExports(exports: object): { name: string; value: unknown; error?: unknown }[] {
  const out: { name: string; value: unknown; error?: unknown }[] = [];
  for (const name of ownKeys(exports)) {
    const descriptor = ownDescriptor(exports, name);
    if (descriptor === undefined) continue;
    if ('value' in descriptor) {
      out.push({ name, value: descriptor.value });
      continue;
    }
    try {
      out.push({ name, value: descriptor.get === undefined ? undefined : descriptor.get.call(exports) });
    } catch (error) {
      out.push({ name, value: undefined, error });
    }
  }
  return out;
}
