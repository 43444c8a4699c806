/**
 * The plain-text report: a tree of nodes with a status glyph each, then the summary. No colour, no
 * escape codes: it is what a pipe, a log or CI gets.
 */
import { type CoverageNode, type CoverageReport, isCovered } from '../schema.js';
import { percent, STATUS_GLYPH } from './glyphs.js';
import { noteLines, notesSummary } from './notes.js';

function label(node: CoverageNode, depth: number): string {
  return `${'  '.repeat(depth)}${node.id}`;
}

/**
 * Renders a report as text.
 *
 * @param report - the report
 * @returns the text, ending with a newline
 */
export function renderText(report: CoverageReport): string {
  const base = report.root.kind === 'bundle' ? 1 : 0;
  const rows = report.nodes.map((node) => ({
    node,
    name: label(node, node.path.length - 1 - base),
  }));
  const width = Math.min(48, Math.max(8, ...rows.map((r) => r.name.length)));
  const lines = [`gate-audit ${report.mode}: ${report.root.id} (${report.root.kind})`];
  for (const source of report.sources) {
    const built = source.factory ? ' (factory: a new orchestrator per call)' : '';
    lines.push(`  from ${source.module}#${source.export}${built}`);
  }
  lines.push('');
  let section = '';
  for (const { node, name } of rows) {
    if (base === 1 && node.path[0] !== section) {
      section = node.path[0] ?? '';
      lines.push(`── ${section}`);
    }
    const tools =
      node.tools.length > 0
        ? `  tools: ${node.tools.join(', ')}${node.toolsUnknownUntilInit ? ' (+ unknown until init)' : ''}`
        : '';
    lines.push(
      `${STATUS_GLYPH[node.status]} ${name.padEnd(width)}  ${node.kind.padEnd(10)} ${node.status.padEnd(10)} ${node.reason}${tools}`,
    );
    if (!isCovered(node.status) && node.fix !== undefined) lines.push(`  ${' '.repeat(width)}  fix: ${node.fix}`);
    for (const warning of node.warnings) lines.push(`  ${' '.repeat(width)}  warning: ${warning}`);
  }
  for (const refusal of report.refusals) {
    lines.push('', `refusal: "${refusal.path.join(' › ')}" ${refusal.reason} | ${refusal.fix}`);
  }
  const notes = noteLines(report);
  if (notes.length > 0) lines.push('', ...notes);
  const s = report.summary;
  const counted = notesSummary(report);
  lines.push(
    '',
    `coverage ${percent(s.coverage)} of ${s.toolRunning} tool-running nodes · ${s.gated} gated · ${s.attested > 0 ? `${s.attested} attested · ` : ''}${s.ungated} ungated · ` +
      `${s.ungateable} ungateable · ${s.blocked} blocked · ${s.total} nodes${counted === '' ? '' : ` · ${counted}`}`,
  );
  return `${lines.join('\n')}\n`;
}
