/**
 * The observed report as GitHub Actions workflow commands: one `::error` per agent and tool whose calls ran
 * undecided, one `::warning` per drift note, and a `::notice` with the summary. Values from data are shown
 * with `visible`, then written by the audit's `workflowCommand` (escaped as workflow commands require, and
 * passed through the final pass after the command's own prefix): every command is one line, so no value can
 * start a command of its own.
 */
import { quoted, visible } from '../../../escape.js';
import { rowAgent } from '../../observed.js';
import type { ObservedReport } from '../../observed-schema.js';
import { workflowCommand } from '../github.js';
import { summaryLine, verdictLine } from './shared.js';

function command(level: 'error' | 'warning' | 'notice', title: string, message: string): string {
  return workflowCommand(level, { title }, message);
}

/**
 * Renders an observed report as workflow commands.
 *
 * @param report - the report
 * @returns one command per line, ending with a newline
 */
export function renderObservedGithub(report: ObservedReport): string {
  const lines: string[] = [];
  for (const row of report.rows) {
    if (row.undecided === 0) continue;
    lines.push(
      command(
        'error',
        `gate-audit: undecided tool calls of ${rowAgent(row)}`,
        `${rowAgent(row)} ran tool ${quoted(row.tool)} undecided ${row.undecided} of ${row.calls} times (${row.firstSeen} to ${row.lastSeen})`,
      ),
    );
  }
  for (const note of report.notes) {
    lines.push(command('warning', `gate-audit: ${note.kind}`, visible(note.message)));
  }
  lines.push(command('notice', 'gate-audit observed', `${verdictLine(report)} · ${summaryLine(report)}`));
  return `${lines.join('\n')}\n`;
}
