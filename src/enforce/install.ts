/**
 * Installation, for every framework: the value says which adapter plans it (`src/frameworks/<name>/`), and the
 * neutral installer (`mutations.ts`) runs that plan: every check before the first change, every change undone if
 * one fails midway, then what is never undone.
 */
import type { Agent } from '@strands-agents/sdk';
import { isLangGraphValue } from '../frameworks/langgraph/adapter.js';
import { installLangGraph, type LangGraphInstall } from '../frameworks/langgraph/install.js';
import type { Orchestrator } from '../frameworks/strands/sdk-internals.js';
import { installAgent, strandsFramework } from '../frameworks/strands/install.js';
import type { AgentGate } from './agent-gate.js';
import type { InstallOptions, LangGraphRoot } from './install-options.js';
import { installThrough } from './mutations.js';

export type { AcceptEntry, InstallOptions, LangGraphRoot } from './install-options.js';

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
export function install(agent: Agent, options?: InstallOptions): AgentGate;
export function install(agent: LangGraphRoot, options?: InstallOptions): LangGraphInstall[];
export function install(target: Agent | LangGraphRoot, options?: InstallOptions): AgentGate | LangGraphInstall[] {
  if (isLangGraphValue(target)) return installMultiagent(target, options);
  return installAgent(target as Agent, options);
}

/**
 * Gates every local agent in a Graph or Swarm tree and guards every orchestrator in it. Everything is
 * checked first: if anything cannot be gated, one `UngateableError` lists all of it and nothing changes;
 * if any agent carries another gate, one `GateConflictError` lists them all and nothing changes.
 *
 * @param orchestrator - the root Graph or Swarm
 * @param options - `{ gate, timeoutMs, accept }`; without a gate the configured gate is resolved at each call
 * @returns the handles installed by this call (empty when everything was gated already)
 * @throws NoGateError when no gate is given or configured
 * @throws GateConflictError listing every agent that carries another gate
 * @throws UngateableError (or SdkMismatchError) listing every part that cannot be gated
 * @throws GateAuditError `INVALID_ACCEPT` for an accept entry that names nothing acceptable
 * @throws GateAuditError `SDK_SHAPE`, `SDK_UNTESTED` or `SDK_BEHAVIOUR` when the loaded SDK cannot be used
 */
export function installMultiagent(orchestrator: Orchestrator, options?: InstallOptions): AgentGate[];
export function installMultiagent(graph: LangGraphRoot, options?: InstallOptions): LangGraphInstall[];
export function installMultiagent(
  orchestrator: Orchestrator | LangGraphRoot,
  options?: InstallOptions,
): AgentGate[] | LangGraphInstall[] {
  if (isLangGraphValue(orchestrator)) return installLangGraph(orchestrator, options);
  return [...installThrough(strandsFramework, orchestrator, options)];
}
