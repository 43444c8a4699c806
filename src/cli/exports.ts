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
    if (types.isProxy(at)) return true;
    at = Object.getPrototypeOf(at);
  }
  return false;
}

/** Whether a value is plain data to follow: a plain object (prototype `Object.prototype` or null), an array, a Map or a Set. */
function containerKind(value: unknown): 'object' | 'array' | 'map' | 'set' | undefined {
  if (typeof value !== 'object' || value === null || hasProxyInChain(value)) return undefined;
  if (Array.isArray(value)) return 'array';
  if (types.isMap(value)) return 'map';
  if (types.isSet(value)) return 'set';
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null ? 'object' : undefined;
}

/** The children of a plain container: own enumerable data properties, array items, Map values, Set members. */
function childrenOf(value: object, kind: 'object' | 'array' | 'map' | 'set'): { step: string; value: unknown }[] {
  const out: { step: string; value: unknown }[] = [];
  if (kind === 'map') {
    let i = 0;
    for (const [key, item] of Map.prototype.entries.call(value as Map<unknown, unknown>)) {
      const step =
        typeof key === 'string' ? `[${JSON.stringify(key)}]` : typeof key === 'number' ? `[${key}]` : `[entry ${i}]`;
      out.push({ step, value: item });
      i += 1;
    }
    return out;
  }
  if (kind === 'set') {
    let i = 0;
    for (const item of Set.prototype.values.call(value as Set<unknown>)) out.push({ step: `[${i++}]`, value: item });
    return out;
  }
  for (const key of Object.keys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
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
  const visit = (at: unknown, path: string, depth: number): void => {
    if (isSdkObject(at) || budget <= 0) return;
    const kind = containerKind(at);
    if (kind === undefined || typeof at !== 'object' || at === null) {
      if (isObjectLike(at) && typeof at !== 'function' && !hasProxyInChain(at))
        search(at, path, 'is held by an object that is not plain data');
      return;
    }
    for (const child of childrenOf(at, kind)) {
      budget -= 1;
      if (!isObjectLike(child.value) || seen.has(child.value)) continue;
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
        keys = types.isMap(at) || types.isSet(at) ? [] : Object.getOwnPropertyNames(at);
      } catch {
        continue;
      }
      const items: { step: string; value: unknown }[] = [];
      for (const key of keys) {
        const descriptor = Object.getOwnPropertyDescriptor(at, key);
        if (descriptor !== undefined && 'value' in descriptor)
          items.push({ step: keyStep(key), value: descriptor.value });
      }
      if (types.isMap(at) || types.isSet(at)) items.push(...childrenOf(at, types.isMap(at) ? 'map' : 'set'));
      for (const item of items) {
        budget -= 1;
        if (!isObjectLike(item.value) || seen.has(item.value) || hasProxyInChain(item.value)) continue;
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
  for (const name of Object.keys(exports)) {
    const descriptor = Object.getOwnPropertyDescriptor(exports, name);
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
