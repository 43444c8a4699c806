/**
 * The public reports: `audit` reads a tree as it stands, `plan` as `installMultiagent` would leave it, for a Strands
 * tree (`strands.ts`) or a LangGraph one (`langgraph.ts`), both built by the neutral `coverage.ts`. Both are pure (no
 * hook added, nothing invoked).
 */
import { CoverageError, GateConflictError, UngateableError } from '../errors.js';
import type { Gate } from '../enforce/gate.js';
import { CONFIGURED, gateSource } from '../enforce/gate-source.js';
import type { AcceptEntry } from '../enforce/install-options.js';
import { preflightTree } from '../frameworks/strands/install.js';
import { quoted, visiblePath } from '../escape.js';
import { readData } from '../walker/safe-read.js';
import { notGatedLines, summarize } from './lines.js';
import { conflictRefusal } from './coverage.js';
import { langGraphAudit, langGraphPlan } from './langgraph.js';
import { isLangGraphValue } from '../frameworks/langgraph/adapter.js';
import { strandsReport } from './strands.js';
import type { CoverageReport } from './schema.js';

export { summarize };

/** Options of `audit` and `plan`. */
export interface AuditOptions {
  /**
   * Remote (A2A) or opaque custom nodes acknowledged with a reason: reported `accepted` (counted apart,
   * never in coverage). Nodes accepted by an installed guard are reported so without this option.
   */
  readonly accept?: readonly AcceptEntry[];
  /**
   * `plan` only: the gate `installMultiagent` would be given. Without it, install resolves the configured gate at
   * each call (`configureGate`), and an agent that carries another gate conflicts with that.
   */
  readonly gate?: Gate;
}

/**
 * Audits an orchestrator (or an agent) as it stands: every node with its status, reason, gate, tools and
 * warnings. Pure: adds no hook and runs nothing.
 *
 * @param orchestrator - a Graph, a Swarm or an Agent
 * @param options - acknowledged remote or opaque nodes
 * @returns the coverage report
 * @throws GateAuditError `INVALID_ACCEPT` for an accept entry that names nothing acceptable
 */
export function audit(orchestrator: unknown, options: AuditOptions = {}): CoverageReport {
  if (isLangGraphValue(orchestrator)) return langGraphAudit(orchestrator, options);
  return strandsReport(orchestrator, 'audit', false, [], options.accept);
}

/**
 * Answers "what would `installMultiagent` do": every node as it would be after install, or, when the
 * preflight would refuse the tree, the tree as it stands plus every refusal.
 *
 * @param orchestrator - a Graph or Swarm
 * @param options - acknowledged remote or opaque nodes (as `installMultiagent` would get them)
 * @returns the coverage report in `plan` mode
 */
export function plan(orchestrator: unknown, options: AuditOptions = {}): CoverageReport {
  if (isLangGraphValue(orchestrator)) return langGraphPlan(orchestrator, options);
  // The gate as install reads it (a gate it would refuse as an argument is refused here alike).
  const requested =
    options.gate === undefined
      ? { key: CONFIGURED, name: CONFIGURED }
      : gateSource({ gate: options.gate }, `plan("${String(readData(orchestrator, 'id'))}")`);
  try {
    preflightTree(orchestrator, requested, options.accept);
  } catch (error) {
    if (error instanceof UngateableError) {
      return strandsReport(orchestrator, 'plan', false, error.findings, options.accept);
    }
    if (error instanceof GateConflictError) {
      const refusals = error.conflicts.map((conflict) => conflictRefusal(conflict, 'agent'));
      return strandsReport(orchestrator, 'plan', false, refusals, options.accept);
    }
    throw error;
  }
  return strandsReport(orchestrator, 'plan', true, [], options.accept);
}

export { notGatedLines };

/**
 * Nodes of a report gated by another gate than the one named, or whose gate name another gate shares, as
 * lines (what `--require-gate` and `toBeFullyGated({ gate })` fail on).
 *
 * @param report - the report
 * @param gateName - the name every gated node's gate must have
 */
export function otherGateLines(report: CoverageReport, gateName: string): string[] {
  const idsOfName = new Set(report.nodes.filter((n) => n.gate?.name === gateName).map((n) => n.gate!.id));
  const lines: string[] = [];
  for (const node of report.nodes) {
    if (node.status !== 'gated' || node.kind === 'graph' || node.kind === 'swarm') continue;
    if (node.gate === undefined) {
      lines.push(
        `${quoted(visiblePath(node.path))} is gated, but by a gate gate-audit cannot name | install gate ${quoted(gateName)}`,
      );
    } else if (node.gate.name !== gateName) {
      lines.push(
        `${quoted(visiblePath(node.path))} is gated by ${quoted(node.gate.name)}, not ${quoted(gateName)} | install gate ${quoted(gateName)} on it`,
      );
    } else if (idsOfName.size > 1) {
      lines.push(
        `${quoted(visiblePath(node.path))} is gated by a gate named ${quoted(gateName)}, but ${idsOfName.size} different gates carry that name | give each gate its own name`,
      );
    }
  }
  return lines;
}

/**
 * Throws `CoverageError` (code `NOT_FULLY_GATED`) naming every node that is not gated, with its path.
 *
 * @param orchestrator - a Graph, a Swarm or an Agent
 */
export function assertFullyGated(orchestrator: unknown): void {
  const lines = notGatedLines(audit(orchestrator));
  if (lines.length > 0) throw new CoverageError(lines);
}
