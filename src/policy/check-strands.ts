/**
 * `check-policy` over a Strands tree: every local agent the walk finds, every place it sits at, its tools from
 * its registry, and the structured-output tool it gets at run time (as a Swarm member, or with a
 * `structuredOutputSchema`). Loads `@strands-agents/sdk`; the judging is `check-policy.ts`'s.
 */
import { hasStructuredOutputSchema, listTools } from '../frameworks/strands/sdk-internals.js';
import { walk } from '../walker/walk.js';
import { type AgentVerdicts, agentVerdicts, HANDOFF_TOOL, type ToolVerdict } from './check-policy.js';
import type { CompiledPolicy } from './compile.js';

function toolName(tool: unknown): string | undefined {
  const name = (tool as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * The verdict of every known tool of every local agent in a Strands tree.
 *
 * @param policy - a compiled policy
 * @param orchestrator - a Graph, Swarm or Agent
 * @returns one entry per agent, in walk order
 */
export function checkStrandsTree(policy: CompiledPolicy, orchestrator: unknown): AgentVerdicts[] {
  const inventory = walk(orchestrator);
  const swarms = new Set(inventory.entries.filter((e) => e.kind === 'swarm').map((e) => JSON.stringify(e.path)));
  return inventory.agents.map(({ agent, path }) => {
    const places = inventory.entries.filter((e) => e.target === agent && e.problem === undefined).map((e) => e.path);
    if (places.length === 0) places.push(path);
    const swarmMember = places.some((p) => swarms.has(JSON.stringify(p.slice(0, -1))));
    const names = listTools(agent)
      .map(toolName)
      .filter((n): n is string => n !== undefined);
    const runtime = new Map<string, ToolVerdict['runtime']>();
    if (!names.includes(HANDOFF_TOOL)) {
      if (swarmMember) runtime.set(HANDOFF_TOOL, 'swarm-handoff');
      else if (hasStructuredOutputSchema(agent)) runtime.set(HANDOFF_TOOL, 'structured-output');
      if (runtime.has(HANDOFF_TOOL)) names.push(HANDOFF_TOOL);
    }
    return agentVerdicts(policy, { path, places, swarmMember, tools: names, runtime });
  });
}
