/**
 * The SDK's second dispatch point (background tasks, SDK ≥ 1.16), checked and locked at each decision like the
 * tool executor: after the `BeforeToolCallEvent` hooks the tool executor hands a call to the agent's
 * `_backgroundTasks`, whose task manager runs it later through the agent's own closure over its tool executor and
 * middleware (so through the execution check). A dispatcher replaced or patched anywhere on that path runs the
 * tool around the check. So at every decision, before the gate is asked, the path is checked
 * (`backgroundDispatchProblem`); once the agent is initialised (the manager exists), it is locked: the fields the
 * SDK writes only when it builds the path are made read-only, and its objects take no new own member (a method of
 * their own would run instead of their class's), so no hook after the decision can change it before the dispatch.
 */
import type { Agent } from '@strands-agents/sdk';
import { backgroundDispatchProblem } from './sdk-internals.js';
import { readData } from '../../walker/safe-read.js';
import { freezeFields } from './sdk-mutations.js';

/** Agents whose dispatch path was checked and locked whole: it cannot change any more. */
const locked = new WeakSet<Agent>();

/** Locks a checked dispatch path; whether all of it is locked (not yet when the agent was never initialised). */
function lockPath(agent: Agent): boolean {
  // The SDK writes the field only in its constructor; an SDK without background tasks has none (nothing to lock).
  freezeFields(agent, ['_backgroundTasks']);
  const tasks = readData(agent, '_backgroundTasks');
  if (tasks === undefined || tasks === null) return true;
  const manager = readData(tasks, '_manager');
  Object.preventExtensions(tasks);
  freezeFields(tasks, ['_executeTool']);
  // Written once, when the agent is initialised: left writable until then.
  if (manager === undefined) return false;
  freezeFields(tasks, ['_agent', '_manager']);
  Object.preventExtensions(manager as object);
  freezeFields(manager as object, ['_agent', '_executeTool', '_engine']);
  const engine = readData(manager, '_engine') as object;
  Object.preventExtensions(engine);
  freezeFields(engine, ['_options']);
  Object.freeze(readData(engine, '_options'));
  return true;
}

/**
 * Why the agent's background dispatch path could run a call around the execution check, or undefined when it is
 * the SDK's own (or the agent has none); locks it when it is.
 *
 * @param agent - the gated agent, at a decision
 */
export function checkBackgroundDispatch(agent: Agent): string | undefined {
  if (locked.has(agent)) return undefined;
  const problem = backgroundDispatchProblem(agent);
  if (problem !== undefined) return problem;
  if (lockPath(agent)) locked.add(agent);
  return undefined;
}
