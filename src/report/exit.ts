/**
 * The one exit rule every output cites (the CLI, `merge`, annotations, the vitest matcher):
 *
 * - **1** when any node is `ungated`, `ungateable` or `blocked`, or any orchestrator is not gated;
 * - `attested` and `accepted` never fail a run;
 * - with a minimum coverage, the node condition is replaced by the ratio: fail only when
 *   (gated + attested) / (tool-running nodes − accepted) is under the minimum (the exact ratio, not a
 *   rounded percent); an orchestrator that is not gated still fails, since coverage counts tool-running
 *   nodes only and a Graph without its guard would otherwise pass at 100%;
 * - `exitZero` never fails on coverage.
 */
import type { CoverageNode, CoverageReport, NodeStatus } from './schema.js';

/** How a run is judged. */
export interface ExitRule {
  /** Minimum coverage in percent (0–100); replaces the per-node condition by the ratio. */
  readonly minCoverage?: number;
  /** Never fail on coverage. */
  readonly exitZero?: boolean;
}

/** Statuses that fail a run under the per-node condition. */
export const FAILING_STATUSES: ReadonlySet<NodeStatus> = new Set(['ungated', 'ungateable', 'blocked']);

const TOOL_RUNNING: ReadonlySet<string> = new Set(['agent', 'agent-tool', 'remote', 'custom']);

/** Whether a node is an orchestrator (a Graph or Swarm). */
export function isOrchestratorNode(node: CoverageNode): boolean {
  return node.kind === 'graph' || node.kind === 'swarm';
}

/** Whether a node runs tools (agents, agents used as tools, remote and custom executors). */
export function isToolRunningNode(node: CoverageNode): boolean {
  return TOOL_RUNNING.has(node.kind);
}

/**
 * The covered and counted tool-running nodes: coverage is `covered / counted` (1 when `counted` is 0).
 *
 * @param nodes - the report's nodes
 */
export function coverageCounts(nodes: readonly CoverageNode[]): { covered: number; counted: number } {
  let covered = 0;
  let counted = 0;
  for (const node of nodes) {
    if (!isToolRunningNode(node) || node.status === 'accepted') continue;
    counted += 1;
    if (node.status === 'gated' || node.status === 'attested') covered += 1;
  }
  return { covered, counted };
}

/**
 * Whether a node fails the run under the rule (without `exitZero`): the orchestrator condition always,
 * the status condition only without a minimum coverage.
 *
 * @param node - one node
 * @param rule - the rule in force
 */
export function nodeFailsRun(node: CoverageNode, rule: ExitRule = {}): boolean {
  if (isOrchestratorNode(node) && node.status !== 'gated') return true;
  return rule.minCoverage === undefined && FAILING_STATUSES.has(node.status);
}

/** Whether coverage is under the minimum, by the exact ratio. */
export function underMinimum(nodes: readonly CoverageNode[], minCoverage: number): boolean {
  const { covered, counted } = coverageCounts(nodes);
  if (counted === 0) return false;
  // covered / counted < min / 100, without rounding either side.
  return covered * 100 < minCoverage * counted;
}

/**
 * The exit code of a report under the rule: 0 or 1 (usage and load errors, 2, are decided before).
 *
 * @param report - the report
 * @param rule - minimum coverage and exit-zero
 */
export function exitCodeOf(report: Pick<CoverageReport, 'nodes'>, rule: ExitRule = {}): 0 | 1 {
  if (rule.exitZero === true) return 0;
  if (report.nodes.some((node) => nodeFailsRun(node, rule))) return 1;
  if (rule.minCoverage !== undefined && underMinimum(report.nodes, rule.minCoverage)) return 1;
  return 0;
}

/**
 * Checks a minimum coverage given by a user: a percent from 0 to 100. A fraction such as `0.8` is refused
 * with the percent it probably meant, since `0.8` would otherwise silently mean 0.8%.
 *
 * @param value - the number given
 * @returns a description of the problem, or undefined when it is a valid percent
 */
export function minCoverageProblem(value: number): string | undefined {
  if (!Number.isFinite(value) || value < 0 || value > 100) return 'expected a percentage from 0 to 100';
  if (value > 0 && value < 1) {
    return `expected a percentage from 0 to 100, got the fraction ${value} | write ${Math.round(value * 10000) / 100} for ${Math.round(value * 10000) / 100}%`;
  }
  return undefined;
}
