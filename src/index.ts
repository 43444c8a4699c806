/**
 * gate-audit: every agent in a Strands Graph/Swarm tree runs under a fail-closed policy gate.
 *
 * @packageDocumentation
 */
export { CoverageError, GateAuditError, NoGateError, SdkMismatchError, UngateableError } from './errors.js';
export type { Finding, FindingKind, GateAuditErrorCode } from './errors.js';
export { allowAll, configureGate, denyAll } from './enforce/gate.js';
export type {
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
export type { InstallOptions } from './enforce/install.js';
export type { AgentGate } from './enforce/agent-gate.js';
export { GatePlugin } from './enforce/plugin.js';
export { hasNodeGuard, isGated } from './walker/classify.js';
export { assertFullyGated, audit, plan } from './report/audit.js';
export { CoverageReportSchema } from './report/schema.js';
export type { CoverageEdge, CoverageNode, CoverageReport, CoverageSummary, NodeStatus } from './report/schema.js';
