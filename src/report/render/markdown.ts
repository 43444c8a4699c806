/**
 * The Markdown report, for a CI step summary or a pull-request comment.
 *
 * Every value from data goes through one of two writers, headings included:
 *
 * - `mdText`: line terminators (`\r\n`, `\r`, `\n`, NEL, LS, PS) become a space, then `visible` shows the
 *   remaining controls, bidi and invisible characters escaped; `<`, `>`, `&` become entities (no raw HTML
 *   from data, no comment that hides the rest) and every other ASCII punctuation character is
 *   backslash-escaped (no emphasis, link, autolink, table cell, mention, math or heading from data);
 *   spaces at either end are written `&#32;` so no cell or heading trims them away;
 * - `mdCode`: the same neutralised text in a code span fenced by one more backtick than its longest
 *   backtick run, padded with a space where the parser would otherwise take a leading or trailing
 *   backtick for the fence or strip a leading and trailing space. In a table a value
 *   holding `|` is written with `mdText` instead (Markdown parsers disagree on a `\|` inside a code span), and
 *   so is a value holding `##[` (the final pass writes its `[` as `\[`, which a code span would show).
 *
 * The registry's final pass then writes the `[` of any `##[` and the first `:` of a line's leading `::` as
 * `\[` and `\:`.
 */
import { visible } from '../../escape.js';
import { type ExitRule, judgeRun } from '../exit.js';
import type { CoverageReport } from '../schema.js';
import { STATUS_GLYPH } from './glyphs.js';
import { entryLines, noteLines, notesSummary } from './notes.js';
import { gateLegend, summaryParts, tally, verdict } from './summary.js';

/** Options of the Markdown report. */
export interface MarkdownOptions {
  /** Only the nodes that are not gated, plus the summary. */
  readonly quiet?: boolean;
  /** The exit rule in force, so the heading and the summary say every reason the run fails. */
  readonly exitRule?: ExitRule;
}

const LINE_BREAKS = /\r\n|[\r\n\u0085\u2028\u2029]/g;
const PUNCTUATION = /[!-/:-@[-`{-~]/g;
const ENTITIES: Readonly<Record<string, string>> = { '<': '&lt;', '>': '&gt;', '&': '&amp;' };

/** Data on one line, with nothing hidden. */
const oneLine = (text: string): string => visible(text.replace(LINE_BREAKS, ' '));

/**
 * A value from data as Markdown text that renders as exactly that text.
 *
 * @param text - a value from data
 */
export function mdText(text: string): string {
  return (
    oneLine(text)
      .replace(PUNCTUATION, (c) => ENTITIES[c] ?? `\\${c}`)
      // White space at either end (a no-break or an em space too) would be trimmed away by a table cell, heading
      // or paragraph: keep it, as numeric references.
      .replace(/^\s+|\s+$/gu, (spaces) => [...spaces].map((c) => `&#${c.codePointAt(0) ?? 32};`).join(''))
  );
}

/**
 * A value from data as a code span (or, in a table, as text when it holds a `|`).
 *
 * @param text - a value from data
 * @param inTable - whether the span sits in a table cell
 */
export function mdCode(text: string, inTable = false): string {
  const line = oneLine(text);
  // A `##[` in a code span would keep the final pass's `\[` as it is: such a value is written as text.
  if ((inTable && line.includes('|')) || line.includes('##[')) return mdText(text);
  let longest = 0;
  for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  if (line === '') return '';
  // A space on each side is stripped by the parser unless the text is all spaces: pad when the text starts
  // or ends with a backtick, or starts and ends with a space (which would be stripped otherwise).
  const spaced = line.startsWith(' ') && line.endsWith(' ') && line.trim() !== '';
  const pad = line.startsWith('`') || line.endsWith('`') || spaced ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}

const pathText = (path: readonly string[]): string => path.map((segment) => oneLine(segment)).join(' › ');

/** A path in a code span: segments joined with ` › `, a `›` inside a segment shown as `\u203a`. */
function mdPath(path: readonly string[], inTable = false): string {
  return mdCode(pathText(path.map((segment) => segment.replaceAll('›', '\\u203a'))), inTable);
}

/**
 * Renders a report as GitHub-flavoured Markdown.
 *
 * @param report - the report
 * @param options - quiet
 * @returns the Markdown, ending with a newline
 */
export function renderMarkdown(report: CoverageReport, options: MarkdownOptions = {}): string {
  const t = tally(report.nodes);
  const rule = options.exitRule ?? {};
  const { outside } = judgeRun(report, rule);
  const { head, rest } = summaryParts(t, outside);
  const counted = notesSummary(report, rule);
  const gates = gateLegend(report.nodes);
  const lines = [
    `## gate-audit ${report.mode}: ${mdCode(report.root.id)} ${verdict(t, outside)}`,
    '',
    `**${head[0]?.toUpperCase()}${head.slice(1)}**${rest}${counted === '' ? '' : ` · ${counted}`}`,
    '',
  ];
  const bundle = report.root.kind === 'bundle';
  if (bundle && report.sources.length > 0) {
    lines.push('Modules:', '');
    for (const source of report.sources) {
      const factory = source.factory ? ' (factory: a new orchestrator per call)' : '';
      lines.push(`- ${mdCode(`${source.module}#${source.export}`)}${factory}`);
    }
    lines.push('');
  }
  lines.push('| | node | kind | status | reason | gate | fix |', '|---|---|---|---|---|---|---|');
  const covered = (status: string): number => (status === 'gated' || status === 'attested' ? 1 : 0);
  const ordered = [...report.nodes]
    .filter((n) => options.quiet !== true || n.status !== 'gated')
    .sort((a, b) => covered(a.status) - covered(b.status));
  for (const n of ordered) {
    const entry = gates.of(n);
    const gate = entry === undefined ? '' : `${mdText(entry.gate.name)} \\[${entry.number}\\]`;
    const fix = n.status === 'gated' || n.status === 'attested' || n.status === 'accepted' ? '' : mdText(n.fix ?? '');
    lines.push(
      `| ${STATUS_GLYPH[n.status]} | ${mdPath(n.path, true)} | ${mdText(n.kind)} | ${mdText(n.status)} | ${mdText(n.reason)} | ${gate} | ${fix} |`,
    );
  }
  if (options.quiet === true) {
    const hidden = report.nodes.length - ordered.length;
    lines.push('', `${hidden} gated ${hidden === 1 ? 'node' : 'nodes'} not shown \\(quiet\\)\\.`);
  }
  if (gates.entries.length > 0) {
    lines.push('', '### Gates', '', '| | gate | id | nodes |', '|---|---|---|---|');
    for (const entry of gates.entries) {
      const notes = [
        entry.gate.perProcess === true ? 'per\\-process id: compared within this report only' : '',
        entry.sameNameAs === undefined ? '' : `same name as \\[${entry.sameNameAs}\\], another gate`,
      ].filter((note) => note !== '');
      lines.push(
        `| \\[${entry.number}\\] | ${mdText(entry.gate.name)} | ${mdCode(entry.gate.id, true)}${notes.length > 0 ? ` (${notes.join('; ')})` : ''} | ${entry.nodes} |`,
      );
    }
  }
  const warned = report.nodes.filter((n) => n.warnings.length > 0);
  if (warned.length > 0) {
    lines.push('', '### Warnings', '');
    for (const n of warned) for (const w of n.warnings) lines.push(`- ${mdPath(n.path)}: ${mdText(w)}`);
  }
  if (report.refusals.length > 0) {
    lines.push('', '### installMultiagent would refuse this tree', '');
    for (const r of report.refusals) lines.push(`- ${mdPath(r.path)} ${mdText(r.reason)} — ${mdText(r.fix)}`);
  }
  const notes = noteLines(report);
  if (notes.length > 0) {
    lines.push('', '### Notes', '');
    for (const note of notes) lines.push(`- ${mdText(note)}`);
  }
  const entries = entryLines(report);
  if (entries.length > 0) {
    lines.push('', '### Entry runs', '');
    for (const entry of entries) lines.push(`- ${mdText(entry)}`);
  }
  return `${lines.join('\n')}\n`;
}
