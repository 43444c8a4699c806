/**
 * The coverage model: `audit` reads a tree as it stands, `plan` as `installMultiagent` would leave it.
 * Both are pure (no hook added, nothing invoked). The coverage graph is built with graphology inside and
 * handed out as plain, validated data.
 */
import { DirectedGraph } from 'graphology';
import { CoverageError, type Finding, UngateableError } from '../errors.js';
import { preflight } from '../enforce/install.js';
import { agentGateState, hasNodeGuard, type Problem } from '../walker/classify.js';
import { agentGateMark, isGatePlugin } from '../walker/marks.js';
import {
  type Agent,
  hasBackgroundTasks,
  initialisedPluginNames,
  interventionHandlers,
  isInitialized,
  listTools,
  mcpClientCount,
  type Orchestrator,
  pendingPlugins,
  toolCallHooks,
  toolMiddleware,
} from '../walker/sdk-internals.js';
import { type Entry, walk } from '../walker/walk.js';
import { nodeFailsRun } from './exit.js';
import { checkedGenerator } from './generator.js';
import {
  type CoverageNode,
  type CoverageReport,
  CoverageReportSchema,
  isCovered,
  type NodeStatus,
  SCHEMA_VERSION,
} from './schema.js';

const TOOL_RUNNING = new Set(['agent', 'agent-tool', 'remote', 'custom']);

interface NodeAttributes {
  node: CoverageNode;
}

interface EdgeAttributes {
  kind: 'contains' | 'flow';
  conditional?: boolean;
}

/** The first cycle among the flow edges between the children of one orchestrator, as node ids. */
function flowCycle(graph: DirectedGraph<NodeAttributes, EdgeAttributes>, orchestrator: string): string[] | undefined {
  const children = graph.outNeighbors(orchestrator);
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (key: string): string[] | undefined => {
    state.set(key, 'open');
    stack.push(key);
    for (const next of graph.outNeighbors(key)) {
      if (graph.getEdgeAttribute(graph.edge(key, next), 'kind') !== 'flow') continue;
      if (state.get(next) === 'open') {
        const loop = stack.slice(stack.indexOf(next));
        return [...loop, next].map((k) => graph.getNodeAttribute(k, 'node').id);
      }
      if (state.get(next) === undefined) {
        const found = visit(next);
        if (found !== undefined) return found;
      }
    }
    stack.pop();
    state.set(key, 'done');
    return undefined;
  };
  for (const child of children) {
    if (state.get(child) !== undefined) continue;
    const found = visit(child);
    if (found !== undefined) return found;
  }
  return undefined;
}

const keyOf = (path: readonly string[]): string => JSON.stringify(path);

function pluginName(plugin: unknown): string {
  const name = typeof plugin === 'object' && plugin !== null ? (plugin as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : '(unnamed)';
}

/** Things that weaken an agent's gate without defeating it (`sdk-gaps.md` rows 9–24, 27, 31, 36–37). */
function agentWarnings(agent: Agent, sharedHandlers: Map<unknown, string[]>): string[] {
  const warnings: string[] = [];
  const mark = agentGateMark(agent);
  const hooks = toolCallHooks(agent) ?? [];
  const foreignHooks = hooks.filter((h) => h.callback !== mark?.decisionHook).length;
  if (foreignHooks > 0) {
    warnings.push(
      `${foreignHooks} other BeforeToolCallEvent hook(s) run after the gate and may change the call ` +
        '(a changed call is refused at execution)',
    );
  }
  const delegation = initialisedPluginNames(agent).includes('strands:agent-delegation') ? 1 : 0;
  const foreignMiddleware =
    (toolMiddleware(agent) ?? []).filter((m) => m.handler !== mark?.executionCheck).length - delegation;
  if (foreignMiddleware > 0) {
    warnings.push(
      `${foreignMiddleware} ExecuteToolStage middleware: one that answers a call itself bypasses the gate check`,
    );
  }
  const pending = pendingPlugins(agent)
    .filter((p) => !isGatePlugin(p))
    .map(pluginName)
    .filter((name) => !name.startsWith('strands:'));
  if (pending.length > 0) {
    warnings.push(`plugins ${pending.join(', ')} add hooks and tools at the first run, unseen until then`);
  }
  const mcp = mcpClientCount(agent);
  if (mcp > 0)
    warnings.push(`${mcp} MCP client(s): their tools are unknown until init (policy names include any prefix)`);
  if (hasBackgroundTasks(agent)) {
    warnings.push('background tasks: a call is judged once at dispatch; background retries are refused');
  }
  for (const handler of interventionHandlers(agent)) {
    const name = typeof handler.name === 'string' ? handler.name : '(unnamed)';
    if (handler.onError === 'proceed') warnings.push(`intervention "${name}" has onError 'proceed' and fails open`);
    const others = (sharedHandlers.get(handler) ?? []).filter((id) => id !== agent.id);
    if (others.length > 0) {
      warnings.push(
        `intervention "${name}" is shared with ${others.join(', ')}: its state (e.g. call counts) is shared too`,
      );
    }
  }
  return warnings;
}

function toolsOf(agent: Agent): { tools: string[]; unknown: boolean } {
  const tools = listTools(agent).map((t) => String((t as { name?: unknown }).name));
  const lateTools =
    mcpClientCount(agent) > 0 ||
    pendingPlugins(agent).some((p) => typeof (p as { getTools?: unknown }).getTools === 'function' && !isGatePlugin(p));
  return { tools, unknown: lateTools && !isInitialized(agent) };
}

interface Verdict {
  status: NodeStatus;
  reason: string;
  fix?: string;
  problem?: string;
}

function problemVerdict(problem: Problem): Verdict {
  return { status: 'ungateable', reason: problem.reason, fix: problem.fix, problem: problem.kind };
}

/** Decides a node's status from our marks and its parent's protection. */
function judge(entry: Entry, parent: CoverageNode | undefined, assumeInstalled: boolean): Verdict {
  if (entry.problem !== undefined) return problemVerdict(entry.problem);
  if (entry.declared !== undefined) {
    const n = entry.declared.agents.length;
    const runs = n > 0 ? `runs the ${n} agent(s) it declares, each gated below` : 'declares no fixed agents';
    const creates = entry.declared.createsGatedAgents ? ' and creates the rest per call with gatedAgent()' : '';
    return { status: 'attested', reason: `custom node that ${runs}${creates}: declared, not proven` };
  }
  const parentGuards = parent !== undefined && parent.status === 'gated';
  if (entry.kind === 'graph' || entry.kind === 'swarm') {
    if (hasNodeGuard(entry.target as Orchestrator)) return { status: 'gated', reason: 'node guard installed' };
    if (assumeInstalled) return { status: 'gated', reason: 'installMultiagent would install the node guard' };
    if (parentGuards) {
      return {
        status: 'blocked',
        reason: `nested ${entry.kind} without a node guard: the outer guard cancels it at run time`,
        fix: 'call installMultiagent(root) again after adding it',
      };
    }
    return {
      status: 'ungated',
      reason: 'no node guard: nodes added or swapped later run unchecked',
      fix: 'call installMultiagent(root) at startup',
    };
  }
  const state = agentGateState(entry.target as Agent);
  if (state === 'gated')
    return { status: 'gated', reason: `gate "${agentGateMark(entry.target)?.gateName ?? '?'}" installed` };
  if (state === 'pending-plugin') return { status: 'gated', reason: 'GatePlugin installs the gate at the first run' };
  if (assumeInstalled) return { status: 'gated', reason: 'installMultiagent would install the gate' };
  const removed = state === 'removed' ? 'its gate hook was removed; ' : '';
  if (parentGuards) {
    const by =
      entry.kind === 'agent-tool'
        ? "the calling agent's gate refuses calls to it"
        : 'the node guard cancels it at run time';
    return {
      status: 'blocked',
      reason: `${removed}not gated, but ${by}`,
      fix: 'call installMultiagent(root) again so it is gated',
    };
  }
  return {
    status: 'ungated',
    reason: `${removed}runs its tools without a gate`,
    fix: 'call installMultiagent(root) at startup, or give the agent a GatePlugin',
  };
}

function build(
  root: unknown,
  mode: 'audit' | 'plan',
  assumeInstalled: boolean,
  refusals: readonly Finding[],
): CoverageReport {
  const generator = checkedGenerator();
  const inventory = walk(root);
  const graph = new DirectedGraph<NodeAttributes, EdgeAttributes>();
  const shared = new Map<unknown, string[]>();
  for (const { agent } of inventory.agents) {
    for (const handler of interventionHandlers(agent)) shared.set(handler, [...(shared.get(handler) ?? []), agent.id]);
  }
  for (const entry of inventory.entries) {
    const key = keyOf(entry.path);
    const parentKey = entry.path.length > 1 ? keyOf(entry.path.slice(0, -1)) : undefined;
    const parent =
      parentKey !== undefined && graph.hasNode(parentKey) ? graph.getNodeAttribute(parentKey, 'node') : undefined;
    const first = entry.sameAs === undefined ? undefined : graph.getNodeAttribute(keyOf(entry.sameAs), 'node');
    const verdict: Verdict =
      first !== undefined
        ? {
            status: first.status,
            reason: `same object as ${first.path.join(' › ')}: ${first.reason}`,
            ...(first.fix === undefined ? {} : { fix: first.fix }),
          }
        : judge(entry, parent, assumeInstalled);
    const isAgent = (entry.kind === 'agent' || entry.kind === 'agent-tool') && entry.problem === undefined;
    const tools = isAgent && first === undefined ? toolsOf(entry.target as Agent) : { tools: [], unknown: false };
    const node: CoverageNode = {
      path: [...entry.path],
      id: entry.id,
      kind: entry.kind,
      ...verdict,
      tools: tools.tools,
      toolsUnknownUntilInit: tools.unknown,
      warnings: isAgent && first === undefined ? agentWarnings(entry.target as Agent, shared) : [],
      ...(entry.sameAs === undefined ? {} : { sameAs: [...entry.sameAs] }),
    };
    graph.addNode(key, { node });
    if (parentKey !== undefined && graph.hasNode(parentKey))
      graph.addDirectedEdge(parentKey, key, { kind: 'contains' });
  }
  for (const edge of inventory.edges) {
    const from = keyOf(edge.from);
    const to = keyOf(edge.to);
    if (graph.hasNode(from) && graph.hasNode(to)) {
      graph.addDirectedEdge(from, to, { kind: 'flow', ...(edge.conditional ? { conditional: true } : {}) });
    }
  }
  for (const { path } of inventory.orchestrators) {
    const cycle = flowCycle(graph, keyOf(path));
    if (cycle !== undefined) {
      graph
        .getNodeAttribute(keyOf(path), 'node')
        .warnings.push(
          `its edges form a cycle (${cycle.join(' → ')}): nodes can run more than once, each time under the guard`,
        );
    }
  }
  const nodes = graph.mapNodes((_key, attributes) => attributes.node);
  const edges = graph.mapEdges((_edge, attributes, source, target) => ({
    from: graph.getNodeAttribute(source, 'node').path,
    to: graph.getNodeAttribute(target, 'node').path,
    ...attributes,
  }));
  return CoverageReportSchema.parse({
    schemaVersion: SCHEMA_VERSION,
    mode,
    root: { id: inventory.root.id, kind: inventory.root.kind },
    nodes,
    edges,
    summary: summarize(nodes),
    refusals: refusals.map((f) => ({ path: [...f.path], kind: f.kind, reason: f.reason, fix: f.fix })),
    sources: [],
    generator,
  });
}

/** Counts per status and the coverage of tool-running nodes. */
export function summarize(nodes: readonly CoverageNode[]): CoverageReport['summary'] {
  const count = (status: NodeStatus): number => nodes.filter((n) => n.status === status).length;
  const running = nodes.filter((n) => TOOL_RUNNING.has(n.kind));
  const runningGated = running.filter((n) => isCovered(n.status)).length;
  const runningAccepted = running.filter((n) => n.status === 'accepted').length;
  const denominator = running.length - runningAccepted;
  return {
    total: nodes.length,
    gated: count('gated'),
    attested: count('attested'),
    accepted: count('accepted'),
    ungated: count('ungated'),
    ungateable: count('ungateable'),
    blocked: count('blocked'),
    toolRunning: running.length,
    coverage: denominator === 0 ? 1 : runningGated / denominator,
  };
}

/**
 * Audits an orchestrator (or an agent) as it stands: every node with its status, reason, tools and
 * warnings. Pure: adds no hook and runs nothing.
 *
 * @param orchestrator - a Graph, a Swarm or an Agent
 * @returns the coverage report
 */
export function audit(orchestrator: unknown): CoverageReport {
  return build(orchestrator, 'audit', false, []);
}

/**
 * Answers "what would `installMultiagent` do": every node as it would be after install, or, when the
 * preflight would refuse the tree, the tree as it stands plus every refusal.
 *
 * @param orchestrator - a Graph or Swarm
 * @returns the coverage report in `plan` mode
 */
export function plan(orchestrator: unknown): CoverageReport {
  try {
    preflight(orchestrator);
  } catch (error) {
    if (error instanceof UngateableError) return build(orchestrator, 'plan', false, error.findings);
    throw error;
  }
  return build(orchestrator, 'plan', true, []);
}

/** Nodes of a report that fail it under the one exit rule, as `path: status | reason` lines. */
export function notGatedLines(report: CoverageReport): string[] {
  return report.nodes
    .filter((n) => nodeFailsRun(n))
    .map((n) => `"${n.path.join(' › ')}" is ${n.status}: ${n.reason}${n.fix === undefined ? '' : ` | ${n.fix}`}`);
}

/**
 * Throws `CoverageError` (code `NOT_FULLY_GATED`) naming every node that is not gated, with its path.
 *
 * @param orchestrator - a Graph, a Swarm or an Agent
 */
export function assertFullyGated(orchestrator: unknown): void {
  const lines = notGatedLines(audit(orchestrator));
  if (lines.length > 0) throw new CoverageError(lines);
}
