/** What a report says of its nodes, framework-neutral: its summary, and the lines it fails with (`assertFullyGated`). */
import { quoted, visiblePath } from '../escape.js';
import { nodeFailsRun } from './exit.js';
import { type CoverageNode, type CoverageReport, isCovered, type NodeStatus } from './schema.js';

const TOOL_RUNNING = new Set(['agent', 'agent-tool', 'remote', 'custom']);

/** Nodes of a report that fail it under the one exit rule, as `path: status | reason` lines. */
export function notGatedLines(report: CoverageReport): string[] {
  return report.nodes
    .filter((n) => nodeFailsRun(n))
    .map(
      (n) => `${quoted(visiblePath(n.path))} is ${n.status}: ${n.reason}${n.fix === undefined ? '' : ` | ${n.fix}`}`,
    );
}

/** Counts per status and the coverage of tool-running nodes. */
export function summarize(nodes: readonly CoverageNode[]): CoverageReport['summary'] {
  const count = (status: NodeStatus): number => nodes.filter((n) => n.status === status).length;
  const running = nodes.filter((n) => TOOL_RUNNING.has(n.kind));
  const runningGated = running.filter((n) => isCovered(n.status)).length;
  const runningAccepted = running.filter((n) => n.status === 'accepted').length;
  const denominator = running.length - runningAccepted;
  return {
    total: nodes.length,
    gated: count('gated'),
    attested: count('attested'),
    accepted: count('accepted'),
    ungated: count('ungated'),
    ungateable: count('ungateable'),
    blocked: count('blocked'),
    toolRunning: running.length,
    coverage: denominator === 0 ? 1 : runningGated / denominator,
  };
}
