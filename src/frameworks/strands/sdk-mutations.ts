/**
 * The one place that writes private SDK state, so gate-audit's own callbacks keep the positions the
 * guarantees rest on, and the fields the SDK reads to choose what runs cannot turn into getters later.
 * Each function touches only entries gate-audit itself registered, or makes a plain data field
 * non-configurable (it stays writable: the SDK's own setters keep working).
 */
import type { Agent } from '@strands-agents/sdk';
import { GateAuditError } from '../../errors.js';
import { testedRange } from './sdk-version.js';
import {
  FunctionTool,
  Graph,
  hiddenPrototypes,
  liveCallbackArray,
  liveMiddlewareArray,
  type Orchestrator,
  orchestratorHookRegistry,
  agentHookRegistry,
  BeforeToolCallEvent,
  ZodTool,
  type ToolFacts,
  toolFacts,
} from './sdk-internals.js';
import { isProxy, readData } from '../../walker/safe-read.js';

function moveToFront(entries: unknown[] | undefined, callback: unknown): boolean {
  if (entries === undefined) return false;
  const index = entries.findIndex((entry) => readData(entry, 'callback') === callback);
  if (index === -1) return false;
  if (index > 0) entries.unshift(...entries.splice(index, 1));
  return true;
}

/**
 * Moves the decision hook to the very front of the agent's `BeforeToolCallEvent` callbacks: the SDK stops
 * at the first throwing callback, so any hook before the gate could make it skip the decision.
 *
 * @returns whether the hook is registered (and now first)
 */
export function moveHookFirst(agent: Agent, callback: unknown): boolean {
  return moveToFront(liveCallbackArray(agentHookRegistry(agent), BeforeToolCallEvent), callback);
}

/**
 * Moves an orchestrator callback to the front of its event's callbacks.
 *
 * @returns whether the callback is registered (and now first)
 */
export function moveOrchestratorHookFirst(orchestrator: Orchestrator, eventClass: unknown, callback: unknown): boolean {
  return moveToFront(liveCallbackArray(orchestratorHookRegistry(orchestrator), eventClass), callback);
}

/**
 * Moves the execution check to the end of the agent's `ExecuteToolStage` handlers, the innermost place
 * of the composed chain, where it sees exactly the tool and input that reach the tool body.
 *
 * @returns whether the check is registered (and now innermost)
 */
export function moveMiddlewareInnermost(agent: Agent, handler: unknown): boolean {
  // The whole list is read as plain data first: an own iterator or an own `get` of its map could show the SDK
  // other entries, and a call would then reach the tool around the check before anything noticed.
  const entries = liveMiddlewareArray(agent);
  if (entries === undefined) return false;
  // Runs on every call, where the check is nearly always innermost already.
  if (entries.length > 0 && readData(entries[entries.length - 1], 'handler') === handler) return true;
  const index = entries.findIndex((entry) => readData(entry, 'handler') === handler);
  if (index === -1) return false;
  if (index < entries.length - 1) entries.push(...entries.splice(index, 1));
  return true;
}

/**
 * Registers an orchestrator callback with an order (`Graph.addHook`/`Swarm.addHook` take none), through
 * the orchestrator's hook registry.
 *
 * @returns the cleanup that removes the callback
 */
export function addOrchestratorHook<E>(
  orchestrator: Orchestrator,
  eventClass: new (...args: never[]) => E,
  callback: (event: E) => void,
  order: number,
): () => void {
  const registry = orchestratorHookRegistry(orchestrator) as { addCallback?: unknown } | undefined;
  if (typeof registry?.addCallback !== 'function') {
    throw new GateAuditError(
      'SDK_SHAPE',
      `orchestrator=<${String(readData(orchestrator, 'id'))}>, field=<_hookRegistry.addCallback> | its hook registry does not have the shape gate-audit knows | ` +
        `use @strands-agents/sdk ${testedRange()} (the tested range)`,
    );
  }
  const add = registry.addCallback as (
    event: unknown,
    cb: (event: E) => void,
    options: { order: number },
  ) => () => void;
  return add.call(registry, eventClass, callback, { order });
}

/**
 * Makes plain data fields non-configurable, so they can never become getters (which could show gate-audit
 * one object and the SDK another) nor be deleted. Values and writability are unchanged. Fields that are
 * absent, already non-configurable or not plain data are left as they are (the walk reports those).
 *
 * @param owner - the object
 * @param keys - the fields the SDK reads to choose what runs
 */
export function lockFields(owner: object, keys: readonly string[]): void {
  restrictFields(owner, keys, false);
}

/**
 * Like `lockFields`, and makes the fields read-only too: for fields the SDK writes only in its constructor
 * (the agent inside an `AgentNode` or an `AgentAsTool`, a nested orchestrator, node ids, edge ends, an
 * orchestrator's nodes, edges and entry points), so nothing can swap what runs between a check and the SDK's
 * read of the field. Writing one afterwards throws (modules are strict).
 *
 * @param owner - the object
 * @param keys - the fields the SDK reads to choose what runs
 */
export function freezeFields(owner: object, keys: readonly string[]): void {
  restrictFields(owner, keys, true);
}

/** Makes each plain data field of a non-Proxy owner non-configurable, and read-only when asked to. */
function restrictFields(owner: object, keys: readonly string[], readOnly: boolean): void {
  if (isProxy(owner)) return;
  for (const key of keys) {
    const descriptor = Object.getOwnPropertyDescriptor(owner, key);
    if (descriptor === undefined || !('value' in descriptor)) continue;
    if (descriptor.configurable === true || (readOnly && descriptor.writable === true)) {
      Object.defineProperty(owner, key, readOnly ? READ_ONLY : NON_CONFIGURABLE);
    }
  }
}

const NON_CONFIGURABLE: PropertyDescriptor = Object.freeze({ configurable: false });
const READ_ONLY: PropertyDescriptor = Object.freeze({ configurable: false, writable: false });

/** An event's `cancel` in gate-audit's keeping: its value, and once a refusal is held, who hears of a clear. */
interface KeptCancel {
  current: unknown;
  held: boolean;
  onClear: (() => void) | undefined;
}

const kept = new WeakMap<object, KeptCancel>();

/**
 * Takes an event's `cancel` into gate-audit's keeping before any other hook sees the event (the node witness
 * runs first): other hooks set and clear it as before, but none can redefine it (as an accessor that answers the
 * SDK `false` whatever is written, say) before a refusal is held there. Where it cannot be taken (already made
 * unchangeable), it is left as it is.
 *
 * @param event - the SDK event
 */
export function keepCancel(event: { cancel: unknown }): void {
  if (kept.has(event)) return;
  const state: KeptCancel = { current: event.cancel, held: false, onClear: undefined };
  try {
    Object.defineProperty(event, 'cancel', {
      configurable: false,
      enumerable: true,
      get: () => state.current,
      set: (value: unknown) => {
        if (state.held && !value) state.onClear?.();
        else state.current = value;
      },
    });
    kept.set(event, state);
  } catch {
    // left as it is: holdCancel reads back what it set
  }
}

/**
 * Sets a refusal as an event's `cancel` (a `BeforeToolCallEvent` or a `BeforeNodeCallEvent`) and holds it
 * there: a later hook (or a stream consumer) may give it another truthy value, and the SDK still refuses the call
 * or node, but one that tries to clear it leaves the refusal in place and `onClear` runs; the property cannot be
 * redefined. Where it cannot be held (already made unchangeable), it is set plainly and read back.
 *
 * @param event - the SDK event
 * @param text - the refusal
 * @param onClear - told of each attempt to clear it
 * @returns whether the SDK will read a refusal there (false: the event's `cancel` does not take it)
 */
export function holdCancel(event: { cancel: unknown }, text: string, onClear: () => void): boolean {
  keepCancel(event);
  const state = kept.get(event);
  if (state !== undefined) {
    state.current = text;
    state.held = true;
    state.onClear = onClear;
    return true;
  }
  try {
    event.cancel = text;
    return Boolean(event.cancel);
  } catch {
    return false;
  }
}

/** Each locked tool, with its facts as read once it was locked (they cannot change after that). */
const lockedTools = new WeakMap<object, ToolFacts>();

/**
 * Makes the own fields of a tool of the SDK's own classes (`FunctionTool`, `ZodTool` and the `FunctionTool` it
 * wraps, `AgentAsTool`) read-only and non-configurable, the first time a call of it is decided: the SDK writes
 * them only in their constructors (but `AgentAsTool`'s `_busy`, left writable), and code that runs between the
 * execution check and the tool's own run (a span processor's `onStart`) could otherwise swap its schema, callback
 * or agent after the check compared them. Tools of other classes are left as they are (their own code may write
 * their fields); the execution check compares them.
 *
 * @param tool - the tool a call was decided for
 */
export function lockSdkTool(tool: unknown): void {
  if (typeof tool !== 'object' || tool === null || isProxy(tool) || lockedTools.has(tool)) return;
  const proto: unknown = Object.getPrototypeOf(tool);
  const agentTool = proto === hiddenPrototypes().agentAsTool;
  if (!agentTool && proto !== FunctionTool.prototype && proto !== ZodTool.prototype) return;
  for (const key of Reflect.ownKeys(tool)) {
    const descriptor = Object.getOwnPropertyDescriptor(tool, key);
    // An accessor is refused by the tool seal; a field already non-configurable can still be made read-only.
    if (descriptor === undefined || !('value' in descriptor)) continue;
    const busy = agentTool && key === '_busy';
    Object.defineProperty(tool, key, busy ? { configurable: false } : { writable: false, configurable: false });
  }
  // Nor can it take an own member (a `stream` of its own would run instead of its class's).
  Object.preventExtensions(tool);
  if (proto === ZodTool.prototype) lockSdkTool(readData(tool, '_functionTool'));
  // Marked only once all of it is locked: a marked tool's prototype and own fields can no longer change, so
  // neither can what they make of it.
  lockedTools.set(tool, toolFacts(tool));
}

/**
 * Whether `lockSdkTool` locked this tool: then its prototype and own fields (but `AgentAsTool`'s `_busy`) can
 * never change again, and the tool seal need not read them.
 */
export function isLockedSdkTool(tool: unknown): boolean {
  return lockedToolFacts(tool) !== undefined;
}

/**
 * A locked tool's facts, read once when `lockSdkTool` locked it (its prototype and own fields, which they are
 * read from, cannot change since); undefined for a tool not locked.
 */
export function lockedToolFacts(tool: unknown): ToolFacts | undefined {
  return typeof tool === 'object' && tool !== null ? lockedTools.get(tool) : undefined;
}

/** The agent fields the SDK reads to choose what runs: locked against becoming getters at install. */
export const LOCKED_AGENT_FIELDS = ['_toolExecutor', '_toolRegistry', '_hooksRegistry', '_middlewareRegistry'] as const;

/**
 * Makes the fields the SDK reads to run an agent's tools non-configurable, once its gate is in place.
 *
 * @param agent - a gated agent
 */
export function lockAgent(agent: Agent): void {
  lockFields(agent, LOCKED_AGENT_FIELDS);
  // The SDK writes these only in its constructor: swapping one for a registry without the gate is refused.
  freezeFields(agent, ['_toolRegistry', '_hooksRegistry', '_middlewareRegistry']);
  // Its hook registry's dispatch is checked on the class (`src/enforce/dispatch-check.ts`): the registry takes no own
  // `invokeCallbacks` that would dispatch around it, and keeps its map of hooks.
  const registry = agentHookRegistry(agent);
  if (
    typeof registry === 'object' &&
    registry !== null &&
    Object.getPrototypeOf(registry) === hiddenPrototypes().hookRegistry
  ) {
    freezeFields(registry, ['_callbacks']);
    Object.preventExtensions(registry);
  }
}

/**
 * Makes the fields the SDK reads to run an orchestrator non-configurable and read-only, once its tree is gated:
 * its nodes, hook registry and (a Graph's) edges and entry nodes, or (a Swarm's) start node.
 *
 * @param orchestrator - a guarded Graph or Swarm
 */
export function lockOrchestrator(orchestrator: Orchestrator): void {
  freezeFields(orchestrator, [
    'nodes',
    '_hookRegistry',
    ...(orchestrator instanceof Graph ? ['edges', '_sources'] : ['start']),
  ]);
}

/**
 * Makes what a node runs (its agent or orchestrator) and its id read-only.
 *
 * @param node - a node of a guarded orchestrator
 */
export function lockNode(node: object): void {
  freezeFields(node, ['_agent', '_orchestrator', 'id']);
}

/**
 * Makes the agent an SDK agent-as-tool runs read-only.
 *
 * @param tool - an `AgentAsTool` (`readAgentTool` says so)
 */
export function lockAgentTool(tool: object): void {
  freezeFields(tool, ['_agent']);
}
