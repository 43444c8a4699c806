/**
 * The Markdown report, for a CI step summary or a pull-request comment.
 */
import { type CoverageReport, isCovered } from '../schema.js';
import { percent, STATUS_GLYPH } from './glyphs.js';
import { noteLines, notesSummary } from './notes.js';

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/**
 * Renders a report as GitHub-flavoured Markdown.
 *
 * @param report - the report
 * @returns the Markdown, ending with a newline
 */
export function renderMarkdown(report: CoverageReport): string {
  const s = report.summary;
  const ok = report.nodes.every((n) => isCovered(n.status));
  const lines = [
    `## gate-audit ${report.mode}: \`${report.root.id}\` ${ok ? '✔ fully gated' : '✘ not fully gated'}`,
    '',
    `**Coverage ${percent(s.coverage)}** of ${s.toolRunning} tool-running nodes · ${s.gated} gated · ${s.attested > 0 ? `${s.attested} attested · ` : ''}${s.ungated} ungated · ` +
      `${s.ungateable} ungateable · ${s.blocked} blocked${notesSummary(report) === '' ? '' : ` · ${notesSummary(report)}`}`,
    '',
    '| | node | kind | status | reason | fix |',
    '|---|---|---|---|---|---|',
  ];
  const ordered = [...report.nodes].sort((a, b) => Number(isCovered(a.status)) - Number(isCovered(b.status)));
  for (const n of ordered) {
    lines.push(
      `| ${STATUS_GLYPH[n.status]} | \`${cell(n.path.join(' › '))}\` | ${n.kind} | ${n.status} | ${cell(n.reason)} | ${cell(isCovered(n.status) ? '' : (n.fix ?? ''))} |`,
    );
  }
  const warned = report.nodes.filter((n) => n.warnings.length > 0);
  if (warned.length > 0) {
    lines.push('', '### Warnings', '');
    for (const n of warned) for (const w of n.warnings) lines.push(`- \`${cell(n.path.join(' › '))}\`: ${cell(w)}`);
  }
  if (report.refusals.length > 0) {
    lines.push('', '### installMultiagent would refuse this tree', '');
    for (const r of report.refusals) lines.push(`- \`${cell(r.path.join(' › '))}\` ${cell(r.reason)} — ${cell(r.fix)}`);
  }
  const notes = noteLines(report);
  if (notes.length > 0) {
    lines.push('', '### Not audited', '');
    for (const note of notes) lines.push(`- ${cell(note)}`);
  }
  return `${lines.join('\n')}\n`;
}
