/**
 * `check-policy` over a LangGraph tree: every tool node the walk finds (a `createAgent` agent's, a prebuilt
 * `ToolNode`, one inside a subgraph), at every place its gate judges its calls at, with its tools. Never loads
 * `@strands-agents/sdk`; the judging is `check-policy.ts`'s.
 */
import { langGraphAdapter } from '../frameworks/langgraph/adapter.js';
import { toolNodeGates } from '../frameworks/langgraph/runtime.js';
import { joinPath } from '../tree-paths.js';
import { seamWalk } from '../walker/seam-walk.js';
import { type AgentVerdicts, agentVerdicts } from './check-policy.js';
import type { CompiledPolicy } from './compile.js';

/**
 * Every place a tool node runs at: here, and where installs met it already (an agent gated on its own, then in this
 * graph, runs at both, and a request names both), as the gate will judge its calls once this tree is installed.
 */
function placesOf(node: unknown, here: readonly string[]): (readonly string[])[] {
  const installed = typeof node === 'object' && node !== null ? (toolNodeGates.get(node)?.places ?? []) : [];
  const at = joinPath(here);
  return installed.some((place) => joinPath(place) === at) ? [...installed] : [...installed, here];
}

/**
 * The verdict of every known tool of every tool node in a LangGraph tree, or undefined when the value is not a
 * LangGraph compiled graph or `createAgent` agent.
 *
 * @param policy - a compiled policy
 * @param value - a compiled graph or a `createAgent` agent
 * @returns one entry per tool node, in walk order (a node met again is judged at its first place, as its gate is)
 */
export function checkLangGraphTree(policy: CompiledPolicy, value: unknown): AgentVerdicts[] | undefined {
  const root = langGraphAdapter.recognise(value);
  if (root === undefined) return undefined;
  return seamWalk(langGraphAdapter, root)
    .entries.filter((entry) => entry.kind === 'agent' && entry.sameAs === undefined && entry.problem === undefined)
    .map((entry) =>
      agentVerdicts(policy, {
        path: entry.path,
        places: placesOf(entry.target, entry.path),
        swarmMember: false,
        tools: entry.tools.map((tool) => tool.name),
      }),
    );
}
