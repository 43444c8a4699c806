/**
 * gate-audit: every agent in a Strands Graph/Swarm tree runs under a fail-closed policy gate.
 *
 * @packageDocumentation
 */
export {
  CoverageError,
  GateAuditError,
  GateConflictError,
  GateFailedError,
  NoGateError,
  PolicyError,
  SdkMismatchError,
  UngateableError,
} from './errors.js';
export type { Finding, FindingKind, GateAuditErrorCode, GateConflict, PolicyIssue } from './errors.js';
export { allowAll, configureGate, denyAll } from './enforce/gate.js';
export type {
  ApprovalBinding,
  RaisedApproval,
  ApprovalOutcome,
  ApprovalPath,
  AskDecision,
  Decision,
  DecideContext,
  Gate,
  GateEventKind,
  GateRecord,
  ToolCallRequest,
  Verdict,
} from './enforce/gate.js';
export { install, installMultiagent } from './enforce/install.js';
export { guardProcess } from './frameworks/strands/process-guard.js';
export type { OnUngated, ProcessGuard, ProcessGuardOptions } from './enforce/process-guard.js';
export type { AcceptEntry, InstallOptions, LangGraphRoot } from './enforce/install.js';
export type { LangGraphInstall } from './frameworks/langgraph/install.js';
export type { AgentGate } from './enforce/agent-gate.js';
export { gatedAgent, gatedFactory } from './enforce/factories.js';
export { GatePlugin } from './enforce/plugin.js';
export { GOVERNS } from './walker/declare.js';
export type { GovernanceDeclaration } from './walker/declare.js';
export { hasNodeGuard, isGated } from './walker/classify.js';
export { assertFullyGated, audit, plan } from './report/audit.js';
export type { AuditOptions } from './report/audit.js';
export { CoverageReportSchema } from './report/schema.js';
export { ObservedReportSchema } from './report/observed-schema.js';
export type {
  ObservedNote,
  ObservedReport,
  ObservedRow,
  ObservedSource,
  ObservedSummary,
} from './report/observed-schema.js';
export { ConfigSchema } from './config.js';
export type { GateAuditConfig } from './config.js';
export type {
  CoverageEdge,
  CoverageNode,
  CoverageReport,
  CoverageSummary,
  GateIdentity,
  NodeStatus,
} from './report/schema.js';
export { policyGate } from './policy/policy-gate.js';
export type { GateOptions } from './policy/policy-gate.js';
export { loadPolicy } from './policy/load.js';
export { PolicySchema } from './policy/schema.js';
export type { Policy, PolicyInput } from './policy/schema.js';
export { approve } from './policy/approval.js';
export type { ApprovalSecret, ApprovalSubject, Approver } from './policy/approval.js';
export { generateApproverKey } from './policy/approval-keys.js';
export type { ApproverKeyPair, ApproverKeysOptions } from './policy/approval-keys.js';
export { openDecisionLog } from './policy/decision-log.js';
export type { DecisionLog, DecisionLogOptions } from './policy/decision-log.js';
export { verifyLogFile } from './policy/verify-log.js';
export type { LogVerification, VerifyLogOptions } from './policy/verify-log.js';
export { approvePending, denyPending, listPending } from './policy/approval-answer.js';
export type { AnswerOptions, ListedApproval, ListOptions } from './policy/approval-answer.js';
export { memoryApprovalStore } from './policy/approval-store.js';
export type {
  ApprovalAnswer,
  ApprovalConsumption,
  ApprovalStore,
  PendingApprovalEntry,
  PendingRequest,
  StoredApproval,
  WaitOptions,
} from './policy/approval-store.js';
export type { DurableApprovalOptions } from './policy/approval-stored.js';
export type { DecisionSink } from './policy/decision-sink.js';
export { interventionGate } from './policy/intervention-gate.js';
export type { InterventionFactory } from './policy/intervention-gate.js';
