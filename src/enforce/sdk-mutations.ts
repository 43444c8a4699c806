/**
 * The one place that reorders private SDK registries, so gate-audit's own callbacks keep the positions
 * the guarantees rest on. Each function touches only entries gate-audit itself registered.
 */
import type { Agent } from '@strands-agents/sdk';
import { GateAuditError } from '../errors.js';
import { testedRange } from '../sdk-version.js';
import { BeforeNodeCallEvent, type Orchestrator, toolCallHooks, toolMiddleware } from '../walker/sdk-internals.js';

/**
 * Moves the decision hook to the very front of the agent's `BeforeToolCallEvent` callbacks: the SDK stops
 * at the first throwing callback, so any hook before the gate could make it skip the decision.
 *
 * @returns whether the hook is registered (and now first)
 */
export function moveHookFirst(agent: Agent, callback: unknown): boolean {
  const entries = toolCallHooks(agent) as unknown[] | undefined;
  if (entries === undefined) return false;
  const index = entries.findIndex((entry) => (entry as { callback: unknown }).callback === callback);
  if (index === -1) return false;
  if (index > 0) entries.unshift(...entries.splice(index, 1));
  return true;
}

/**
 * Moves the execution check to the end of the agent's `ExecuteToolStage` handlers, the innermost place
 * of the composed chain, where it sees exactly the tool and input that reach the tool body.
 *
 * @returns whether the check is registered (and now innermost)
 */
export function moveMiddlewareInnermost(agent: Agent, handler: unknown): boolean {
  const entries = toolMiddleware(agent) as unknown[] | undefined;
  if (entries === undefined) return false;
  const index = entries.findIndex((entry) => (entry as { handler: unknown }).handler === handler);
  if (index === -1) return false;
  if (index < entries.length - 1) entries.push(...entries.splice(index, 1));
  return true;
}

/** Whether the handler is the innermost wrap of the agent's tool execution chain right now. */
export function isInnermostMiddleware(agent: Agent, handler: unknown): boolean {
  const entries = toolMiddleware(agent);
  if (entries === undefined) return false;
  const wraps = entries.filter((entry) => entry.phase === 'wrap');
  return wraps[wraps.length - 1]?.handler === handler;
}

/**
 * Registers a `BeforeNodeCallEvent` callback after every callback already registered: the last callback
 * to set `cancel` wins, and `Graph.addHook`/`Swarm.addHook` take no order option, so this goes through
 * the orchestrator's hook registry with order `Infinity`.
 *
 * @returns the cleanup that removes the callback
 */
export function addNodeHookLast(
  orchestrator: Orchestrator,
  callback: (event: BeforeNodeCallEvent) => void,
): () => void {
  const registry = (orchestrator as unknown as { _hookRegistry?: { addCallback?: unknown } })._hookRegistry;
  if (typeof registry?.addCallback !== 'function') {
    throw new GateAuditError(
      'SDK_SHAPE',
      `orchestrator=<${orchestrator.id}>, field=<_hookRegistry.addCallback> | its hook registry is not the shape ` +
        `gate-audit reads | use @strands-agents/sdk ${testedRange()} (the tested range)`,
    );
  }
  const add = registry.addCallback as (
    event: typeof BeforeNodeCallEvent,
    cb: (event: BeforeNodeCallEvent) => void,
    options: { order: number },
  ) => () => void;
  return add.call(registry, BeforeNodeCallEvent, callback, { order: Number.POSITIVE_INFINITY });
}
