/**
 * The observed report as GitHub-flavoured Markdown, for a step summary or a pull-request comment. Every value
 * from data is written with the audit's writers (`mdText`, `mdCode` from `../markdown.ts`), so nothing in a
 * span renders as markup, a link, a mention or a table cell of its own.
 */
import type { ObservedReport, ObservedRow } from '../../observed-schema.js';
import { mdCode, mdText } from '../markdown.js';
import { hostsText, rowGlyph, sourceLines, summaryLine, verdictLine, windowLine } from './shared.js';

/** A row's agent in a table cell: its place as a code span (`›` in a segment shown as `\u203a`), else its id. */
function agentCell(row: ObservedRow): string {
  if (row.path !== undefined) {
    return mdCode(row.path.map((segment) => segment.replaceAll('›', '\\u203a')).join(' › '), true);
  }
  if (row.agentId !== undefined) return `agent ${mdCode(row.agentId, true)} \\(place unknown\\)`;
  return '\\(agent unknown\\)';
}

/**
 * Renders an observed report as Markdown.
 *
 * @param report - the report
 * @returns the Markdown, ending with a newline
 */
export function renderObservedMarkdown(report: ObservedReport): string {
  const lines = [
    `## gate-audit observed: ${mdText(verdictLine(report))}`,
    '',
    `**${mdText(summaryLine(report))}** · ${mdText(windowLine(report))} · hosts: ${mdText(hostsText(report))}`,
    '',
    '| | agent | tool | calls | decided | undecided | refused | first seen | last seen |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of report.rows) {
    lines.push(
      `| ${rowGlyph(row)} | ${agentCell(row)} | ${mdCode(row.tool, true)} | ${row.calls} | ${row.decided} | ${row.undecided} | ${row.refused} | ${mdText(row.firstSeen)} | ${mdText(row.lastSeen)} |`,
    );
  }
  if (report.notes.length > 0) {
    lines.push('', `### Notes \\(held against the audit of ${mdCode(report.audit?.root ?? '?')}\\)`, '');
    for (const note of report.notes) lines.push(`- ${mdText(note.message)}`);
  }
  const sources = sourceLines(report);
  if (sources.length > 0) {
    lines.push('', '### Read', '');
    for (const line of sources) lines.push(`- ${mdText(line)}`);
  }
  return `${lines.join('\n')}\n`;
}
