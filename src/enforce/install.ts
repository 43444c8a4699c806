/**
 * Installation: check everything, then mutate once. `preflight` finds every problem in the tree before
 * anything changes; `installMultiagent` then gates every agent and guards every orchestrator, undoing
 * what it added if anything fails midway.
 */
import type { Agent } from '@strands-agents/sdk';
import { type Finding, GateAuditError, messageOf, NoGateError, SdkMismatchError, UngateableError } from '../errors.js';
import { segmentOf } from '../paths.js';
import { agentGateState, classifyExecutor } from '../walker/classify.js';
import { agentGateMark, isGatePlugin } from '../walker/marks.js';
import { className, type Orchestrator, pendingPlugins } from '../walker/sdk-internals.js';
import { type Inventory, walk } from '../walker/walk.js';
import { type AgentGate, DEFAULT_DECISION_TIMEOUT_MS, type GateSource, installAgentGate } from './agent-gate.js';
import { configuredDefaultGate, type Gate, isGate } from './gate.js';
import { installNodeGuard } from './node-guard.js';
import { ensureSdk } from './sdk-check.js';

/** Options of `install` and `installMultiagent`. */
export interface InstallOptions {
  /** The gate to install; without it the process-wide gate (`configureGate`) is resolved at each call. */
  gate?: Gate;
  /**
   * How long an asynchronous `decide` may take, in milliseconds (default 30000). Past it the call is refused
   * with `[gate] ERROR:` and the run stops, like any gate error; a late answer is ignored.
   */
  timeoutMs?: number;
  /**
   * Refuse (`SDK_UNTESTED`) when the loaded `@strands-agents/sdk` lies outside the range gate-audit was tested
   * on, instead of warning once and running the behavioural self-test.
   */
  requireTestedSdk?: boolean;
}

function decisionTimeout(options: InstallOptions | undefined, subject: string): number {
  const ms = options?.timeoutMs ?? DEFAULT_DECISION_TIMEOUT_MS;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `subject=<${subject}> | options.timeoutMs must be a positive number of milliseconds`,
    );
  }
  return ms;
}

/**
 * Turns options into a gate source, or throws `NoGateError` when there is no gate at all.
 *
 * @param options - the caller's options
 * @param subject - what is being installed, for the error message
 */
export function gateSource(options: InstallOptions | undefined, subject: string): GateSource {
  const gate = options?.gate;
  const timeoutMs = decisionTimeout(options, subject);
  if (gate !== undefined) {
    if (!isGate(gate)) {
      throw new GateAuditError(
        'INVALID_ARGUMENT',
        `subject=<${subject}> | options.gate is not a Gate | pass an object with a string name and a decide() method`,
      );
    }
    return { name: gate.name, resolve: () => gate, timeoutMs };
  }
  if (configuredDefaultGate() === undefined) throw new NoGateError(subject);
  return { name: 'configured', resolve: configuredDefaultGate, timeoutMs };
}

/** Throws the one error that lists every finding, choosing `SdkMismatchError` when copies of the SDK differ. */
function refuse(findings: readonly Finding[]): never {
  if (findings.some((f) => f.kind === 'sdk-mismatch')) throw new SdkMismatchError(findings);
  throw new UngateableError(findings);
}

/**
 * Walks the orchestrator and throws, before anything is changed, one error listing every part of the tree
 * that cannot be gated in-process.
 *
 * @param orchestrator - a Graph or Swarm
 * @returns the inventory to install on
 */
export function preflight(orchestrator: unknown): Inventory {
  const inventory = walk(orchestrator);
  const { root } = inventory;
  if (root.kind !== 'graph' && root.kind !== 'swarm') {
    if (root.problem?.kind === 'sdk-mismatch') refuse(inventory.findings);
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `value=<${className(orchestrator)}> | installMultiagent expects a Graph or Swarm | ` +
        'pass the orchestrator; use install(agent) for a single agent',
    );
  }
  if (inventory.findings.length > 0) refuse(inventory.findings);
  return inventory;
}

function pendingGatePluginSource(agent: Agent): GateSource | undefined {
  for (const plugin of pendingPlugins(agent)) {
    if (isGatePlugin(plugin) && typeof (plugin as { gateSource?: unknown }).gateSource === 'function') {
      return (plugin as { gateSource(): GateSource }).gateSource();
    }
  }
  return undefined;
}

const handles = new WeakMap<Agent, AgentGate>();

function existingHandle(agent: Agent): AgentGate {
  const known = handles.get(agent);
  if (known !== undefined) return known;
  const mark = agentGateMark(agent);
  return {
    agent,
    path: mark?.path ?? [segmentOf(agent.id, '(agent)')],
    gateName: mark?.gateName ?? 'unknown',
    isActive: () => agentGateState(agent) === 'gated',
    uninstall: () => undefined,
  };
}

/**
 * Gates one local `Agent`. Idempotent: an agent that carries a gate already (from `install`,
 * `installMultiagent` or a `GatePlugin`) keeps it, and its existing handle is returned.
 *
 * @param agent - a local Strands Agent
 * @param options - `{ gate, timeoutMs }`; without a gate the configured gate is resolved at each call
 * @returns the handle on the agent's gate
 * @throws NoGateError when no gate is given or configured
 * @throws UngateableError (or SdkMismatchError) when the agent cannot be gated in-process
 * @throws GateAuditError `SDK_SHAPE`, `SDK_UNTESTED` or `SDK_BEHAVIOUR` when the loaded SDK cannot be used
 */
export function install(agent: Agent, options?: InstallOptions): AgentGate {
  ensureSdk({ requireTested: options?.requireTestedSdk === true });
  const subject = `install(agent "${String((agent as { id?: unknown } | undefined)?.id)}")`;
  const classified = classifyExecutor(agent);
  const path = [segmentOf(agent?.id, '(agent)')];
  if (classified.kind !== 'agent' || classified.problem !== undefined) {
    const problem = classified.problem ?? {
      kind: 'foreign-executor' as const,
      reason: `is a ${classified.kind}, not an Agent`,
      fix: 'use installMultiagent for a Graph or Swarm',
    };
    refuse([{ path, ...problem }]);
  }
  if (agentGateState(agent) === 'gated') return existingHandle(agent);
  const source = pendingGatePluginSource(agent) ?? gateSource(options, subject);
  const handle = installAgentGate(agent, source, path) ?? existingHandle(agent);
  handles.set(agent, handle);
  return handle;
}

/**
 * Gates every local agent in a Graph or Swarm tree and guards every orchestrator in it. Everything is
 * checked first: if anything cannot be gated, one `UngateableError` lists all of it and nothing changes.
 *
 * @param orchestrator - the root Graph or Swarm
 * @param options - `{ gate, timeoutMs }`; without a gate the configured gate is resolved at each call
 * @returns the handles installed by this call (empty when everything was gated already)
 * @throws NoGateError when no gate is given or configured
 * @throws UngateableError (or SdkMismatchError) listing every part that cannot be gated
 * @throws GateAuditError `SDK_SHAPE`, `SDK_UNTESTED` or `SDK_BEHAVIOUR` when the loaded SDK cannot be used
 */
export function installMultiagent(orchestrator: Orchestrator, options?: InstallOptions): AgentGate[] {
  ensureSdk({ requireTested: options?.requireTestedSdk === true });
  const source = gateSource(
    options,
    `installMultiagent("${String((orchestrator as { id?: unknown } | undefined)?.id)}")`,
  );
  const inventory = preflight(orchestrator);
  const installed: AgentGate[] = [];
  const guards: (() => void)[] = [];
  try {
    for (const { agent, path } of inventory.agents) {
      if (agentGateState(agent) === 'pending-plugin') continue;
      const handle = installAgentGate(agent, source, path);
      if (handle === undefined) continue;
      installed.push(handle);
      handles.set(agent, handle);
    }
    for (const { orchestrator: node, path } of inventory.orchestrators) {
      const cleanup = installNodeGuard(node, path, () => source.resolve());
      if (cleanup !== undefined) guards.push(cleanup);
    }
  } catch (error) {
    for (const cleanup of guards.reverse()) cleanup();
    for (const handle of installed.reverse()) {
      handle.uninstall();
      handles.delete(handle.agent);
    }
    throw new GateAuditError(
      'INSTALL_FAILED',
      `orchestrator=<${String(orchestrator.id)}> | install failed midway and was rolled back: ` + `${messageOf(error)}`,
      { cause: error },
    );
  }
  return installed;
}
