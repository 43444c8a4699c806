/**
 * ESM loader hooks of the audit child (they run on Node's loader thread, registered by `preload.ts`). Every
 * module of a package named `@strands-agents/sdk`, wherever it lies (a second copy in another `node_modules`
 * included), gets one line appended that hands its namespace to the preload on the main thread, so the
 * preload finds each copy's `Agent`, `Graph` and `Swarm` classes from the first import (and the module of each
 * `@langchain/langgraph` copy that defines `Pregel`, LangGraph's compiled graph). Copies are
 * recognised by their package's name, never by shape (`node:https` exports an `Agent` too).
 */
import { isPregelModuleUrl } from '../../frameworks/langgraph/package.js';
import { isSdkUrl, sourceText } from '../../frameworks/strands/sdk-package.js';

import { SDK_MODULE_KEY } from '../../walker/marks.js';

export { isSdkUrl };

/** The global key of the preload's callback (a `Symbol.for`, so the appended line needs no import). */
export { SDK_MODULE_KEY };

/** The line appended to an SDK module: its own namespace, handed to the preload once it has run. */
export function markLine(url: string): string {
  const quoted = JSON.stringify(url);
  return (
    `\n;import * as __gateAuditNamespace from ${quoted};\n` +
    `globalThis[Symbol.for(${JSON.stringify(SDK_MODULE_KEY)})]?.(__gateAuditNamespace, ${quoted});\n`
  );
}

/** Where loaded project files are told (the preload's end of a MessageChannel). */
let loadedFiles: { postMessage(message: string): void } | undefined;

/**
 * Node's `initialize` hook: the port the preload listens on for the project files ESM loads (the import
 * closure of a natively imported module, which Node's CommonJS cache does not hold).
 *
 * @param data - `{ port }` from `register`
 */
export function initialize(data: { port?: { postMessage(message: string): void } } | undefined): void {
  loadedFiles = data?.port;
}

interface LoadResult {
  readonly format?: string | null;
  readonly source?: string | ArrayBuffer | ArrayBufferView | null;
  readonly shortCircuit?: boolean;
}

type NextLoad = (url: string, context: unknown) => Promise<LoadResult>;

/**
 * Node's `load` hook: an SDK module's source gets the mark line; everything else passes unchanged.
 *
 * @param url - the module's URL
 * @param context - Node's load context
 * @param nextLoad - the next hook in the chain
 */
export async function load(url: string, context: unknown, nextLoad: NextLoad): Promise<LoadResult> {
  const result = await nextLoad(url, context);
  if (url.startsWith('file:') && !url.includes('/node_modules/')) loadedFiles?.postMessage(url);
  if (
    result.format !== 'module' ||
    !(isSdkUrl(url) || isPregelModuleUrl(url)) ||
    result.source === undefined ||
    result.source === null
  ) {
    return result;
  }
  const source = sourceText(result.source);
  return { ...result, source: `${source}${markLine(url)}` };
}
