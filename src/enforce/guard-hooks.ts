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

/** The prefix of the namespace binding the guard line declares. */
const BINDING = '__gateAuditGuardNamespace';

/**
 * The line appended to a framework module (an ES module): it imports the module's own namespace and hands it to
 * the guard. Its binding is numbered after the ones the source names already, so a line appended again (the guard's
 * hooks are registered again after each hook an app registers) declares a binding of its own.
 *
 * @param url - the module's URL
 * @param source - the module's source so far
 */
export function guardLine(url: string, source = ''): string {
  const quoted = JSON.stringify(url);
  const binding = `${BINDING}${source.split(BINDING).length - 1}`;
  return (
    `\n;import * as ${binding} from ${quoted};\n` +
    `{ const take = globalThis[Symbol.for(${JSON.stringify(GUARD_MODULE_KEY)})];\n` +
    `  if (typeof take !== 'function') throw new Error(${notLoaded(url)});\n` +
    `  take(${binding}, ${quoted}); }\n`
  );
}

/**
 * The line appended to a framework module compiled as CommonJS from a source a hook gave (such a module is not
 * loaded through `require`, where the guard finds the others): it hands the module's exports to the guard.
 *
 * @param url - the module's URL
 */
export function commonJsGuardLine(url: string): string {
  return (
    `\n;{ const take = globalThis[Symbol.for(${JSON.stringify(GUARD_MODULE_KEY)})];\n` +
    `  if (typeof take !== 'function') throw new Error(${notLoaded(url)});\n` +
    `  take(module.exports, ${JSON.stringify(url)}); }\n`
  );
}

/** The message of a guard line that finds no guard, as a string literal. */
function notLoaded(url: string): string {
  return JSON.stringify(
    `gate-audit: the process guard is not loaded, so ${url} cannot be guarded | import gate-audit before the framework, or start node with --import gate-audit/register`,
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

/**
 * A load result with the guard line appended when it is a framework module's (an ES module, or CommonJS compiled
 * from a source a hook gave); also used to wrap the `load` of synchronous hooks an app registers after the guard
 * (`module.registerHooks`). Nothing in a source (which a hook may have written) makes it skip the line: a line
 * appended twice hands the module over twice, and the guard takes a copy once.
 *
 * @param url - the module's URL
 * @param result - what the chain loaded
 */
export function withGuardLine<T extends LoadResult>(url: string, result: T): T {
  if (
    (result.format !== 'module' && result.format !== 'commonjs') ||
    !(isSdkUrl(url) || isPregelModuleUrl(url)) ||
    result.source === undefined ||
    result.source === null
  ) {
    return result;
  }
  const source = sourceText(result.source);
  const line = result.format === 'module' ? guardLine(url, source) : commonJsGuardLine(url);
  return { ...result, source: `${source}${line}` };
}
