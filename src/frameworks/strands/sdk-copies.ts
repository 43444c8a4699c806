/**
 * Reading a copy of `@strands-agents/sdk` the process loaded, without loading the SDK: the hook registry class its
 * namespace holds, and the files of its package entry. The process guard uses them to find each copy's registry,
 * with or without its Strands part.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { messageOf } from '../../errors.js';
import { modulePathOf, sdkRootOf } from './sdk-package.js';

/** Makes the error that refuses a copy (`SDK_SHAPE`, naming its folder and what is wrong). */
export type CopyFailure = (root: string, what: string) => Error;

/**
 * A path with its links resolved, or the path itself when it cannot be.
 *
 * @param path - a file or folder
 */
export function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The prototype of the registry class an SDK namespace (or `require`d exports) holds, if any.
 *
 * @param namespace - a module namespace or exports
 */
export function registryOf(namespace: unknown): object | undefined {
  if ((typeof namespace !== 'object' && typeof namespace !== 'function') || namespace === null) return undefined;
  let value: unknown;
  try {
    // The entry exports it as HookRegistry; its own module (which every agent, Graph and Swarm module imports,
    // so a deep import of any part of a copy loads it) as HookRegistryImplementation.
    value =
      Object.getOwnPropertyDescriptor(namespace, 'HookRegistry')?.value ??
      Object.getOwnPropertyDescriptor(namespace, 'HookRegistryImplementation')?.value;
  } catch {
    return undefined; // a binding not yet initialised
  }
  if (typeof value !== 'function') return undefined;
  const proto: unknown = Object.getOwnPropertyDescriptor(value, 'prototype')?.value;
  return typeof proto === 'object' && proto !== null ? proto : undefined;
}

const entriesByRoot = new Map<string, ReadonlySet<string>>();

/**
 * The files a copy's package entry (`exports["."]` under any condition, or `main`) may resolve to.
 *
 * @param root - the copy's folder
 */
export function entryFilesOf(root: string): ReadonlySet<string> {
  let entries = entriesByRoot.get(root);
  if (entries !== undefined) return entries;
  const found = new Set<string>();
  const add = (target: unknown): void => {
    if (typeof target === 'string') found.add(realOr(join(root, target)));
    else if (Array.isArray(target)) for (const t of target) add(t);
    else if (typeof target === 'object' && target !== null) for (const t of Object.values(target)) add(t);
  };
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports?: unknown; main?: unknown };
    const exported = pkg.exports;
    if (typeof exported === 'object' && exported !== null && !Array.isArray(exported) && '.' in exported) {
      add((exported as Record<string, unknown>)['.']);
    } else if (
      exported !== undefined &&
      !(typeof exported === 'object' && exported !== null && Object.keys(exported).some((k) => k.startsWith('.')))
    ) {
      add(exported);
    }
    add(pkg.main ?? 'index.js');
  } catch {
    // no readable package.json: no entry is known, so every module of the copy is checked on its own
  }
  entries = found;
  entriesByRoot.set(root, entries);
  return entries;
}

/**
 * The hook registry a module of a copy hands over, with the copy's folder; undefined for a module of the copy that
 * holds none (the copy itself is reached through its entry).
 *
 * @param namespace - the module's namespace, or `require`d exports
 * @param url - the module's URL
 * @param fail - makes the error when the module is the copy's entry and holds no registry
 */
export function copyRegistry(
  namespace: unknown,
  url: string,
  fail: CopyFailure,
): { readonly proto: object; readonly root: string } | undefined {
  const root = sdkRootOf(url) ?? url;
  const proto = registryOf(namespace);
  if (proto !== undefined) return { proto, root };
  const path = modulePathOf(url);
  const file = path === undefined ? undefined : realOr(path);
  if (file === undefined || entryFilesOf(root).has(file) || basename(file) === 'package.json') {
    throw fail(root, 'its entry exports no HookRegistry class');
  }
  return undefined;
}

/**
 * Takes the copy in `root` through its entry: `require()` returns the instance already loaded (ESM and `require`
 * share it), or loads it now.
 *
 * @param root - the copy's folder
 * @param take - takes the entry's exports
 * @param taken - whether the copy was taken
 * @param fail - makes the error when it cannot be loaded, or its entry holds no registry
 * @param verb - what is done to it, for the message (`guarded`, `refused`)
 */
export function takeCopyAt(
  root: string,
  take: (exports: unknown, url: string) => void,
  taken: () => boolean,
  fail: CopyFailure,
  verb: string,
): void {
  let exports: unknown;
  try {
    exports = createRequire(join(root, 'package.json'))(root);
  } catch (error) {
    throw fail(root, `it could not be loaded to be ${verb} (${messageOf(error)})`);
  }
  take(exports, pathToFileURL(join(root, 'package.json')).href);
  if (!taken()) throw fail(root, 'its entry exports no HookRegistry class');
}

/**
 * Makes every member of a prototype, and of the prototypes it inherits from, read-only for good (a method cannot be
 * reassigned, an accessor cannot be redefined). One freeze per prototype (a transition to a frozen map), not a
 * redefinition per member: a prototype whose members are redefined one by one can fall into slow (dictionary)
 * mode, and every call through it pays.
 *
 * @param proto - the prototype
 */
export function freezeChain(proto: object): void {
  for (
    let p: unknown = proto;
    typeof p === 'object' && p !== null && p !== Object.prototype;
    p = Object.getPrototypeOf(p)
  ) {
    Object.freeze(p);
  }
}

/** The classes whose runs a refused copy's modules export. */
const RUN_CLASSES = ['Agent', 'Graph', 'Swarm'];
/** Their prototypes refused so far. */
const refusedRunClasses = new WeakSet<object>();

/**
 * Refuses every run of the `Agent`, `Graph` and `Swarm` classes a module of a refused copy exports: their `stream`
 * and `invoke` reject, fixed in place (the prototype frozen), so an instance whose hook registry was given a
 * dispatch of its own runs nothing either.
 *
 * @param namespace - a module of the copy (its namespace, or `require`d exports)
 * @param failure - the error a run rejects with
 * @param shape - the error when a run method was fixed in place before (the copy cannot be stood on)
 * @param own - the prototypes of gate-audit's own copy, never refused
 */
export function refuseRuns(
  namespace: unknown,
  failure: () => Error,
  shape: (what: string) => Error,
  own: ReadonlySet<object> = new Set(),
): void {
  if ((typeof namespace !== 'object' && typeof namespace !== 'function') || namespace === null) return;
  for (const name of RUN_CLASSES) {
    let cls: unknown;
    try {
      cls = Object.getOwnPropertyDescriptor(namespace, name)?.value;
    } catch {
      continue; // a binding not yet initialised
    }
    if (typeof cls !== 'function') continue;
    const proto: unknown = Object.getOwnPropertyDescriptor(cls, 'prototype')?.value;
    if (typeof proto !== 'object' || proto === null || own.has(proto) || refusedRunClasses.has(proto)) continue;
    const runs: Record<string, (...args: unknown[]) => unknown> = {
      // eslint-disable-next-line require-yield, @typescript-eslint/require-await
      stream: async function* stream(): AsyncGenerator<never, never, unknown> {
        throw failure();
      },
      // eslint-disable-next-line @typescript-eslint/require-await
      invoke: async function invoke(): Promise<never> {
        throw failure();
      },
    };
    for (const [method, refused] of Object.entries(runs)) {
      // A member fixed in place before the guard cannot be refused: the copy cannot be stood on.
      if (Object.getOwnPropertyDescriptor(proto, method)?.configurable === false) {
        throw shape(`its ${name}.${method} was fixed in place, so its runs cannot be refused`);
      }
      Object.defineProperty(proto, method, { value: refused, writable: false, configurable: false, enumerable: false });
    }
    Object.freeze(proto);
    refusedRunClasses.add(proto);
  }
}
