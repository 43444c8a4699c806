/**
 * The fail-closed node guard on every orchestrator of the tree. The SDK chooses the node object first
 * (a Swarm's `nodes.get(target)` or `start`, a Graph's edge targets and entry nodes) and fires
 * `BeforeNodeCallEvent` with the node's id only, after other code may have run (handoff hooks, stream
 * consumers, earlier node hooks). So the guard works in three places (`docs/sdk-paths.md`, "Which node
 * runs"):
 *
 * - a `MultiAgentHandoffEvent` callback, first of all, records the object each target id names at the
 *   moment the SDK chose it;
 * - a `BeforeNodeCallEvent` callback, first of all (the witness), records what the node id names when
 *   the event starts, or takes the handoff record;
 * - a `BeforeNodeCallEvent` callback, last of all (the guard), cancels the node unless the object about to
 *   run is still the one recorded, the orchestrator's topology is consistent (every key is its node's id,
 *   every edge, entry node and `start` is the object in `nodes`, all read as plain data), the run was not
 *   stopped by a gate failure, and what the node runs carries a live gate or guard (or was accepted).
 *
 * A topology that changes while the orchestrator runs, or a node swapped after the SDK chose it, is
 * tampering: the node is cancelled and the whole run stops.
 */
import { GateAuditError, messageOf } from '../errors.js';
import { classifyExecutor, declaredRefusal, executorRefusal, hasNodeGuard, openNode } from '../walker/classify.js';
import type { Declared } from '../walker/declare.js';
import {
  NODE_GUARD_MARK,
  type MarkedHook,
  type NodeGuardMark,
  nodeGuardMark,
  noteNodeGuardMark,
} from '../walker/marks.js';
import {
  BeforeNodeCallEvent,
  Graph,
  graphSources,
  MultiAgentHandoffEvent,
  type Orchestrator,
  orchestratorHooks,
} from '../frameworks/strands/sdk-internals.js';
import { readData } from '../walker/safe-read.js';
import { nodeMap, topologyProblems } from '../walker/topology.js';
import { adoptPendingPlugin, treeGateRefusal } from './agent-gate.js';
import { ERROR, viewOf } from './call.js';
import type { Gate } from './gate.js';
import { log } from './log.js';
import { observeNode } from './observe.js';
import { nodeRunRefusal } from './node-run.js';
import { enterOrchestratorRun, expectNode, runFailure, stopRun } from './run-state.js';
import {
  addOrchestratorHook,
  holdCancel,
  keepCancel,
  moveOrchestratorHookFirst,
} from '../frameworks/strands/sdk-mutations.js';

/** Prefix of the message a cancelled node carries. */
export const UNGATED_NODE = '[gate] UNGATED NODE:';

/** A recorded node choice that cannot be trusted (the topology was inconsistent when it was made). */
const POISONED = Symbol('gate-audit.poisoned-choice');

/** Nodes accepted at install (remote or opaque), by node id: the one object let through at that id, and why. */
export type AcceptedNodes = ReadonlyMap<string, { readonly object: unknown; readonly reason: string }>;

/**
 * Why the agents a custom node or executor declares must not run, or undefined when they may: each runs as a
 * node's agent does (a promised gate is installed first, it carries a live gate, the tree's gate), and so does
 * each agent a declared executor declares in turn.
 */
function declaredAgentsRefusal(declared: Declared, treeGate: TreeGate | undefined): string | undefined {
  for (const executor of declared.agents) {
    const adopted = adoptPendingPlugin(executor);
    if (adopted !== undefined) return `has a declared executor that ${adopted.replace(/^runs /, 'is ')}`;
  }
  const refusal = declaredRefusal(declared);
  if (refusal !== undefined) return refusal;
  for (const executor of declared.agents) {
    const other = otherTreeGate(executor, treeGate);
    if (other !== undefined) return other;
    // A declaration cycle never gets here: `declaredRefusal` above recurses through it first, and the guard's
    // catch cancels the node when the stack runs out.
    const nested = declarationOf(executor);
    const inner = nested === undefined ? undefined : declaredAgentsRefusal(nested, treeGate);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

/** What an executor declares it runs, when it is a custom executor that declares. */
function declarationOf(executor: unknown): Declared | undefined {
  const classified = classifyExecutor(executor);
  return classified.problem === undefined && 'declared' in classified ? classified.declared : undefined;
}

/** Why the node chosen must not run, or undefined when it may. */
function contentRefusal(
  node: unknown,
  accepted: AcceptedNodes,
  nodeId: string,
  treeGate: TreeGate | undefined,
): string | undefined {
  const content = openNode(node);
  const acceptance = accepted.get(nodeId);
  if (acceptance !== undefined) {
    const object = acceptance.object;
    const executor = content.via === 'agent-node' || content.via === 'multi-agent-node' ? content.executor : node;
    if (object !== node && object !== executor) {
      return 'is not the object accepted at install (it was swapped) | accept entries cover the executor found at install only';
    }
    // Accepted as remote or opaque; one that declares agents now runs them, and they are judged as any node's.
    const declared = content.via === 'declared' ? content.declared : declarationOf(executor);
    return declared === undefined ? undefined : governedRefusal(executor, declared, treeGate);
  }
  if (content.via === 'custom') return `${content.problem.reason} | ${content.problem.fix}`;
  if (content.via === 'declared') return governedRefusal(node, content.declared, treeGate);
  // An executor that declares (behind an AgentNode or MultiAgentNode) is judged by what it declares.
  const declared = declarationOf(content.executor);
  if (declared !== undefined) return governedRefusal(content.executor, declared, treeGate);
  return (
    adoptPendingPlugin(content.executor) ??
    executorRefusal(content.executor) ??
    otherTreeGate(content.executor, treeGate)
  );
}

/**
 * Why a governed custom node (or executor) must not run: what it declares is refused, or its run is not wrapped in
 * the run context (so the agents it starts would not join the run).
 */
function governedRefusal(target: unknown, declared: Declared, treeGate: TreeGate | undefined): string | undefined {
  return declaredAgentsRefusal(declared, treeGate) ?? nodeRunRefusal(target);
}

/**
 * Notes in the run what a node let through starts: an agent, a nested Graph or Swarm, or a custom node's run (the
 * node itself, or the custom executor behind an `AgentNode` or `MultiAgentNode`) is this node of the run, at the
 * node's places in the run's tree.
 */
function noteStart(invocationState: unknown, node: unknown, orchestrator: Orchestrator, nodeId: string): void {
  const content = openNode(node);
  const executor = content.via === 'agent-node' || content.via === 'multi-agent-node' ? content.executor : node;
  expectNode(invocationState, executor, orchestrator, nodeId);
}

/** One gate per tree (`treeGateRefusal`), where the tree's gate is known. */
function otherTreeGate(executor: unknown, treeGate: TreeGate | undefined): string | undefined {
  if (treeGate === undefined) return undefined;
  return treeGateRefusal(executor, treeGate, 'call installMultiagent(orchestrator) after adding or swapping nodes');
}

/** The gate an orchestrator's tree was installed with: its key (gate object or `configured`) and name. */
export interface TreeGate {
  readonly key: unknown;
  readonly name: string;
}

function callbackAt(orchestrator: Orchestrator, eventClass: unknown, index: 'first' | 'last'): unknown {
  const hooks = orchestratorHooks(orchestrator, eventClass);
  if (hooks === undefined || hooks.length === 0) return undefined;
  return (index === 'first' ? hooks[0] : hooks[hooks.length - 1])?.callback;
}

/**
 * Installs the guard on one orchestrator, unless it carries a live one already.
 *
 * @param orchestrator - the Graph or Swarm
 * @param path - where it sits in its tree
 * @param gate - resolves the gate whose `record` is told of each cancelled node
 * @param accepted - nodes accepted at install (remote or opaque), by node id
 * @returns the cleanup that removes it, or undefined when nothing was installed
 */
export function installNodeGuard(
  orchestrator: Orchestrator,
  path: readonly string[],
  gate: () => Gate | undefined = () => undefined,
  accepted: AcceptedNodes = new Map(),
  treeGate?: TreeGate,
): (() => void) | undefined {
  if (hasNodeGuard(orchestrator)) return undefined;
  const handoffs = new WeakMap<object, Map<string, unknown>>();
  const witnessed = new WeakMap<object, unknown>();
  const where = path.join(' › ');
  const orchestratorId = String(readData(orchestrator, 'id'));

  const tamper = (invocationState: unknown, problem: string): void => {
    stopRun(invocationState, `orchestrator "${where}" was tampered with while it ran: ${problem}`);
  };

  /** What the orchestrator chose per node id in one invocation (keyed by the run's state object). */
  const choicesOf = (state: object): Map<string, unknown> => {
    const known = handoffs.get(state);
    if (known !== undefined) return known;
    const choices = new Map<string, unknown>();
    handoffs.set(state, choices);
    // The first node call of an invocation: what the SDK started from (no other code ran since it read it).
    const entries = orchestrator instanceof Graph ? graphSources(orchestrator) : [readData(orchestrator, 'start')];
    for (const entry of entries) choices.set(String(readData(entry, 'id')), entry);
    return choices;
  };

  const recordHandoff = (event: MultiAgentHandoffEvent): void => {
    const targets = Array.isArray(event.targets) ? event.targets.map(String) : [];
    const choices = handoffs.get(event.state) ?? choicesOf(event.state);
    try {
      if (callbackAt(orchestrator, MultiAgentHandoffEvent, 'first') !== recordHandoff) {
        tamper(event.invocationState, 'another hook ran before the handoff record');
        for (const target of targets) choices.set(target, POISONED);
        return;
      }
      const nodes = nodeMap(orchestrator);
      for (const target of targets) {
        const consistent = typeof nodes !== 'string' && topologyProblems(orchestrator, target).length === 0;
        choices.set(target, consistent ? nodes.get(target) : POISONED);
      }
    } catch (error) {
      tamper(event.invocationState, `the handoff could not be recorded: ${messageOf(error)}`);
      for (const target of targets) choices.set(target, POISONED);
    }
  };

  /** The run each invocation of the orchestrator (by its state object) was entered in. */
  const entered = new WeakMap<object, unknown>();

  const witness = (event: BeforeNodeCallEvent): void => {
    // First of all: no hook in between can make the cancel one the guard cannot set.
    keepCancel(event);
    try {
      // The first node call of an invocation (or of its resume): where the orchestrator runs in the run.
      if (entered.get(event.state) !== event.invocationState) {
        entered.set(event.state, event.invocationState);
        enterOrchestratorRun(event.invocationState, orchestrator);
      }
      const nodeId = String(event.nodeId);
      const choices = choicesOf(event.state);
      const chosen = choices.has(nodeId) ? choices.get(nodeId) : undefined;
      choices.delete(nodeId);
      if (callbackAt(orchestrator, BeforeNodeCallEvent, 'first') !== witness) {
        tamper(event.invocationState, 'another hook ran before the node witness');
        witnessed.set(event, POISONED);
        return;
      }
      const nodes = nodeMap(orchestrator);
      if (typeof nodes === 'string' || topologyProblems(orchestrator, nodeId).length > 0) {
        witnessed.set(event, POISONED);
        return;
      }
      witnessed.set(event, chosen ?? nodes.get(nodeId));
    } catch (error) {
      tamper(event.invocationState, `the node call could not be witnessed: ${messageOf(error)}`);
      witnessed.set(event, POISONED);
    }
  };

  const guard = (event: BeforeNodeCallEvent): void => {
    let refusal: string | undefined;
    let nodeId = '(unknown)';
    try {
      nodeId = String(event.nodeId);
      refusal = nodeRefusal(event, nodeId);
    } catch (error) {
      refusal = `could not be checked: ${messageOf(error)}`;
      tamper(event.invocationState, refusal);
    }
    const last = callbackAt(orchestrator, BeforeNodeCallEvent, 'last') === guard;
    if (!last && refusal === undefined)
      refusal = 'has a node hook registered after the guard, which could clear its cancel';
    if (refusal !== undefined) cancel(event, nodeId, refusal);
    // A callback after the guard could clear its cancel: stop the orchestrator instead of trusting it.
    if (!last) {
      tamper(event.invocationState, 'a node hook was registered after the guard');
      throw new GateAuditError(
        'GATE_FAILED',
        `${ERROR} orchestrator "${where}" has a node hook after gate-audit's guard; the run was stopped | ` +
          "do not reorder the orchestrator's hook registry",
      );
    }
  };

  const nodeRefusal = (event: BeforeNodeCallEvent, nodeId: string): string | undefined => {
    const failure = runFailure(event.invocationState);
    const chosen = witnessed.has(event) ? witnessed.get(event) : POISONED;
    witnessed.delete(event);
    if (failure !== undefined) return `was not run: ${failure}`;
    const problems = topologyProblems(orchestrator, nodeId);
    if (problems.length > 0) return `has an inconsistent topology: ${problems.join('; ')}`;
    const nodes = nodeMap(orchestrator);
    if (typeof nodes === 'string') return nodes;
    const current = nodes.get(nodeId);
    if (current === undefined) return "is not in the orchestrator's nodes";
    if (chosen === POISONED || current !== chosen) {
      tamper(event.invocationState, `node "${nodeId}" was swapped after the orchestrator chose it`);
      return 'was swapped after the orchestrator chose it: the object about to run is not the one in nodes now';
    }
    const refusal = contentRefusal(chosen, accepted, nodeId, treeGate);
    if (refusal === undefined) noteStart(event.invocationState, chosen, orchestrator, nodeId);
    return refusal;
  };

  const cancel = (event: BeforeNodeCallEvent, nodeId: string, refusal: string): void => {
    const text = `${UNGATED_NODE} node "${nodeId}" in "${where}" ${refusal}`;
    const held = holdCancel(event, text, () =>
      tamper(event.invocationState, `something tried to clear the cancel of node "${nodeId}"`),
    );
    if (!held) {
      // A hook made the cancel unchangeable: the node would run. Stop the run (every gate in it refuses) and throw.
      tamper(event.invocationState, `the cancel of node "${nodeId}" could not be set`);
      throw new GateAuditError(
        'GATE_FAILED',
        `${ERROR} orchestrator "${where}": node "${nodeId}" must not run (${refusal}), and a node hook made its ` +
          'cancel unchangeable; the run was stopped | do not redefine the cancel of node events',
      );
    }
    observeNode(() => {
      const view = viewOf(gate());
      return { orchestrator, nodeId, reason: text, ...(view === undefined ? {} : { gate: view.name }) };
    });
    try {
      log('error', { orchestrator: orchestratorId, node: nodeId }, 'node cancelled by the guard');
      const view = viewOf(gate());
      const written = view?.record?.({ event: 'node-cancelled', verdict: 'deny', reason: text, nodeId, path });
      if (written instanceof Promise) written.catch(() => undefined);
    } catch (error) {
      // The node is cancelled either way; the failed record is not silent.
      try {
        log(
          'error',
          { orchestrator: orchestratorId, node: nodeId },
          `could not record the cancel: ${messageOf(error)}`,
        );
      } catch {
        // stderr failed too
      }
    }
  };

  const cleanups: (() => void)[] = [];
  const hooks: MarkedHook[] = [];
  const add = <E>(eventClass: new (...args: never[]) => E, callback: (event: E) => void, order: number): void => {
    cleanups.push(addOrchestratorHook(orchestrator, eventClass, callback, order));
    hooks.push({ event: eventClass, callback });
  };
  const mark: NodeGuardMark = {
    guardHook: guard,
    hooks,
    accepted,
    ...(treeGate === undefined ? {} : { treeGateKey: treeGate.key, treeGateName: treeGate.name }),
  };
  try {
    add(BeforeNodeCallEvent, guard, Number.POSITIVE_INFINITY);
    add(BeforeNodeCallEvent, witness, Number.NEGATIVE_INFINITY);
    moveOrchestratorHookFirst(orchestrator, BeforeNodeCallEvent, witness);
    add(MultiAgentHandoffEvent, recordHandoff, Number.NEGATIVE_INFINITY);
    moveOrchestratorHookFirst(orchestrator, MultiAgentHandoffEvent, recordHandoff);
    Object.defineProperty(orchestrator, NODE_GUARD_MARK, { value: mark, configurable: true, enumerable: false });
    noteNodeGuardMark(orchestrator, mark);
  } catch (error) {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
    throw error;
  }
  return () => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
    if (nodeGuardMark(orchestrator) === mark) {
      delete (orchestrator as unknown as Record<symbol, unknown>)[NODE_GUARD_MARK];
      noteNodeGuardMark(orchestrator, undefined);
    }
  };
}
