/**
 * The coverage model: `audit` reads a tree as it stands, `plan` as `installMultiagent` would leave it.
 * Both are pure (no hook added, nothing invoked). The coverage graph is built with graphology inside and
 * handed out as plain, validated data.
 */
import { DirectedGraph } from 'graphology';
import { CoverageError, type Finding, type GateConflict, GateConflictError, UngateableError } from '../errors.js';
import type { Gate } from '../enforce/gate.js';
import { CONFIGURED, gateSource } from '../enforce/gate-source.js';
import type { AcceptEntry } from '../enforce/install-options.js';
import { acceptedEntries, preflightTree } from '../frameworks/strands/install.js';
import { joinPath, segmentOf, UNNAMED } from '../tree-paths.js';
import { hasHiddenCharacters, quoted, visiblePath } from '../escape.js';
import { agentGateState, hasNodeGuard, type Problem } from '../walker/classify.js';
import {
  agentGateMark,
  gatePluginGate,
  isGatePlugin,
  isWrittenAgentGateMark,
  type MarkedHook,
  nodeGuardMark,
} from '../walker/marks.js';
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
} from '../frameworks/strands/sdk-internals.js';
import { readData } from '../walker/safe-read.js';
import { type Entry, walk } from '../walker/walk.js';
import { notGatedLines, summarize } from './lines.js';
import { gatedVerdict, type Verdict } from './gate-verdict.js';
import { langGraphAudit, langGraphPlan } from './seam-audit.js';
import { isLangGraphValue } from '../frameworks/langgraph/adapter.js';
import { checkedGenerator } from './generator.js';
import {
  type CoverageNode,
  type CoverageReport,
  CoverageReportSchema,
  type NodeStatus,
  SCHEMA_VERSION,
} from './schema.js';

interface NodeAttributes {
  node: CoverageNode;
}

interface EdgeAttributes {
  kind: 'contains' | 'flow';
  conditional?: boolean;
}

/** The first cycle among the flow edges between the children of one orchestrator, as node ids (iterative). */
function flowCycle(graph: DirectedGraph<NodeAttributes, EdgeAttributes>, orchestrator: string): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const flowNext = (key: string): string[] =>
    graph.outNeighbors(key).filter((next) => graph.getEdgeAttribute(graph.edge(key, next), 'kind') === 'flow');
  for (const child of graph.outNeighbors(orchestrator)) {
    if (state.get(child) !== undefined) continue;
    const stack: { key: string; next: string[] }[] = [{ key: child, next: flowNext(child) }];
    state.set(child, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const next = top.next.pop();
      if (next === undefined) {
        state.set(top.key, 'done');
        stack.pop();
        continue;
      }
      if (state.get(next) === 'open') {
        const keys = stack.map((frame) => frame.key);
        const loop = keys.slice(keys.indexOf(next));
        return [...loop, next].map((k) => graph.getNodeAttribute(k, 'node').id);
      }
      if (state.get(next) === undefined) {
        state.set(next, 'open');
        stack.push({ key: next, next: flowNext(next) });
      }
    }
  }
  return undefined;
}

const keyOf = (path: readonly string[]): string => JSON.stringify(path);

function pluginName(plugin: unknown): string {
  const name = typeof plugin === 'object' && plugin !== null ? (plugin as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : '(unnamed)';
}

/** Things that weaken an agent's gate without defeating it (`docs/sdk-paths.md`). */
function agentWarnings(agent: Agent, sharedHandlers: Map<unknown, string[]>): string[] {
  const warnings: string[] = [];
  const mark = agentGateMark(agent);
  const hooks = toolCallHooks(agent) ?? [];
  const marked: unknown = mark?.hooks;
  const own = new Set<unknown>([
    mark?.decisionHook,
    ...(Array.isArray(marked) ? (marked as readonly MarkedHook[]).map((h) => h.callback) : []),
  ]);
  const foreignHooks = hooks.filter((h) => !own.has(h.callback)).length;
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

function problemVerdict(problem: Problem): Verdict {
  return { status: 'ungateable', reason: problem.reason, fix: problem.fix, problem: problem.kind };
}

/** The gate a pending GatePlugin will install: its own, or the configured one. */
function pendingPluginKey(agent: Agent): unknown {
  for (const plugin of pendingPlugins(agent)) {
    if (isGatePlugin(plugin)) return gatePluginGate(plugin) ?? 'configured';
  }
  return 'configured';
}

/**
 * The acknowledgement an installed guard carries for this node: only at the node id it was accepted at (the
 * guard cancels the same object anywhere else), and while its executor is still the one accepted.
 */
function acceptedByGuard(entry: Entry, parent: Entry | undefined): string | undefined {
  if (parent === undefined || (parent.kind !== 'graph' && parent.kind !== 'swarm')) return undefined;
  const accepted = nodeGuardMark(parent.target)?.accepted;
  if (!(accepted instanceof Map)) return undefined;
  for (const [id, value] of accepted as ReadonlyMap<string, { object: unknown; reason: string }>) {
    if (value.object === entry.target && segmentOf(id, UNNAMED) === entry.path.at(-1)) return value.reason;
  }
  return undefined;
}

/**
 * The orchestrator whose node guard checks an entry at run time: its parent, or for an agent a custom node
 * declares (directly or through declarations in turn), the orchestrator holding that node.
 */
function guardingOrchestrator(entryAt: ReadonlyMap<string, Entry>, parentKey: string | undefined): Entry | undefined {
  let parent = parentKey === undefined ? undefined : entryAt.get(parentKey);
  // Declarations nest: the guard judges every agent declared under a node, however deep.
  while (parent?.kind === 'custom' && parent.declared !== undefined && parent.path.length >= 2) {
    parent = entryAt.get(keyOf(parent.path.slice(0, -1)));
  }
  return parent;
}

/**
 * What runs where one gate per tree holds (a node of a guarded tree, or an agent or a Graph or Swarm used as a tool
 * by an agent of one) and carries another gate than the tree's: the node guard cancels it, or its caller's gate
 * refuses its calls, at run time. So it is `blocked`, not `gated`.
 */
function otherGateThanTree(
  entry: Entry,
  parent: Entry | undefined,
  verdict: Verdict,
  entryAt: ReadonlyMap<string, Entry>,
): Verdict {
  if (verdict.status !== 'gated' || parent === undefined) return verdict;
  const tree = treeGateOf(parent, entryAt);
  if (tree === undefined) return verdict;
  const node = parent.kind === 'graph' || parent.kind === 'swarm';
  const blocked = (what: string): Verdict => ({
    status: 'blocked',
    reason:
      `${what}, not by its tree's gate "${tree.name}": ` +
      (node ? 'the node guard cancels it at run time' : "its caller's gate refuses its calls at run time"),
    fix:
      "gate it with the tree's gate: call installMultiagent(root) again after " +
      (node ? 'adding or swapping nodes' : 'adding agents as tools'),
  });
  if (entry.kind === 'graph' || entry.kind === 'swarm') {
    // A nested orchestrator guarded for another gate runs its agents under that gate.
    const inner = nodeGuardMark(entry.target);
    if (inner === undefined || !('treeGateKey' in inner) || inner.treeGateKey === tree.key) return verdict;
    return blocked(`guarded for "${String(inner.treeGateName)}"`);
  }
  if (entry.kind !== 'agent' && entry.kind !== 'agent-tool') return verdict;
  const agent = entry.target as Agent;
  const key = agentGateState(agent) === 'pending-plugin' ? pendingPluginKey(agent) : agentGateMark(agent)?.gateKey;
  return key === tree.key ? verdict : blocked(`gated by "${verdict.gate?.name ?? '?'}"`);
}

/**
 * The gate of the tree an agent used as a tool runs in, as its callers' gates know it: the nearest caller gated
 * as part of a tree (`installMultiagent`), else the orchestrator holding the first caller. A caller that carries
 * the tree's gate joins the tree when it is called, so the whole chain of callers counts.
 */
function treeGateOf(caller: Entry, entryAt: ReadonlyMap<string, Entry>): { key: unknown; name: string } | undefined {
  let at: Entry | undefined = caller;
  while (at !== undefined) {
    if (at.kind === 'graph' || at.kind === 'swarm') {
      const guard = nodeGuardMark(at.target);
      return guard !== undefined && 'treeGateKey' in guard
        ? { key: guard.treeGateKey, name: String(guard.treeGateName) }
        : undefined;
    }
    if (at.kind !== 'agent' && at.kind !== 'agent-tool') return undefined;
    // Only a mark this copy wrote says which tree an agent belongs to; a forged or foreign one is a promise, and
    // the agent behind it joins the tree of the caller that calls it (its gate is installed when it is called).
    const mark = isWrittenAgentGateMark(at.target) ? agentGateMark(at.target) : undefined;
    if (mark !== undefined && 'treeGateKey' in mark) return { key: mark.treeGateKey, name: String(mark.treeGateName) };
    at = at.path.length > 1 ? entryAt.get(keyOf(at.path.slice(0, -1))) : undefined;
  }
  return undefined;
}

/**
 * Decides a node's status from our marks and the protection of what checks it at run time: its parent, or for
 * an agent a custom node declares, the orchestrator holding that node.
 */
function judge(
  entry: Entry,
  parent: CoverageNode | undefined,
  assumeInstalled: boolean,
  acceptance: string | undefined,
): Verdict {
  if (entry.problem !== undefined) {
    if (acceptance !== undefined) {
      return {
        status: 'accepted',
        reason: `accepted: ${acceptance} (it ${entry.problem.reason})`,
        problem: entry.problem.kind,
      };
    }
    return problemVerdict(entry.problem);
  }
  if (entry.declared !== undefined) {
    const n = entry.declared.agents.length;
    const runs = n > 0 ? `runs the ${n} agent(s) it declares, each gated below` : 'declares no fixed agents';
    const creates = entry.declared.createsGatedAgents ? ' and creates the rest per call with gatedAgent()' : '';
    return { status: 'attested', reason: `custom node that ${runs}${creates}: declared, not proven` };
  }
  const parentGuards = parent !== undefined && parent.status === 'gated';
  if (entry.kind === 'graph' || entry.kind === 'swarm') {
    if (hasNodeGuard(entry.target as Orchestrator)) {
      // The gate its guard requires of every node (a guard installed before marks carried it names none).
      const guard = nodeGuardMark(entry.target);
      return guard !== undefined && 'treeGateKey' in guard
        ? gatedVerdict(guard.treeGateKey, 'node guard installed')
        : { status: 'gated', reason: 'node guard installed' };
    }
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
  const agent = entry.target as Agent;
  const state = agentGateState(agent);
  if (state === 'gated') return gatedVerdict(agentGateMark(agent)?.gateKey, 'gate installed');
  if (state === 'pending-plugin')
    return gatedVerdict(pendingPluginKey(agent), 'GatePlugin installs the gate at the first run');
  if (assumeInstalled) return { status: 'gated', reason: 'installMultiagent would install the gate' };
  const removed = state === 'removed' ? 'its gate hooks were removed; ' : '';
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

/** How far from covered a status is, worst first: a declaring node answers with its worst declared agent. */
const DECLARED_SEVERITY: readonly NodeStatus[] = ['ungated', 'ungateable', 'blocked', 'accepted'];

/**
 * An `attested` custom node says it runs its declared agents, each gated: where one of them is not (ungated,
 * ungateable, blocked by the guard, or only accepted), the node's own row takes that agent's status, reason and
 * fix, so it never reads as covered above an agent that is not.
 */
function takeWorstDeclared(node: CoverageNode, declared: readonly CoverageNode[]): void {
  if (node.status !== 'attested') return;
  for (const status of DECLARED_SEVERITY) {
    const worst = declared.find((child) => child.status === status);
    if (worst === undefined) continue;
    node.status = status;
    const what = worst.kind === 'remote' ? 'remote agent' : worst.kind;
    node.reason = `custom node that runs its declared ${what} "${worst.id}", which is ${status}: ${worst.reason}`;
    // An attested row has no fix of its own to keep.
    if (worst.fix !== undefined) node.fix = worst.fix;
    return;
  }
}

/** Warns on every node whose gate shares its name with another gate of the report: names are not identities. */
function warnOnNameClashes(nodes: readonly CoverageNode[]): void {
  const idsByName = new Map<string, Set<string>>();
  for (const node of nodes) {
    if (node.gate === undefined) continue;
    const ids = idsByName.get(node.gate.name) ?? new Set<string>();
    ids.add(node.gate.id);
    idsByName.set(node.gate.name, ids);
  }
  for (const node of nodes) {
    const ids = node.gate === undefined ? undefined : idsByName.get(node.gate.name);
    if (ids === undefined || ids.size < 2) continue;
    node.warnings.push(
      `gate name "${node.gate!.name}" is used by ${ids.size} different gates in this report (ids ${[...ids].join(', ')}): ` +
        'names are not identities; give each gate its own name',
    );
  }
}

/** Something install would refuse the tree for: a finding of the preflight, or a gate conflict. */
type Refusal = Pick<Finding, 'path' | 'reason' | 'fix'> & { readonly kind: Finding['kind'] | 'gate-conflict' };

function build(
  root: unknown,
  mode: 'audit' | 'plan',
  assumeInstalled: boolean,
  refusals: readonly Refusal[],
  accept: readonly AcceptEntry[] | undefined,
): CoverageReport {
  const generator = checkedGenerator();
  const inventory = walk(root);
  const acceptedHere = new Map(
    acceptedEntries(inventory, accept).map(({ entry, reason }) => [joinPath(entry.path), reason]),
  );
  const entryAt = new Map(inventory.entries.map((entry) => [keyOf(entry.path), entry]));
  const graph = new DirectedGraph<NodeAttributes, EdgeAttributes>();
  const shared = new Map<unknown, string[]>();
  for (const { agent } of inventory.agents) {
    for (const handler of interventionHandlers(agent)) shared.set(handler, [...(shared.get(handler) ?? []), agent.id]);
  }
  for (const entry of inventory.entries) {
    const key = keyOf(entry.path);
    const parentKey = entry.path.length > 1 ? keyOf(entry.path.slice(0, -1)) : undefined;
    const first = entry.sameAs === undefined ? undefined : graph.getNodeAttribute(keyOf(entry.sameAs), 'node');
    // The orchestrator whose guard checks this entry: its parent, or for an agent a custom node declares, the
    // orchestrator holding that node.
    const guarding = guardingOrchestrator(entryAt, parentKey);
    const guardingRow =
      guarding === undefined || !graph.hasNode(keyOf(guarding.path))
        ? undefined
        : graph.getNodeAttribute(keyOf(guarding.path), 'node');
    const acceptance =
      acceptedHere.get(joinPath(entry.path)) ??
      acceptedByGuard(entry, parentKey === undefined ? undefined : entryAt.get(parentKey));
    // Judged at each place: one agent can be a tool here (its caller's gate asks for a live gate) and a node's
    // or a declared agent there (the guard asks for the tree's gate).
    const here = otherGateThanTree(entry, guarding, judge(entry, guardingRow, assumeInstalled, acceptance), entryAt);
    const verdict: Verdict =
      first === undefined ? here : { ...here, reason: `same object as ${first.path.join(' › ')}: ${here.reason}` };
    const isAgent = (entry.kind === 'agent' || entry.kind === 'agent-tool') && entry.problem === undefined;
    const tools = isAgent && first === undefined ? toolsOf(entry.target as Agent) : { tools: [], unknown: false };
    const node: CoverageNode = {
      path: [...entry.path],
      id: entry.id,
      kind: entry.kind,
      ...verdict,
      tools: tools.tools,
      toolsUnknownUntilInit: tools.unknown,
      warnings: [
        ...(hasHiddenCharacters(entry.id)
          ? ['its id holds control, bidi or invisible characters (shown escaped): check where the id comes from']
          : []),
        ...(isAgent && first === undefined ? agentWarnings(entry.target as Agent, shared) : []),
      ],
      ...(entry.sameAs === undefined ? {} : { sameAs: [...entry.sameAs] }),
    };
    graph.addNode(key, { node });
    if (parentKey !== undefined && graph.hasNode(parentKey))
      graph.addDirectedEdge(parentKey, key, { kind: 'contains' });
  }
  // Children are judged after their parent; a declaring node's row then answers for its declared agents.
  for (const entry of [...inventory.entries].reverse()) {
    if (entry.declared === undefined || entry.problem !== undefined) continue;
    const key = keyOf(entry.path);
    if (!graph.hasNode(key)) continue;
    const children = graph
      .filterOutNeighbors(key, (_child, attributes) => attributes.node.path.length === entry.path.length + 1)
      .map((child) => graph.getNodeAttribute(child, 'node'));
    takeWorstDeclared(graph.getNodeAttribute(key, 'node'), children);
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
  warnOnNameClashes(nodes);
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

export { summarize };

/** Options of `audit` and `plan`. */
export interface AuditOptions {
  /**
   * Remote (A2A) or opaque custom nodes acknowledged with a reason: reported `accepted` (counted apart,
   * never in coverage). Nodes accepted by an installed guard are reported so without this option.
   */
  readonly accept?: readonly AcceptEntry[];
  /**
   * `plan` only: the gate `installMultiagent` would be given. Without it, install resolves the configured gate at
   * each call (`configureGate`), and an agent that carries another gate conflicts with that.
   */
  readonly gate?: Gate;
}

/**
 * Audits an orchestrator (or an agent) as it stands: every node with its status, reason, gate, tools and
 * warnings. Pure: adds no hook and runs nothing.
 *
 * @param orchestrator - a Graph, a Swarm or an Agent
 * @param options - acknowledged remote or opaque nodes
 * @returns the coverage report
 * @throws GateAuditError `INVALID_ACCEPT` for an accept entry that names nothing acceptable
 */
export function audit(orchestrator: unknown, options: AuditOptions = {}): CoverageReport {
  if (isLangGraphValue(orchestrator)) return langGraphAudit(orchestrator, options);
  return build(orchestrator, 'audit', false, [], options.accept);
}

/**
 * Answers "what would `installMultiagent` do": every node as it would be after install, or, when the
 * preflight would refuse the tree, the tree as it stands plus every refusal.
 *
 * @param orchestrator - a Graph or Swarm
 * @param options - acknowledged remote or opaque nodes (as `installMultiagent` would get them)
 * @returns the coverage report in `plan` mode
 */
export function plan(orchestrator: unknown, options: AuditOptions = {}): CoverageReport {
  if (isLangGraphValue(orchestrator)) return langGraphPlan(orchestrator, options);
  // The gate as install reads it (a gate it would refuse as an argument is refused here alike).
  const requested =
    options.gate === undefined
      ? { key: CONFIGURED, name: CONFIGURED }
      : gateSource({ gate: options.gate }, `plan("${String(readData(orchestrator, 'id'))}")`);
  try {
    preflightTree(orchestrator, requested, options.accept);
  } catch (error) {
    if (error instanceof UngateableError) return build(orchestrator, 'plan', false, error.findings, options.accept);
    if (error instanceof GateConflictError) {
      return build(orchestrator, 'plan', false, error.conflicts.map(conflictRefusal), options.accept);
    }
    throw error;
  }
  return build(orchestrator, 'plan', true, [], options.accept);
}

/** A gate conflict install would refuse the tree for, as a refusal of the plan (in `GateConflictError`'s words). */
function conflictRefusal(conflict: GateConflict): Refusal {
  return {
    path: conflict.path,
    kind: 'gate-conflict',
    reason:
      conflict.existing === conflict.requested
        ? `carries another gate also named ${quoted(conflict.existing)} (a different gate object)`
        : `carries gate ${quoted(conflict.existing)}, not ${quoted(conflict.requested)}`,
    fix: 'install every agent with one gate (pass the same gate object), or remove the other gate first',
  };
}

export { notGatedLines };

/**
 * Nodes of a report gated by another gate than the one named, or whose gate name another gate shares, as
 * lines (what `--require-gate` and `toBeFullyGated({ gate })` fail on).
 *
 * @param report - the report
 * @param gateName - the name every gated node's gate must have
 */
export function otherGateLines(report: CoverageReport, gateName: string): string[] {
  const idsOfName = new Set(report.nodes.filter((n) => n.gate?.name === gateName).map((n) => n.gate!.id));
  const lines: string[] = [];
  for (const node of report.nodes) {
    if (node.status !== 'gated' || node.kind === 'graph' || node.kind === 'swarm') continue;
    if (node.gate === undefined) {
      lines.push(
        `${quoted(visiblePath(node.path))} is gated, but by a gate gate-audit cannot name | install gate ${quoted(gateName)}`,
      );
    } else if (node.gate.name !== gateName) {
      lines.push(
        `${quoted(visiblePath(node.path))} is gated by ${quoted(node.gate.name)}, not ${quoted(gateName)} | install gate ${quoted(gateName)} on it`,
      );
    } else if (idsOfName.size > 1) {
      lines.push(
        `${quoted(visiblePath(node.path))} is gated by a gate named ${quoted(gateName)}, but ${idsOfName.size} different gates carry that name | give each gate its own name`,
      );
    }
  }
  return lines;
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
