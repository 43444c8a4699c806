/**
 * Which files hold LangGraph's compiled-graph class (`Pregel`), in any copy of `@langchain/langgraph`: by the name in
 * the nearest `package.json` and the module's place in the package, never by shape. Used by the audit child's loader
 * hooks on Node's loader thread: node builtins only.
 */
import { modulePathOf, packageOf } from '../strands/sdk-package.js';

/** The package whose copies are recognised. */
export const LANGGRAPH_PACKAGE = '@langchain/langgraph';

/** The methods the audit child stops on a compiled graph (`invoke` and `streamEvents` go through `stream`). */
export const GRAPH_RUN_METHODS: readonly string[] = ['invoke', 'stream', 'streamEvents', '_streamIterator'];

/**
 * Whether a module URL is the module of a LangGraph copy that defines `Pregel` (its ESM or CommonJS build).
 *
 * @param url - a module URL
 */
export function isPregelModuleUrl(url: string): boolean {
  const file = modulePathOf(url);
  if (file === undefined || !/[\\/]dist[\\/]pregel[\\/]index\.c?js$/.test(file)) return false;
  return packageOf(file).name === LANGGRAPH_PACKAGE;
}
