/**
 * Which LangGraph.js packages this process runs, and whether gate-audit was tested on them. The gate overrides a
 * tool node's `runTool` on the instance (the prebuilt ToolNode has no public hook; `langchain`'s runs its
 * `wrapToolCall` chain inside it), which is each package's own behaviour: install refuses a tool node when the
 * copy of its package that gate-audit resolves lies outside the tested range.
 */
import { inTestedRange, readPackageVersion } from '../versions.js';

/**
 * The versions the suite ran on, both ends included (CI runs the oldest and the newest). A tool node is refused
 * outside its package's range (`@langchain/langgraph` for the prebuilt one, `langchain` for `createAgent`'s);
 * `@langchain/core` (tools, messages, callbacks) is reported by `--version` against its range.
 */
export const LANGGRAPH_TESTED: Readonly<Record<string, { readonly min: string; readonly max: string }>> = Object.freeze(
  {
    '@langchain/langgraph': Object.freeze({ min: '1.4.18', max: '1.7.3' }),
    langchain: Object.freeze({ min: '1.5.0', max: '1.5.14' }),
    '@langchain/core': Object.freeze({ min: '1.2.0', max: '1.4.0' }),
  },
);

const cache = new Map<string, string | undefined>();
let pretended: Readonly<Record<string, string>> | undefined;

/**
 * Replaces the versions read, for tests only: the one injection point for simulating other package versions (the
 * real packages are never changed). Pass nothing to read the real ones again.
 *
 * @param versions - the versions to pretend, by package name
 */
export function setLangGraphVersions(versions?: Readonly<Record<string, string>>): void {
  pretended = versions;
}

/** The version of a package as gate-audit resolves it (the app's copy in an installed app), or undefined. */
export function installedVersion(name: string): string | undefined {
  const pretend = pretended?.[name];
  if (pretend !== undefined) return pretend;
  if (cache.has(name)) return cache.get(name);
  const read = readPackageVersion(name);
  const version = 'error' in read ? undefined : read.version;
  cache.set(name, version);
  return version;
}

/**
 * Why a package's tool node cannot be gated here (its version is outside the tested range, or unreadable), or
 * undefined when it can.
 *
 * @param name - `@langchain/langgraph` (the prebuilt ToolNode) or `langchain` (`createAgent`'s ToolNode)
 */
export function untestedToolNode(name: string): string | undefined {
  const range = LANGGRAPH_TESTED[name];
  if (range === undefined) return `no tested range for ${name}`;
  const version = installedVersion(name);
  if (version === undefined) return `${name} cannot be resolved from gate-audit's folder`;
  if (inTestedRange(version, range)) return undefined;
  return `its tool node is gated by overriding runTool, which was tested on ${name} >=${range.min} <=${range.max}; this copy is ${version}`;
}
