/** The lines a report fails with (`assertFullyGated`, `toBeFullyGated`), framework-neutral. */
import { quoted, visiblePath } from '../escape.js';
import { nodeFailsRun } from './exit.js';
import type { CoverageReport } from './schema.js';

/** Nodes of a report that fail it under the one exit rule, as `path: status | reason` lines. */
export function notGatedLines(report: CoverageReport): string[] {
  return report.nodes
    .filter((n) => nodeFailsRun(n))
    .map(
      (n) => `${quoted(visiblePath(n.path))} is ${n.status}: ${n.reason}${n.fix === undefined ? '' : ` | ${n.fix}`}`,
    );
}
