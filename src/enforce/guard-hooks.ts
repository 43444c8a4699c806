/**
 * The process guard's ESM loader hooks (registered by `guardProcess` or `gate-audit/register`; they run on
 * Node's loader thread). Every module of a copy of `@strands-agents/sdk` (and each `@langchain/langgraph` copy's
 * module that defines `Pregel`) gets one line appended that hands its
 * namespace to the guard on the main thread before anything can use it, so the guard stands on each copy's
 * hook registry from its first import. The line throws when no guard takes it: a copy is never loaded
 * unguarded.
 */
import { isPregelModuleUrl } from '../frameworks/langgraph/package.js';
import { isSdkUrl, sourceText } from '../frameworks/strands/sdk-package.js';
import { GUARD_MODULE_KEY } from '../walker/marks.js';

/** The global key of the guard's callback (a `Symbol.for`, so the appended line needs no import). */
export { GUARD_MODULE_KEY };

/**
 * The line appended to an SDK module.
 *
 * @param url - the module's URL
 */
export function guardLine(url: string): string {
  const quoted = JSON.stringify(url);
  const key = JSON.stringify(GUARD_MODULE_KEY);
  return (
    `\n;import * as __gateAuditGuardNamespace from ${quoted};\n` +
    `{ const take = globalThis[Symbol.for(${key})];\n` +
    `  if (typeof take !== 'function') throw new Error('gate-audit: the process guard is not loaded, so ' + ${JSON.stringify(`${url} cannot be guarded | import gate-audit before the framework, or start node with --import gate-audit/register`)});\n` +
    `  take(__gateAuditGuardNamespace, ${quoted}); }\n`
  );
}

interface LoadResult {
  readonly format?: string | null;
  readonly source?: string | ArrayBuffer | ArrayBufferView | null;
  readonly shortCircuit?: boolean;
}

type NextLoad = (url: string, context: unknown) => Promise<LoadResult>;

/**
 * Node's `load` hook: an SDK module's source gets the guard line; everything else passes unchanged.
 *
 * @param url - the module's URL
 * @param context - Node's load context
 * @param nextLoad - the next hook in the chain
 */
export async function load(url: string, context: unknown, nextLoad: NextLoad): Promise<LoadResult> {
  return withGuardLine(url, await nextLoad(url, context));
}

/** Marks a source that carries the guard line already (hooks registered twice append it once). */
const GUARDED_SOURCE = '/* gate-audit: process guard */';

/**
 * A load result with the guard line appended when it is an SDK module's (and does not carry it yet); also used
 * to wrap the `load` of synchronous hooks an app registers after the guard (`module.registerHooks`).
 *
 * @param url - the module's URL
 * @param result - what the chain loaded
 */
export function withGuardLine<T extends LoadResult>(url: string, result: T): T {
  if (
    result.format !== 'module' ||
    !(isSdkUrl(url) || isPregelModuleUrl(url)) ||
    result.source === undefined ||
    result.source === null
  ) {
    return result;
  }
  const source = sourceText(result.source);
  if (source.includes(GUARDED_SOURCE)) return result;
  return { ...result, source: `${source}\n${GUARDED_SOURCE}${guardLine(url)}` };
}
