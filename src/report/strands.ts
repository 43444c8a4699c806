/**
 * How a Strands tree's places read in the coverage report (`coverage.ts` builds it): each place judged from
 * gate-audit's marks and from what checks it at run time (the node guard of the orchestrator holding it, or the gate
 * of the agent calling it), the tools and warnings of each agent, and the graphs' flow edges. Pure: adds no hook and
 * runs nothing.
 */
import type { AcceptEntry } from '../enforce/install-options.js';
import { acceptedEntries } from '../frameworks/strands/install.js';
import { joinPath, segmentOf, UNNAMED } from '../tree-paths.js';
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
import { type Entry, walk } from '../walker/walk.js';
import { buildCoverage, type Refusal } from './coverage.js';
import { gatedVerdict, type Verdict } from './gate-verdict.js';
import { checkedGenerator } from './generator.js';
import type { CoverageNode, CoverageReport } from './schema.js';

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

/**
 * The report of a Strands tree.
 *
 * @param root - a Graph, a Swarm or an Agent
 * @param mode - `audit`, or `plan`
 * @param assumeInstalled - `plan` of a tree install would take: rows read as after install
 * @param refusals - what install would refuse the tree for (`plan`)
 * @param accept - acknowledged remote or opaque nodes
 */
export function strandsReport(
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
  const shared = new Map<unknown, string[]>();
  for (const { agent } of inventory.agents) {
    for (const handler of interventionHandlers(agent)) shared.set(handler, [...(shared.get(handler) ?? []), agent.id]);
  }
  const isAgent = (entry: Entry): boolean =>
    (entry.kind === 'agent' || entry.kind === 'agent-tool') && entry.problem === undefined;
  return buildCoverage(
    { mode, entries: inventory.entries, rootKind: inventory.root.kind, flows: inventory.edges, refusals, generator },
    {
      kind: (entry) => entry.kind,
      verdict(entry, rowAt) {
        const parentKey = entry.path.length > 1 ? keyOf(entry.path.slice(0, -1)) : undefined;
        // The orchestrator whose guard checks this entry: its parent, or for an agent a custom node declares, the
        // orchestrator holding that node.
        const guarding = guardingOrchestrator(entryAt, parentKey);
        const guardingRow = guarding === undefined ? undefined : rowAt(guarding.path);
        const acceptance =
          acceptedHere.get(joinPath(entry.path)) ??
          acceptedByGuard(entry, parentKey === undefined ? undefined : entryAt.get(parentKey));
        // Judged at each place: one agent can be a tool here (its caller's gate asks for a live gate) and a node's
        // or a declared agent there (the guard asks for the tree's gate).
        return otherGateThanTree(entry, guarding, judge(entry, guardingRow, assumeInstalled, acceptance), entryAt);
      },
      details(entry) {
        if (!isAgent(entry)) return { tools: [], toolsUnknownUntilInit: false, warnings: [] };
        const tools = toolsOf(entry.target as Agent);
        return {
          tools: tools.tools,
          toolsUnknownUntilInit: tools.unknown,
          warnings: agentWarnings(entry.target as Agent, shared),
        };
      },
      framework: 'strands',
      declares: (entry) => entry.declared !== undefined,
      declaredReason: (worst) =>
        `custom node that runs its declared ${worst.kind === 'remote' ? 'remote agent' : worst.kind} "${worst.id}"`,
    },
  );
}
