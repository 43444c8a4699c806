/**
 * What a policy says about each agent's tools before anything runs: per agent of an orchestrator tree,
 * each known tool and its verdict when it does not depend on the input, so tools that fall to `default`
 * are visible. Pure: it walks the tree and reads tool registries, nothing else.
 */
import { listTools } from '../walker/sdk-internals.js';
import { walk } from '../walker/walk.js';
import type { CompiledPolicy, StaticVerdict } from './compile.js';

/** The tool a Swarm adds to each of its agents for the handoff, at run time only. */
export const HANDOFF_TOOL = 'strands_structured_output';

/** One tool of one agent and what the policy says about it. */
export interface ToolVerdict extends StaticVerdict {
  /** The tool name. */
  readonly tool: string;
}

/** One agent of the tree and its tools. */
export interface AgentVerdicts {
  /** Where the agent sits: orchestrator id, node ids, agent-as-tool names. */
  readonly path: readonly string[];
  /** Its tools, in registry order (plus the Swarm handoff tool for a Swarm's agents). */
  readonly tools: readonly ToolVerdict[];
}

function toolName(tool: unknown): string | undefined {
  const name = (tool as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * The verdict of every known tool of every local agent in an orchestrator tree.
 *
 * @param policy - a compiled policy
 * @param orchestrator - a Graph or Swarm
 * @returns one entry per agent, in walk order
 */
export function checkPolicy(policy: CompiledPolicy, orchestrator: unknown): AgentVerdicts[] {
  const inventory = walk(orchestrator);
  const swarms = new Set(inventory.entries.filter((e) => e.kind === 'swarm').map((e) => e.path.join('\u0000')));
  return inventory.agents.map(({ agent, path }) => {
    const names = listTools(agent)
      .map(toolName)
      .filter((n): n is string => n !== undefined);
    if (swarms.has(path.slice(0, -1).join('\u0000')) && !names.includes(HANDOFF_TOOL)) names.push(HANDOFF_TOOL);
    return { path, tools: names.map((tool) => ({ tool, ...policy.staticVerdict(tool, path) })) };
  });
}
