/**
 * The marks gate-audit leaves on the objects it governs. Keys use `Symbol.for` so two copies of this
 * library in one process read each other's marks (coverage comes from our own marks, not guesses).
 */

/** Key of the record set on an agent that carries the gate. */
export const AGENT_GATE_MARK: unique symbol = Symbol.for('gate-audit.agent-gate.v1');
/** Key of the record set on an orchestrator that carries the node guard. */
export const NODE_GUARD_MARK: unique symbol = Symbol.for('gate-audit.node-guard.v1');
/** Key set on a `GatePlugin` instance so a pending plugin is recognised before the agent's first run. */
export const GATE_PLUGIN_MARK: unique symbol = Symbol.for('gate-audit.gate-plugin.v1');

/** What an installed gate leaves on its agent. */
export interface AgentGateMark {
  /** The `BeforeToolCallEvent` callback that decides; the gate is live while it is registered. */
  readonly decisionHook: unknown;
  /** The innermost `ExecuteToolStage` middleware that checks what really executes. */
  readonly executionCheck: unknown;
  /** Name of the gate, or `configured` when the process-wide gate is resolved at each call. */
  readonly gateName: string;
  /** Path of the agent when it was installed. */
  readonly path: readonly string[];
}

/** What an installed node guard leaves on its orchestrator. */
export interface NodeGuardMark {
  /** The `BeforeNodeCallEvent` callback; the guard is live while it is registered. */
  readonly guardHook: unknown;
}

function readMark<T>(target: unknown, key: symbol): T | undefined {
  if (typeof target !== 'object' || target === null) return undefined;
  return (target as Record<symbol, T | undefined>)[key];
}

/** The gate record of an agent, if one was installed. */
export function agentGateMark(agent: unknown): AgentGateMark | undefined {
  return readMark<AgentGateMark>(agent, AGENT_GATE_MARK);
}

/** The guard record of an orchestrator, if one was installed. */
export function nodeGuardMark(orchestrator: unknown): NodeGuardMark | undefined {
  return readMark<NodeGuardMark>(orchestrator, NODE_GUARD_MARK);
}

/** Whether `plugin` is a gate-audit `GatePlugin` (from any copy of this library). */
export function isGatePlugin(plugin: unknown): boolean {
  return readMark<boolean>(plugin, GATE_PLUGIN_MARK) === true;
}
