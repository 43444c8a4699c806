/**
 * Installation on a Strands tree: check everything, then mutate once. `preflight` finds every problem in the tree
 * before anything changes; the plan (`strandsFramework.plan`) lists the mutations that gate every agent and
 * guard every orchestrator, which the neutral installer applies and undoes whole if one fails midway. Only when
 * everything is in place does the plan's commit record where each agent sits and make the fields the SDK reads
 * to choose what runs non-configurable.
 */
import type { Agent } from '@strands-agents/sdk';
import { type Accepted, checkAccept } from '../../enforce/accept.js';
import type { AcceptEntry, InstallOptions } from '../../enforce/install-options.js';
import { mutation } from '../../enforce/mutations.js';
import type { FrameworkInstaller, SeamPlan } from '../installer.js';
import type { Mutation } from '../seam.js';
import { strandsAdapter } from './adapter.js';
import { strandsRequest, type StrandsToolUse } from './request.js';
import {
  type Finding,
  type GateConflict,
  GateAuditError,
  GateConflictError,
  SdkMismatchError,
  UngateableError,
} from '../../errors.js';
import { joinPath, segmentOf, UNNAMED } from '../../tree-paths.js';
import { quoted } from '../../escape.js';
import { agentGateState, classifyExecutor, localBehind, openNode } from '../../walker/classify.js';
import { agentGateMark, gatePluginGate, isGatePlugin } from '../../walker/marks.js';
import { listTools, type Orchestrator, pendingPlugins, readAgentTool } from './sdk-internals.js';
import { className, readData } from '../../walker/safe-read.js';
import { nodeMap } from '../../walker/topology.js';
import { type Entry, type Inventory, walk } from '../../walker/walk.js';
import { type AgentGate, type GateSource, installAgentGate, promisedGateSource } from '../../enforce/agent-gate.js';
import { isGate } from '../../enforce/gate.js';
import { CONFIGURED, gateSource } from '../../enforce/gate-source.js';
import { type AcceptedNodes, installNodeGuard } from '../../enforce/node-guard.js';
import { type NodeRunKind, nodeRunProblem, wrapNodeRun } from '../../enforce/node-run.js';
import { setTreePlaces } from '../../enforce/run-state.js';
import { ensureSdk } from './sdk-check.js';
import { freezeFields, lockAgent, lockAgentTool, lockNode, lockOrchestrator } from './sdk-mutations.js';

/** Throws the one error that lists every finding, choosing `SdkMismatchError` when copies of the SDK differ. */
function refuse(findings: readonly Finding[]): never {
  if (findings.some((f) => f.kind === 'sdk-mismatch')) throw new SdkMismatchError(findings);
  throw new UngateableError(findings);
}

/** Problem kinds an `accept` entry may acknowledge: a remote agent or an opaque custom node. */
const ACCEPTABLE = new Set(['remote', 'custom-node', 'foreign-executor']);

/**
 * Why an opaque node cannot be accepted because of what it wraps: `accept` binds to what it names, and a
 * wrapper (a tracing `AgentNode` subclass, an instance with wrapped methods, a custom node holding an agent)
 * around a local Agent, Graph or Swarm would let that run ungated. Undefined when nothing local is behind it
 * as far as the walker can see (a remote agent is what `accept` is for).
 */
function wrapsLocal(entry: Entry): string | undefined {
  if (entry.problem?.kind === 'remote') return undefined;
  const behind = localBehind(entry.target);
  if (behind === undefined) return undefined;
  const what = `is a ${className(entry.target)} around a local ${behind.kind} (${quoted(behind.id)}) that`;
  if (behind.problem === undefined) {
    return `${what} can be gated: accept would let its tools run ungated | put the ${behind.kind} in the tree itself (a plain ${behind.kind === 'Agent' ? 'AgentNode' : 'MultiAgentNode'}) and trace it with hooks, or declare what the node runs (GOVERNS) so it is gated`;
  }
  return `${what} ${behind.problem.reason}, so accept would let a local ${behind.kind} run ungated | ${behind.problem.fix}`;
}

/** The walk's entries acknowledged by `accept`, checked: every entry must name exactly one acceptable node. */
export function acceptedEntries(inventory: Inventory, accept: readonly AcceptEntry[] | undefined): Accepted<Entry>[] {
  const byPath = new Map(inventory.entries.map((entry) => [joinPath(entry.path), entry]));
  return checkAccept(inventory.entries, accept, (entry, problem) => {
    if (!ACCEPTABLE.has(problem.kind) || (entry.kind !== 'remote' && entry.kind !== 'custom')) {
      return `cannot be accepted: it ${problem.reason} | ${problem.fix}`;
    }
    const wrapped = wrapsLocal(entry);
    if (wrapped !== undefined) return wrapped;
    const parent = byPath.get(joinPath(entry.path.slice(0, -1)));
    if (parent === undefined || (parent.kind !== 'graph' && parent.kind !== 'swarm')) {
      return `is not a node of an orchestrator (only remote or opaque nodes can be accepted) | ${problem.fix}`;
    }
    return undefined;
  });
}

/** The accepted nodes of each orchestrator, by node id, with the object found at install. */
function acceptedByOrchestrator(
  inventory: Inventory,
  entries: readonly { entry: Entry; reason: string }[],
): Map<Orchestrator, Map<string, { object: unknown; reason: string }>> {
  const result = new Map<Orchestrator, Map<string, { object: unknown; reason: string }>>();
  const orchestratorAt = new Map(inventory.orchestrators.map((o) => [joinPath(o.path), o.orchestrator]));
  for (const { entry, reason } of entries) {
    const orchestrator = orchestratorAt.get(joinPath(entry.path.slice(0, -1)));
    if (orchestrator === undefined) continue;
    const nodes = nodeMap(orchestrator);
    if (typeof nodes === 'string') continue;
    for (const [key, node] of nodes) {
      const content = openNode(node);
      const object = content.via === 'agent-node' || content.via === 'multi-agent-node' ? content.executor : node;
      if (object === entry.target || node === entry.target) {
        const accepted = result.get(orchestrator) ?? new Map<string, { object: unknown; reason: string }>();
        accepted.set(String(key), { object: entry.target, reason });
        result.set(orchestrator, accepted);
      }
    }
  }
  return result;
}

/** A custom node or executor whose run is wrapped in the run context at install. */
interface NodeRun {
  readonly target: object;
  readonly kind: NodeRunKind;
  readonly path: readonly string[];
  /** It declares what it runs (it must be wrapped), or it was accepted as opaque (wrapped when it can be). */
  readonly required: boolean;
}

/**
 * The custom nodes and executors that run as nodes of the tree's orchestrators: a custom `Node` that declares,
 * a custom executor behind an `AgentNode` or `MultiAgentNode` that declares, and an accepted opaque one (which
 * may declare later).
 */
function nodeRunsOf(
  inventory: Inventory,
  accepted: Map<Orchestrator, Map<string, { object: unknown; reason: string }>>,
): NodeRun[] {
  const found: NodeRun[] = [];
  const seen = new Set<object>();
  for (const { orchestrator, path } of inventory.orchestrators) {
    const nodes = nodeMap(orchestrator);
    if (typeof nodes === 'string') continue;
    const accepts = accepted.get(orchestrator);
    for (const [key, node] of nodes) {
      const content = openNode(node);
      const isExecutor = content.via === 'agent-node' || content.via === 'multi-agent-node';
      const target: unknown = isExecutor ? content.executor : node;
      if (typeof target !== 'object' || target === null || seen.has(target)) continue;
      const classified = isExecutor ? classifyExecutor(target) : undefined;
      const declares = content.via === 'declared' || (classified !== undefined && 'declared' in classified);
      const opaque = content.via === 'custom' || classified?.kind === 'custom';
      const isAccepted = accepts?.has(String(key)) === true && opaque;
      if (!declares && !isAccepted) continue;
      seen.add(target);
      found.push({
        target,
        kind: isExecutor ? 'executor' : 'node',
        path: [...path, segmentOf(key, UNNAMED)],
        required: declares,
      });
    }
  }
  return found;
}

/** What `preflight` found: the inventory, and the nodes accepted by `accept` entries. */
export interface Preflight {
  readonly inventory: Inventory;
  readonly accepted: readonly { entry: Entry; reason: string }[];
  /** The accepted nodes of each orchestrator, by node id, with the object found at install. */
  readonly acceptedNodes: Map<Orchestrator, Map<string, { object: unknown; reason: string }>>;
  /** The custom nodes and executors whose run install wraps in the run context. */
  readonly nodeRuns: readonly NodeRun[];
}

/**
 * Walks the orchestrator and throws, before anything is changed, one error listing every part of the tree
 * that cannot be gated in-process (accepted nodes aside).
 *
 * @param orchestrator - a Graph or Swarm
 * @param accept - acknowledged remote or opaque nodes
 * @returns the inventory to install on
 */
export function preflight(orchestrator: unknown, accept?: readonly AcceptEntry[]): Preflight {
  const inventory = walk(orchestrator);
  const { root } = inventory;
  if (root.kind !== 'graph' && root.kind !== 'swarm') {
    if (root.problem?.kind === 'sdk-mismatch' || root.problem?.kind === 'proxy') refuse(inventory.findings);
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `value=<${className(orchestrator)}> | installMultiagent expects a Graph or Swarm | ` +
        'pass the orchestrator; use install(agent) for a single agent',
    );
  }
  const accepted = acceptedEntries(inventory, accept);
  const acceptedPaths = new Set(accepted.map(({ entry }) => joinPath(entry.path)));
  const findings = inventory.findings.filter((f) => !acceptedPaths.has(joinPath(f.path)));
  // A governed custom node whose run cannot be wrapped is refused with the rest (so plan reports it too); an
  // accepted opaque one that cannot be is left as it was (it runs as accepted; the guard cancels it if it
  // declares agents later).
  const acceptedNodes = acceptedByOrchestrator(inventory, accepted);
  const nodeRuns = nodeRunsOf(inventory, acceptedNodes).filter(
    (run) => nodeRunProblem(run.target) === undefined || run.required,
  );
  for (const run of nodeRuns) {
    const problem = nodeRunProblem(run.target);
    if (problem === undefined) continue;
    findings.push({
      path: run.path,
      kind: 'custom-node',
      reason: problem,
      fix: 'keep the node extensible, with a stream method that is plain data (no getter, no fixed own stream)',
    });
  }
  if (findings.length > 0) refuse(findings);
  return { inventory, accepted, acceptedNodes, nodeRuns };
}

/** The gate an agent carries (or a pending `GatePlugin` will install), as a key and a name. */
function existingGate(agent: Agent): { key: unknown; name: string } | undefined {
  const mark = agentGateMark(agent);
  if (mark !== undefined) return { key: mark.gateKey, name: typeof mark.gateName === 'string' ? mark.gateName : '?' };
  for (const plugin of pendingPlugins(agent)) {
    if (!isGatePlugin(plugin)) continue;
    const gate = gatePluginGate(plugin);
    if (gate === undefined) return { key: CONFIGURED, name: CONFIGURED };
    return { key: gate, name: isGate(gate) ? gate.name : '?' };
  }
  return undefined;
}

/** Every agent that carries (or will carry) another gate than `source`. */
function conflictsOf(
  agents: readonly { agent: Agent; path: readonly string[] }[],
  source: Pick<GateSource, 'key' | 'name'>,
): GateConflict[] {
  const conflicts: GateConflict[] = [];
  for (const { agent, path } of agents) {
    const existing = existingGate(agent);
    if (existing !== undefined && existing.key !== source.key) {
      conflicts.push({ path, existing: existing.name, requested: source.name });
    }
  }
  return conflicts;
}

/**
 * Everything `installMultiagent` checks of a tree before it changes anything, for the gate it is given: what
 * `preflight` refuses, then every agent that carries (or whose pending `GatePlugin` will install) another gate.
 * `plan` runs exactly this, so it reports what install would refuse.
 *
 * @param orchestrator - a Graph or Swarm
 * @param requested - the gate install is given (its key: the gate object, or `configured`), and its name
 * @param accept - acknowledged remote or opaque nodes
 * @throws UngateableError (or SdkMismatchError) listing every part that cannot be gated
 * @throws GateConflictError listing every agent that carries another gate
 */
export function preflightTree(
  orchestrator: unknown,
  requested: Pick<GateSource, 'key' | 'name'>,
  accept?: readonly AcceptEntry[],
): Preflight {
  const checked = preflight(orchestrator, accept);
  const conflicts = conflictsOf(checked.inventory.agents, requested);
  if (conflicts.length > 0) throw new GateConflictError(conflicts);
  return checked;
}

const handles = new WeakMap<Agent, AgentGate>();

function existingHandle(agent: Agent): AgentGate {
  const known = handles.get(agent);
  if (known !== undefined) return known;
  const mark = agentGateMark(agent);
  return {
    agent,
    path: mark?.path ?? [segmentOf(readData(agent, 'id'), UNNAMED)],
    gateName: mark?.gateName ?? 'unknown',
    isActive: () => agentGateState(agent) === 'gated',
    uninstall: () => undefined,
  };
}

/** The gate a pending `GatePlugin` of the agent would install, read from its mark (the plugin is not called). */
function pendingGatePluginSource(agent: Agent): GateSource | undefined {
  return agentGateState(agent) === 'pending-plugin' ? promisedGateSource(agent) : undefined;
}

/** Locks the fields the SDK reads to choose what runs, once everything is installed. */
function lockTree(inventory: Inventory): void {
  for (const { agent } of inventory.agents) {
    lockAgent(agent);
    lockAgentTools(agent);
  }
  for (const { orchestrator } of inventory.orchestrators) {
    lockOrchestrator(orchestrator);
    const nodes = nodeMap(orchestrator);
    if (typeof nodes !== 'string') for (const node of nodes.values()) lockNode(node as object);
    const edges = readData(orchestrator, 'edges');
    if (Array.isArray(edges)) for (const edge of edges) freezeFields(edge as object, ['source', 'target']);
  }
}

/** Freezes the agent inside each agent-as-tool an agent has now. */
function lockAgentTools(agent: Agent): void {
  for (const tool of listTools(agent)) if (readAgentTool(tool).kind === 'agent-tool') lockAgentTool(tool as object);
}

/**
 * Gates one local `Agent`. Idempotent: an agent that carries the same gate already keeps it, and its
 * existing handle is returned. Its place counts as unknown (no tree says where it runs): path rules that
 * refuse hold for it, path rules that allow do not.
 *
 * @param agent - a local Strands Agent
 * @param options - `{ gate, timeoutMs }`; without a gate the configured gate is resolved at each call
 * @returns the handle on the agent's gate
 * @throws NoGateError when no gate is given or configured
 * @throws GateConflictError when the agent carries another gate
 * @throws UngateableError (or SdkMismatchError) when the agent cannot be gated in-process
 * @throws GateAuditError `SDK_SHAPE`, `SDK_UNTESTED` or `SDK_BEHAVIOUR` when the loaded SDK cannot be used
 */
export function installAgent(agent: Agent, options?: InstallOptions): AgentGate {
  ensureSdk({ requireTested: options?.requireTestedSdk === true });
  const subject = `install(agent "${String(readData(agent, 'id'))}")`;
  const classified = classifyExecutor(agent);
  const path = [segmentOf(readData(agent, 'id'), UNNAMED)];
  if (classified.kind !== 'agent' || classified.problem !== undefined) {
    const problem = classified.problem ?? {
      kind: 'foreign-executor' as const,
      reason: `is a ${classified.kind}, not an Agent`,
      fix: 'use installMultiagent for a Graph or Swarm',
    };
    refuse([{ path, ...problem }]);
  }
  const requested = options?.gate ?? CONFIGURED;
  const existing = existingGate(agent);
  if (existing !== undefined && existing.key !== requested) {
    throw new GateConflictError([
      { path, existing: existing.name, requested: options?.gate === undefined ? CONFIGURED : options.gate.name },
    ]);
  }
  // Options are checked, and a gate resolved, on every call: a repeated install is refused where a first one
  // would be (as installMultiagent does). An agent gated already gets no second gate, and its handle back.
  const source = pendingGatePluginSource(agent) ?? gateSource(options, subject);
  const handle = installAgentGate(agent, source, path) ?? existingHandle(agent);
  handles.set(agent, handle);
  lockAgent(agent);
  lockAgentTools(agent);
  return handle;
}

/**
 * Plans the install of a Graph or Swarm tree: the SDK checked, the gate resolved, `preflightTree` (every problem
 * and every conflicting gate at once), then a mutation per agent to gate, per orchestrator to guard, and per
 * custom node whose run is wrapped. Its commit records where each agent sits and locks the fields the SDK reads
 * to choose what runs.
 */
function planStrands(orchestrator: unknown, options: InstallOptions | undefined): SeamPlan<AgentGate> {
  ensureSdk({ requireTested: options?.requireTestedSdk === true });
  const source = gateSource(options, `installMultiagent("${String(readData(orchestrator, 'id'))}")`);
  const { inventory, acceptedNodes, nodeRuns } = preflightTree(orchestrator, source, options?.accept);
  // An agent waiting on its GatePlugin gets that plugin's gate now (checked here, before any change), so
  // nothing in the tree runs on a promise that a look-alike plugin would not keep.
  const pluginSources = new Map<Agent, GateSource>();
  for (const { agent } of inventory.agents) {
    const own = pendingGatePluginSource(agent);
    if (own !== undefined) pluginSources.set(agent, own);
  }
  // What the preflight checked is each mutation's check: nothing is left to refuse once it passed.
  const checked = (): undefined => undefined;
  const installed: AgentGate[] = [];
  const mutations: Mutation[] = [
    ...inventory.agents.map(({ agent, path }) =>
      mutation(`agent ${quoted(String(readData(agent, 'id')))}`, path, checked, () => {
        const handle = installAgentGate(agent, pluginSources.get(agent) ?? source, path, source);
        if (handle === undefined) return () => undefined;
        installed.push(handle);
        handles.set(agent, handle);
        return () => {
          handle.uninstall();
          handles.delete(agent);
          installed.splice(installed.indexOf(handle), 1);
        };
      }),
    ),
    ...inventory.orchestrators.map(({ orchestrator: node, path }) =>
      mutation(`guard of ${quoted(String(readData(node, 'id')))}`, path, checked, () => {
        const accepts: AcceptedNodes = acceptedNodes.get(node) ?? new Map();
        return installNodeGuard(node, path, () => source.resolve(), accepts, source) ?? (() => undefined);
      }),
    ),
    ...nodeRuns.map(({ target, kind, path }) =>
      mutation(`run of ${kind} ${quoted(joinPath(path))}`, path, checked, () => wrapNodeRun(target, kind)),
    ),
  ];
  return {
    subject: `orchestrator=<${String(readData(orchestrator, 'id'))}>`,
    mutations,
    commit: () => {
      setTreePlaces(orchestrator as Orchestrator, inventory.places);
      lockTree(inventory);
      // The wrapper of each custom node's run stays what install put there (the node guard checks it too).
      for (const { target } of nodeRuns) freezeFields(target, ['stream']);
      return [...installed];
    },
  };
}

/** Strands behind the seam: the adapter's readers, its install plan, and its requests. */
export const strandsFramework: FrameworkInstaller<AgentGate, InstallOptions, StrandsToolUse> = {
  ...strandsAdapter,
  plan: planStrands,
  toRequest: strandsRequest,
};
