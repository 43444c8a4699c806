/**
 * What a policy says about each agent's tools before anything runs: per agent of an orchestrator tree
 * (with every place it sits at), each known tool, its verdict when it does not depend on the input, the
 * rules that cover it, and whether it is one of the SDK's vended tools; plus the problems a team wants to
 * hear about (rules that match no known tool, tools that fall to `default`, a Swarm that can never hand
 * off). Pure. Each framework's walk lists the agents and their tools (`check-strands.ts`, `check-langgraph.ts`);
 * this module judges them and never loads a framework.
 */
import type { CompiledPolicy, StaticVerdict } from './compile.js';
import { closest } from './load.js';
import { ownEntry } from './own-entry.js';

/** The tool a Swarm adds to each of its agents for the handoff, and an agent with a structured output schema gets. */
export const HANDOFF_TOOL = 'strands_structured_output';

/** The SDK's vended tools, by their default names. */
export const VENDED_TOOLS: Readonly<Record<string, string>> = {
  bash: 'vended-tools/bash',
  shell: 'vended-tools/shell',
  fileEditor: 'vended-tools/file-editor',
  notebook: 'vended-tools/notebook',
  http_request: 'vended-tools/http-request',
  web_fetch: 'vended-tools/web-fetch',
};

/** One tool of one agent and what the policy says about it. */
export interface ToolVerdict extends StaticVerdict {
  /** The tool name. */
  readonly tool: string;
  /** Ids of the rules whose tool globs (and paths) cover it, in policy order. */
  readonly rules: readonly string[];
  /** For a tool named like one of the SDK's vended tools: which one. */
  readonly vended?: string;
  /** The structured-output tool (added at run time for a Swarm member or a `structuredOutputSchema`). */
  readonly runtime?: 'swarm-handoff' | 'structured-output';
}

/** One agent of the tree and its tools. */
export interface AgentVerdicts {
  /** Where the agent sits first: orchestrator id, node ids, agent-as-tool names. */
  readonly path: readonly string[];
  /** Every place it sits at (more than one when the same agent is used in several places). */
  readonly places: readonly (readonly string[])[];
  /** Whether it is a member of a Swarm (at any of its places). */
  readonly swarmMember: boolean;
  /** Its tools, in registry order (plus the structured-output tool it gets at run time). */
  readonly tools: readonly ToolVerdict[];
}

/** A problem `check-policy` reports. */
export interface CheckProblem {
  /** `error` fails `--strict`; `warning` is shown; `note` explains. */
  readonly level: 'error' | 'warning' | 'note';
  /** A stable code. */
  readonly code: 'rule-matches-no-tool' | 'falls-to-default' | 'handoff-denied' | 'type-rule' | 'no-modules';
  /** What is wrong and how to fix it (values from data are raw here: renderers escape them). */
  readonly message: string;
  /** The rule concerned. */
  readonly rule?: string;
  /** The agent concerned. */
  readonly path?: readonly string[];
  /** The tool concerned. */
  readonly tool?: string;
}

/** One agent (or tool node) of a tree as a framework's walk found it: where it sits, and its tools' names. */
export interface CheckedAgent {
  readonly path: readonly string[];
  readonly places: readonly (readonly string[])[];
  readonly swarmMember: boolean;
  /** Its tools' names, in registry order (the ones it gets at run time included). */
  readonly tools: readonly string[];
  /** Tools it gets at run time, by name. */
  readonly runtime?: ReadonlyMap<string, ToolVerdict['runtime']>;
}

/**
 * What a policy says about each tool of one agent: the verdict when it does not depend on the input, the rules
 * whose tool globs (and paths) cover it, and whether it is named like one of the SDK's vended tools.
 *
 * @param policy - a compiled policy
 * @param agent - the agent, its places and its tools' names
 */
export function agentVerdicts(policy: CompiledPolicy, agent: CheckedAgent): AgentVerdicts {
  const { path, places, swarmMember } = agent;
  const tools = agent.tools.map((tool): ToolVerdict => {
    const rules = policy.rules
      .filter(
        (r) =>
          r.matchesTool(tool) && (r.rule.paths === undefined || places.some((p) => r.matchesPlaces([p.join('/')]))),
      )
      .map((r) => r.rule.id);
    const vended = ownEntry(VENDED_TOOLS, tool);
    const kind = agent.runtime?.get(tool);
    return {
      tool,
      ...policy.staticVerdict(tool, places),
      rules,
      ...(vended === undefined ? {} : { vended }),
      ...(kind === undefined ? {} : { runtime: kind }),
    };
  });
  return { path, places, swarmMember, tools };
}

/**
 * The problems worth reporting about a policy and the agents it was checked against.
 *
 * @param policy - the compiled policy
 * @param agents - every agent checked (none when the policy is checked alone)
 * @param checkedModules - whether any module was loaded (rules are matched against known tools only then)
 */
export function policyProblems(
  policy: CompiledPolicy,
  agents: readonly AgentVerdicts[],
  checkedModules: boolean,
): CheckProblem[] {
  const problems: CheckProblem[] = [];
  const known = new Set(agents.flatMap((a) => a.tools.map((t) => t.tool)));
  if (checkedModules) {
    for (const compiled of policy.rules) {
      const { rule } = compiled;
      // A preset's rules for tools the app does not have are not typos: presets cover every vended tool.
      if (policy.origins.has(rule.id)) continue;
      if ([...known].some((tool) => compiled.matchesTool(tool))) continue;
      const candidates = new Set([...known, ...Object.keys(VENDED_TOOLS), HANDOFF_TOOL]);
      const hint = rule.tools.map((glob) => closest(glob, candidates)).find((t) => t !== undefined);
      problems.push({
        level: 'error',
        code: 'rule-matches-no-tool',
        rule: rule.id,
        message: `rule ${rule.id}: its tools (${rule.tools.join(', ')}) match no tool of the checked agents${
          hint === undefined ? ' | check the names, or remove the rule' : ` | did you mean "${hint}"?`
        }`,
      });
    }
    for (const agent of agents) {
      for (const tool of agent.tools) {
        if (tool.verdict !== 'depends' && tool.rule === 'default') {
          problems.push({
            level: 'error',
            code: 'falls-to-default',
            path: agent.path,
            tool: tool.tool,
            message: `${tool.tool} of ${agent.path.join(' › ')} falls to the default (${tool.verdict}) | add a rule for it`,
          });
        }
        if (
          tool.runtime === 'swarm-handoff' &&
          (tool.verdict === 'deny' || (tool.verdict === 'depends' && tool.otherwise === 'deny'))
        ) {
          problems.push({
            level: 'warning',
            code: 'handoff-denied',
            path: agent.path,
            tool: tool.tool,
            message: `${agent.path.join(' › ')} is a Swarm member whose handoff tool (${tool.tool}) is denied${
              tool.verdict === 'depends' ? ' unless a conditional rule allows it' : ''
            }: it can never hand off | allow ${tool.tool} for it`,
          });
        }
      }
    }
  } else {
    problems.push({
      level: 'note',
      code: 'no-modules',
      message:
        "no module given: the policy was validated alone (rules are matched against agents' tools only with modules)",
    });
  }
  if (policy.rules.some((r) => r.conditional && r.rule.verdict !== 'allow')) {
    problems.push({
      level: 'note',
      code: 'type-rule',
      message:
        'a deny or ask condition holds when its argument is present with the wrong type (a string where a number is ' +
        'expected, a value wrapped in an array or object, a number that is not finite) or not known exactly (a shell ' +
        'word that is a glob, a relative path without cwd); an allow condition then does not',
    });
  }
  return problems;
}
