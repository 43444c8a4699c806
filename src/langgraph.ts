/**
 * gate-audit for LangGraph.js apps without `@strands-agents/sdk`: the same gate, policies, process guard and
 * reports, with an import closure that loads no Strands code (a test keeps it so). `gate-audit` (the main entry)
 * takes LangGraph trees too, but loads the Strands SDK. The process guard started from here has no Strands part:
 * a copy of the Strands SDK the process loads is refused whole.
 *
 * @packageDocumentation
 */
import { CoverageError } from './errors.js';
import {
  type LangGraphInstall,
  type LangGraphInstallOptions,
  installLangGraph,
} from './frameworks/langgraph/install.js';
import { notGatedLines } from './report/lines.js';
import type { CoverageReport } from './report/schema.js';
import { type LangGraphAuditOptions, langGraphAudit, langGraphPlan } from './report/langgraph.js';

export {
  CoverageError,
  GateAuditError,
  GateConflictError,
  GateFailedError,
  NoGateError,
  PolicyError,
  UngateableError,
} from './errors.js';
export type { Finding, FindingKind, GateAuditErrorCode, GateConflict, PolicyIssue } from './errors.js';
export { allowAll, configureGate, denyAll } from './enforce/gate.js';
export type {
  ApprovalBinding,
  ApprovalOutcome,
  ApprovalPath,
  AskDecision,
  Decision,
  Gate,
  GateEventKind,
  GateRecord,
  RaisedApproval,
  ToolCallRequest,
  Verdict,
} from './enforce/gate.js';
export type { LangGraphAccept, LangGraphInstall, LangGraphInstallOptions } from './frameworks/langgraph/install.js';
export type { LangGraphAuditOptions } from './report/langgraph.js';
export { CoverageReportSchema } from './report/schema.js';
export type { CoverageNode, CoverageReport, CoverageSummary, NodeStatus } from './report/schema.js';
export { guardProcess } from './enforce/process-guard.js';
export type { OnUngated, ProcessGuard, ProcessGuardOptions } from './enforce/process-guard.js';
export { policyGate } from './policy/policy-gate.js';
export type { GateOptions } from './policy/policy-gate.js';
export { loadPolicy } from './policy/load.js';
export type { Policy, PolicyInput } from './policy/schema.js';
export { approve } from './policy/approval.js';
export { openDecisionLog } from './policy/decision-log.js';
export type { DecisionLog, DecisionLogOptions } from './policy/decision-log.js';

/**
 * Gates every tool node of a LangGraph tree and guards every graph in it, after checking all of it (see
 * `installMultiagent` of the main entry, which does the same for LangGraph trees).
 *
 * @param root - a compiled graph or a `langchain` `createAgent` agent
 * @param options - `{ gate, timeoutMs, accept }`; without a gate the configured gate is resolved at each call
 * @returns one handle for the tree (`[]` when it was gated already)
 */
export function installMultiagent(root: object, options?: LangGraphInstallOptions): LangGraphInstall[] {
  return installLangGraph(root, options);
}

/**
 * Audits a LangGraph tree as it stands. Pure.
 *
 * @param root - a compiled graph or a `createAgent` agent
 * @param options - acknowledged remote or opaque nodes
 */
export function audit(root: object, options?: LangGraphAuditOptions): CoverageReport {
  return langGraphAudit(root, options);
}

/**
 * What `installMultiagent` would leave of a LangGraph tree, or the tree as it stands plus every refusal.
 *
 * @param root - a compiled graph or a `createAgent` agent
 * @param options - acknowledged nodes and the gate install would be given
 */
export function plan(root: object, options?: LangGraphAuditOptions): CoverageReport {
  return langGraphPlan(root, options);
}

/**
 * Throws `CoverageError` naming every node of a LangGraph tree that is not gated.
 *
 * @param root - a compiled graph or a `createAgent` agent
 */
export function assertFullyGated(root: object): void {
  const lines = notGatedLines(langGraphAudit(root));
  if (lines.length > 0) throw new CoverageError(lines);
}
