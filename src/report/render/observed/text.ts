/**
 * The observed report as plain text: one line per agent and tool with its glyph, then the notes, the sources
 * and the summary last. Every value from data is shown through `visible` (a path through `visiblePath`), so a
 * row is one line that starts with its real glyph and nothing in a span can move the cursor or forge a row.
 */
import { visible } from '../../../escape.js';
import { rowAgent } from '../../observed.js';
import type { ObservedReport } from '../../observed-schema.js';
import { hostsText, rowGlyph, sourceLines, summaryLine, verdictLine, windowLine } from './shared.js';

const MAX_AGENT = 48;
const MAX_TOOL = 32;

/**
 * Renders an observed report as text.
 *
 * @param report - the report
 * @returns the text, ending with a newline
 */
export function renderObservedText(report: ObservedReport): string {
  const cells = report.rows.map((row) => ({ row, agent: rowAgent(row), tool: visible(row.tool) }));
  let agentWidth = 5;
  let toolWidth = 4;
  for (const cell of cells) {
    agentWidth = Math.max(agentWidth, cell.agent.length);
    toolWidth = Math.max(toolWidth, cell.tool.length);
  }
  agentWidth = Math.min(agentWidth, MAX_AGENT);
  toolWidth = Math.min(toolWidth, MAX_TOOL);
  const lines = [
    `gate-audit observed: ${windowLine(report)}`,
    `  hosts: ${hostsText(report)}`,
    '',
    `  ${'agent'.padEnd(agentWidth)}  ${'tool'.padEnd(toolWidth)}  calls  decided  undecided  refused  first seen                last seen`,
  ];
  for (const { row, agent, tool } of cells) {
    lines.push(
      `${rowGlyph(row)} ${agent.padEnd(agentWidth)}  ${tool.padEnd(toolWidth)}  ${String(row.calls).padStart(5)}  ${String(row.decided).padStart(7)}  ${String(row.undecided).padStart(9)}  ${String(row.refused).padStart(7)}  ${row.firstSeen.padEnd(24)}  ${row.lastSeen}`,
    );
  }
  if (report.notes.length > 0) {
    lines.push('', `Notes (held against the audit of ${visible(report.audit?.root ?? '?')}):`);
    for (const note of report.notes) lines.push(`  ! ${visible(note.message)}`);
  }
  if (report.sources.length > 0) {
    lines.push('', 'Read:');
    for (const line of sourceLines(report)) lines.push(`  ${line}`);
  }
  lines.push('', `${verdictLine(report)} · ${summaryLine(report)}`);
  return `${lines.join('\n')}\n`;
}
