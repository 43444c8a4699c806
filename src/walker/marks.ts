/**
 * The marks gate-audit leaves on the objects it governs, and every other key it sets on objects or on
 * `globalThis`. Keys use `Symbol.for` so two copies of this library in one process read each other's marks
 * (coverage comes from our own marks, not guesses). Each key is written here and nowhere else: the modules that
 * set or read one import it (or re-export it under the name their callers know).
 */

import { isProxy } from './safe-read.js';

/** Key of the record set on an agent that carries the gate. */
export const AGENT_GATE_MARK: unique symbol = Symbol.for('gate-audit.agent-gate.v1');
/** Key of the record set on an orchestrator that carries the node guard. */
export const NODE_GUARD_MARK: unique symbol = Symbol.for('gate-audit.node-guard.v1');
/** Key of the record set on a LangGraph tool node that carries the gate (trusted only where this copy wrote it). */
export const LANGGRAPH_MARK: unique symbol = Symbol.for('gate-audit.langgraph-gate.v1');
/** Key set on a `GatePlugin` instance so a pending plugin is recognised before the agent's first run. */
export const GATE_PLUGIN_MARK: unique symbol = Symbol.for('gate-audit.gate-plugin.v1');
/** The key of a custom node's declaration method (`src/walker/declare.ts`). */
export const GOVERNS: unique symbol = Symbol.for('gate-audit.governs.v1');
/** The mark `gatedFactory` puts on the functions it returns. */
export const GATED_FACTORY_MARK: unique symbol = Symbol.for('gate-audit.gated-factory.v1');
/** The process guard's mark on `globalThis` (a frozen summary, for the audit child). */
export const PROCESS_GUARD_MARK: unique symbol = Symbol.for('gate-audit.process-guard.v1');
/** The per-process gate ids on `globalThis`, shared by every copy of gate-audit (`src/enforce/gate-identity.ts`). */
export const PROCESS_IDS_KEY: unique symbol = Symbol.for('gate-audit.process-ids.v2');
/** The provider of the active span's ids on `globalThis` (`src/policy/trace-ids.ts`). */
export const SPAN_IDS_PROVIDER_KEY: unique symbol = Symbol.for('gate-audit.spanIdsProvider');
/** The mark every error the audit child throws into an app that invokes something carries. */
export const AUDIT_STOP_MARK: unique symbol = Symbol.for('gate-audit.audit-stop.v1');
/** The audit child's mark on `globalThis` that this process is auditing (`src/auditing.ts`). */
export const AUDITING_MARK: unique symbol = Symbol.for('gate-audit.auditing.v1');
/** Where the audit child's preload takes note of a process guard started while auditing. */
export const AUDIT_GUARD_NOTE: unique symbol = Symbol.for('gate-audit.audit.process-guard-note.v1');
/** Where the audit child's preload takes note of a gate built with a writable keyring. */
export const AUDIT_KEYRING_NOTE: unique symbol = Symbol.for('gate-audit.audit.writable-keyring-note.v1');
/**
 * The `Symbol.for` key of the process guard's callback on `globalThis`, as a string: the line its loader hooks
 * append to each SDK module names it, so that line needs no import.
 */
export const GUARD_MODULE_KEY = 'gate-audit.process-guard.sdk-module.v1';
/** The `Symbol.for` key of the audit child preload's callback on `globalThis`, as a string (like `GUARD_MODULE_KEY`). */
export const SDK_MODULE_KEY = 'gate-audit.sdk-module.v1';

/** One hook gate-audit registered: the event class and the callback, both must stay registered. */
export interface MarkedHook {
  readonly event: unknown;
  readonly callback: unknown;
}

/** What an installed gate leaves on its agent. */
export interface AgentGateMark {
  /** The `BeforeToolCallEvent` callback that decides; the gate is live while it is registered. */
  readonly decisionHook: unknown;
  /** The innermost `ExecuteToolStage` middleware that checks what really executes. */
  readonly executionCheck: unknown;
  /** Every other hook the gate needs (after-call checks, the model stop, the run bookkeeping). */
  readonly hooks: readonly MarkedHook[];
  /** Name of the gate, or `configured` when the process-wide gate is resolved at each call. */
  readonly gateName: string;
  /** The gate object, or `configured` for the process-wide gate resolved at each call. */
  readonly gateKey: unknown;
  /** Path of the agent when it was installed. */
  readonly path: readonly string[];
  /**
   * For an agent gated as part of a tree (`installMultiagent`): the key of the tree's gate, which every agent it
   * calls as a tool must carry (its calls of one that does not are refused).
   */
  readonly treeGateKey?: unknown;
  /** That gate's name. */
  readonly treeGateName?: string;
}

/** What an installed node guard leaves on its orchestrator. */
export interface NodeGuardMark {
  /** The `BeforeNodeCallEvent` callback that decides last; the guard is live while it is registered. */
  readonly guardHook: unknown;
  /** Every other hook the guard needs (the witness first, the handoff record, the run bookkeeping). */
  readonly hooks: readonly MarkedHook[];
  /** Remote or opaque nodes accepted at install, by node id: the object let through, and why. */
  readonly accepted?: ReadonlyMap<string, { readonly object: unknown; readonly reason: string }>;
  /** The key (gate object or `configured`) of the gate the tree was installed with: the one a node must carry. */
  readonly treeGateKey?: unknown;
  /** That gate's name. */
  readonly treeGateName?: string;
}

/** What a `GatePlugin` carries: its own gate and decision timeout, if it was given them. */
export interface GatePluginMark {
  readonly gate?: unknown;
  readonly timeoutMs?: unknown;
}

function readMark<T>(target: unknown, key: symbol): T | undefined {
  if (typeof target !== 'object' || target === null || isProxy(target)) return undefined;
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  return descriptor !== undefined && 'value' in descriptor ? (descriptor.value as T | undefined) : undefined;
}

/** The gate record of an agent, if one was installed. */
export function agentGateMark(agent: unknown): AgentGateMark | undefined {
  // The mark this copy wrote, whatever was put under the key since (the key is configurable, so a gate can be
  // removed; any code could also write a record naming another gate there).
  const written = typeof agent === 'object' && agent !== null ? writtenAgentMarks.get(agent) : undefined;
  return written ?? readMark<AgentGateMark>(agent, AGENT_GATE_MARK);
}

/** The gate marks this copy of gate-audit wrote, by agent: what its readers trust over the record on the agent. */
const writtenAgentMarks = new WeakMap<object, AgentGateMark>();

/**
 * Notes the gate mark this copy of gate-audit just wrote on an agent (or that it removed it).
 *
 * @param agent - the agent
 * @param mark - the mark now under the key, or undefined once removed
 */
export function noteAgentGateMark(agent: object, mark: AgentGateMark | undefined): void {
  if (mark === undefined) writtenAgentMarks.delete(agent);
  else writtenAgentMarks.set(agent, mark);
}

/**
 * Whether this copy of gate-audit wrote the agent's gate mark (then what it says is what this copy installed; any
 * other mark is a promise).
 *
 * @param agent - any agent
 */
export function isWrittenAgentGateMark(agent: unknown): boolean {
  return typeof agent === 'object' && agent !== null && writtenAgentMarks.has(agent);
}

/** The guard record of an orchestrator, if one was installed. */
export function nodeGuardMark(orchestrator: unknown): NodeGuardMark | undefined {
  return readMark<NodeGuardMark>(orchestrator, NODE_GUARD_MARK);
}

/** The node guard marks this copy of gate-audit wrote, by orchestrator. */
const writtenGuardMarks = new WeakMap<object, NodeGuardMark>();

/**
 * Notes the node guard mark this copy of gate-audit just wrote on an orchestrator (or that it removed it).
 *
 * @param orchestrator - the orchestrator
 * @param mark - the mark now under the key, or undefined once removed
 */
export function noteNodeGuardMark(orchestrator: object, mark: NodeGuardMark | undefined): void {
  if (mark === undefined) writtenGuardMarks.delete(orchestrator);
  else writtenGuardMarks.set(orchestrator, mark);
}

/**
 * The gate mark this copy of gate-audit wrote on an agent, or the node guard mark on an orchestrator (no
 * allocation: the process guard reads it at every step of a run).
 *
 * @param target - an agent or orchestrator
 * @param role - which mark
 */
export function writtenMark(target: object, role: 'agent' | 'orchestrator'): AgentGateMark | NodeGuardMark | undefined {
  return role === 'agent' ? writtenAgentMarks.get(target) : writtenGuardMarks.get(target);
}

/** Whether `plugin` is a gate-audit `GatePlugin` (from any copy of this library). */
export function isGatePlugin(plugin: unknown): boolean {
  const mark = readMark<unknown>(plugin, GATE_PLUGIN_MARK);
  return mark === true || (typeof mark === 'object' && mark !== null);
}

/** The gate a `GatePlugin` was given, or undefined when it resolves the configured gate (or is not one). */
export function gatePluginGate(plugin: unknown): unknown {
  return gatePluginMark(plugin)?.gate;
}

/** The mark of a `GatePlugin` as data, or undefined when `plugin` carries none (or an unreadable one). */
export function gatePluginMark(plugin: unknown): GatePluginMark | undefined {
  const mark = readMark<unknown>(plugin, GATE_PLUGIN_MARK);
  if (mark === true) return {};
  if (typeof mark !== 'object' || mark === null || isProxy(mark)) return undefined;
  const read = (key: string): unknown => {
    const descriptor = Object.getOwnPropertyDescriptor(mark, key);
    return descriptor !== undefined && 'value' in descriptor ? descriptor.value : undefined;
  };
  return { gate: read('gate'), timeoutMs: read('timeoutMs') };
}

/** Key of the record set on a governed custom node (or custom executor) whose run is wrapped in the run context. */
export const NODE_RUN_MARK: unique symbol = Symbol.for('gate-audit.node-run.v1');

/** What wrapping a custom node's run leaves on it. */
export interface NodeRunMark {
  /** The wrapper installed as the node's own `stream`; the run is wrapped while it is that. */
  readonly stream: unknown;
}

/** The node-run marks this copy of gate-audit wrote, by node. */
const writtenNodeRunMarks = new WeakMap<object, NodeRunMark>();

/**
 * The node-run mark this copy of gate-audit wrote on a custom node or executor (one written by anything else is
 * not trusted), if any.
 *
 * @param target - a custom node or executor
 */
export function nodeRunMark(target: unknown): NodeRunMark | undefined {
  return typeof target === 'object' && target !== null ? writtenNodeRunMarks.get(target) : undefined;
}

/**
 * Notes the node-run mark this copy of gate-audit just wrote on a custom node (or that it removed it).
 *
 * @param target - the node or executor
 * @param mark - the mark now under the key, or undefined once removed
 */
export function noteNodeRunMark(target: object, mark: NodeRunMark | undefined): void {
  if (mark === undefined) writtenNodeRunMarks.delete(target);
  else writtenNodeRunMarks.set(target, mark);
}
