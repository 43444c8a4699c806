/**
 * The observed report as one self-contained HTML page: the summary, one table row per agent and tool, the
 * notes and the sources. No script and no request: a Content-Security-Policy `default-src 'none'` allows only
 * the page's own inline style, by its SHA-256. Every value from data is shown as `visible` shows it, then
 * HTML-escaped (`escapeHtml`), in text content only.
 */
import { createHash } from 'node:crypto';
import { visible } from '../../../escape.js';
import { rowAgent } from '../../observed.js';
import type { ObservedReport } from '../../observed-schema.js';
import { escapeHtml } from '../svg.js';
import { hostsText, rowGlyph, sourceLines, summaryLine, verdictLine, windowLine } from './shared.js';

const STYLE =
  'body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}' +
  'th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;white-space:pre-wrap}' +
  'td.n{text-align:right}tr.undecided td{background:#fde8e8}code{font:13px ui-monospace,monospace}';

const text = (value: string): string => escapeHtml(visible(value));

/**
 * Renders an observed report as an HTML page.
 *
 * @param report - the report
 * @returns the page, ending with a newline
 */
export function renderObservedHtml(report: ObservedReport): string {
  const hash = createHash('sha256').update(STYLE, 'utf8').digest('base64');
  const rows = report.rows.map((row) => {
    const cells = [
      rowGlyph(row),
      `<code>${text(rowAgent(row))}</code>`,
      `<code>${text(row.tool)}</code>`,
      ...[row.calls, row.decided, row.undecided, row.refused].map((n) => `<td class="n">${n}</td>`),
      text(row.firstSeen),
      text(row.lastSeen),
    ].map((cell) => (cell.startsWith('<td') ? cell : `<td>${cell}</td>`));
    return `<tr class="${row.undecided > 0 ? 'undecided' : 'decided'}">${cells.join('')}</tr>`;
  });
  const notes = report.notes.map((note) => `<li>${text(note.message)}</li>`);
  const sources = sourceLines(report).map((line) => `<li>${text(line)}</li>`);
  return `${[
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-${hash}'">`,
    '<title>gate-audit observed</title>',
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>gate-audit observed: ${text(verdictLine(report))}</h1>`,
    `<p>${text(summaryLine(report))} · ${text(windowLine(report))} · hosts: ${escapeHtml(hostsText(report))}</p>`,
    '<table>',
    '<thead><tr><th></th><th>agent</th><th>tool</th><th>calls</th><th>decided</th><th>undecided</th><th>refused</th><th>first seen</th><th>last seen</th></tr></thead>',
    `<tbody>${rows.join('')}</tbody>`,
    '</table>',
    ...(notes.length === 0
      ? []
      : [
          `<h2>Notes (held against the audit of ${text(report.audit?.root ?? '?')})</h2>`,
          `<ul>${notes.join('')}</ul>`,
        ]),
    ...(sources.length === 0 ? [] : ['<h2>Read</h2>', `<ul>${sources.join('')}</ul>`]),
    '</body>',
    '</html>',
  ].join('\n')}\n`;
}
