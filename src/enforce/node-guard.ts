/**
 * The fail-closed node guard: a `BeforeNodeCallEvent` callback on every orchestrator of the tree that
 * resolves, at the moment a node is about to run, what the node will really execute, and cancels it
 * unless that carries a live gate (an agent) or a live guard (a nested Graph or Swarm).
 *
 * It resolves at run time because nodes, `AgentNode._agent`, edges and `swarm.start` can all be swapped
 * after install, and it checks object identity because the event carries only a node id
 * (`sdk-gaps.md` rows 53, 59, 64–68).
 */
import { messageOf } from '../errors.js';
import { agentGateState, classifyExecutor, hasNodeGuard, openNode } from '../walker/classify.js';
import type { Declared } from '../walker/declare.js';
import { NODE_GUARD_MARK, type NodeGuardMark, nodeGuardMark } from '../walker/marks.js';
import type { BeforeNodeCallEvent, Orchestrator } from '../walker/sdk-internals.js';
import { topologyProblems } from '../walker/topology.js';
import type { Gate } from './gate.js';
import { log } from './log.js';
import { addNodeHookLast } from './sdk-mutations.js';

/** Prefix of the message a cancelled node carries. */
export const UNGATED_NODE = '[gate] UNGATED NODE:';

/**
 * Says why the node about to run must not run, or undefined when it is covered.
 *
 * @param orchestrator - the orchestrator firing the event
 * @param nodeId - the id the event names
 */
export function nodeRefusal(orchestrator: Orchestrator, nodeId: string): string | undefined {
  const node = orchestrator.nodes.get(nodeId);
  if (node === undefined) return "is not in the orchestrator's nodes";
  const topology = topologyProblems(orchestrator, nodeId);
  if (topology.length > 0) return `has an inconsistent topology: ${topology.join('; ')}`;
  const content = openNode(node);
  if (content.via === 'custom') return `${content.problem.reason} | ${content.problem.fix}`;
  if (content.via === 'declared') return declaredRefusal(content.declared);
  return executorRefusal(content.executor);
}

/** Why an executor about to run must not run, or undefined when it carries a live gate or guard. */
function executorRefusal(executor: unknown): string | undefined {
  const classified = classifyExecutor(executor);
  if (classified.problem !== undefined) return `${classified.problem.reason} | ${classified.problem.fix}`;
  if ('declared' in classified) return declaredRefusal(classified.declared);
  if (classified.kind === 'agent') {
    const state = agentGateState(classified.agent);
    if (state === 'none')
      return 'runs an agent that carries no gate | call installMultiagent(orchestrator) after adding or swapping nodes';
    if (state === 'removed') return "runs an agent whose gate hook was removed | do not remove gate-audit's hooks";
    return undefined;
  }
  if (classified.kind === 'graph' || classified.kind === 'swarm') {
    if (!hasNodeGuard(classified.orchestrator)) {
      return `runs a nested ${classified.kind} without a node guard | call installMultiagent on the outer orchestrator again`;
    }
    return undefined;
  }
  return 'runs something that cannot be gated';
}

/** A declared custom node runs only if everything it declares (read again now) carries a live gate or guard. */
function declaredRefusal(declared: Declared): string | undefined {
  for (const executor of declared.agents) {
    const refusal = executorRefusal(executor);
    if (refusal !== undefined) return `has a declared executor that ${refusal.replace(/^runs /, 'is ')}`;
  }
  return undefined;
}

/**
 * Installs the guard on one orchestrator, unless it carries a live one already.
 *
 * @param orchestrator - the Graph or Swarm
 * @param path - where it sits in its tree
 * @param gate - resolves the gate whose `record` is told of each cancelled node
 * @returns the cleanup that removes it, or undefined when nothing was installed
 */
export function installNodeGuard(
  orchestrator: Orchestrator,
  path: readonly string[],
  gate: () => Gate | undefined = () => undefined,
): (() => void) | undefined {
  if (hasNodeGuard(orchestrator)) return undefined;
  const guard = (event: BeforeNodeCallEvent): void => {
    let refusal: string | undefined;
    try {
      refusal = nodeRefusal(orchestrator, event.nodeId);
    } catch (error) {
      refusal = `could not be checked: ${messageOf(error)}`;
    }
    if (refusal === undefined) return;
    const text = `${UNGATED_NODE} node "${event.nodeId}" in "${path.join(' › ')}" ${refusal}`;
    log('error', { orchestrator: orchestrator.id, node: event.nodeId }, 'node cancelled by the guard');
    event.cancel = text;
    try {
      gate()?.record?.({ event: 'node-cancelled', verdict: 'deny', reason: text, nodeId: event.nodeId, path });
    } catch (error) {
      // The node is cancelled either way; the failed record is not silent.
      const message = messageOf(error);
      log('error', { orchestrator: orchestrator.id, node: event.nodeId }, `could not record the cancel: ${message}`);
    }
  };
  const cleanup = addNodeHookLast(orchestrator, guard);
  const mark: NodeGuardMark = { guardHook: guard };
  Object.defineProperty(orchestrator, NODE_GUARD_MARK, { value: mark, configurable: true, enumerable: false });
  return () => {
    cleanup();
    if (nodeGuardMark(orchestrator) === mark)
      delete (orchestrator as unknown as Record<symbol, unknown>)[NODE_GUARD_MARK];
  };
}
