/**
 * The plain-text report: a tree of nodes with a status glyph each, then the gates and the summary. No
 * colour, no escape codes: it is what a pipe, a log or CI gets. Every value from data is shown through
 * `visible`, so a row is one line that starts with its node's real glyph, and nothing in an id can move
 * the cursor, forge a row or hide the summary.
 */
import { quoted, visible, visiblePath } from '../../escape.js';
import { type ExitRule, judgeRun } from '../exit.js';
import type { CoverageNode, CoverageReport } from '../schema.js';
import { STATUS_GLYPH } from './glyphs.js';
import { entryLines, noteLines, notesSummary } from './notes.js';
import { type GateEntry, gateLegend, sourceOf, summaryLine, tally } from './summary.js';

/** Options of the text report. */
export interface TextOptions {
  /** Only the nodes that are not gated, each with its whole path, plus the summary. */
  readonly quiet?: boolean;
  /** The exit rule in force, so the summary says every reason the run fails. */
  readonly exitRule?: ExitRule;
}

/** `gate: policy [1]`, the gate of a row, numbered as in the legend. */
export function gateLabel(entry: GateEntry): string {
  return `${visible(entry.gate.name)} [${entry.number}]`;
}

/** One legend line: the gate's number, name, full id and how many nodes carry it. */
export function gateLegendLine(entry: GateEntry): string {
  const perProcess = entry.gate.perProcess === true ? ' (per-process id: compared within this report only)' : '';
  const clash =
    entry.sameNameAs === undefined
      ? ''
      : ` (same name as [${entry.sameNameAs}], another gate: names are not identities)`;
  const nodes = `${entry.nodes} ${entry.nodes === 1 ? 'node' : 'nodes'}`;
  return `[${entry.number}] ${visible(entry.gate.name)}  id ${visible(entry.gate.id)}${perProcess} · ${nodes}${clash}`;
}

/** The label of a bundle's module: `module#export`, and whether it is a factory. */
export function sourceLabel(source: CoverageReport['sources'][number]): string {
  const built = source.factory ? ' (factory: a new orchestrator per call)' : '';
  return `${visible(source.module)}#${visible(source.export)}${built}`;
}

/**
 * Renders a report as text.
 *
 * @param report - the report
 * @param options - quiet
 * @returns the text, ending with a newline
 */
export function renderText(report: CoverageReport, options: TextOptions = {}): string {
  const quiet = options.quiet === true;
  const bundle = report.root.kind === 'bundle';
  const base = bundle ? 1 : 0;
  const shown = quiet ? report.nodes.filter((n) => n.status !== 'gated') : report.nodes;
  const nameOf = (node: CoverageNode): string => {
    if (quiet) return visiblePath(node.path.length > base ? node.path.slice(base) : node.path);
    return `${'  '.repeat(Math.max(0, node.path.length - 1 - base))}${visible(node.id)}`;
  };
  const rows = shown.map((node) => ({ node, name: nameOf(node) }));
  let longest = 8;
  for (const row of rows) longest = Math.max(longest, row.name.length);
  const width = Math.min(48, longest);
  const gates = gateLegend(report.nodes);
  const lines = [`gate-audit ${report.mode}: ${visible(report.root.id)} (${report.root.kind})`];
  if (!bundle) for (const source of report.sources) lines.push(`  from ${sourceLabel(source)}`);
  lines.push('');
  let section: string | undefined;
  for (const { node, name } of rows) {
    if (bundle) {
      const source = sourceOf(report.sources, node.path);
      const heading = source === undefined ? visible(node.path[0] ?? '') : sourceLabel(source);
      if (heading !== section) {
        section = heading;
        lines.push(`── ${heading}`);
      }
    }
    const tools =
      node.tools.length > 0
        ? `  tools: ${node.tools.map(visible).join(', ')}${node.toolsUnknownUntilInit ? ' (+ unknown until init)' : ''}`
        : '';
    const entry = gates.of(node);
    const gate = entry === undefined ? '' : `  gate: ${gateLabel(entry)}`;
    lines.push(
      `${STATUS_GLYPH[node.status]} ${name.padEnd(width)}  ${visible(node.kind).padEnd(10)} ${visible(node.status).padEnd(10)} ${visible(node.reason)}${gate}${tools}`,
    );
    // An accepted node is acknowledged: its reason says why, and it is not left to fix.
    if (node.status !== 'gated' && node.status !== 'attested' && node.status !== 'accepted' && node.fix !== undefined) {
      lines.push(`  ${' '.repeat(width)}  fix: ${visible(node.fix)}`);
    }
    for (const warning of node.warnings) lines.push(`  ${' '.repeat(width)}  warning: ${visible(warning)}`);
  }
  if (quiet) {
    const hidden = report.nodes.length - shown.length;
    lines.push(`(quiet: ${hidden} gated ${hidden === 1 ? 'node' : 'nodes'} not shown)`);
  }
  for (const refusal of report.refusals) {
    lines.push(
      '',
      `refusal: ${quoted(visiblePath(refusal.path))} ${visible(refusal.reason)} | ${visible(refusal.fix)}`,
    );
  }
  const notes = noteLines(report);
  if (notes.length > 0) lines.push('', ...notes);
  const entries = entryLines(report);
  if (entries.length > 0) lines.push('', ...entries);
  if (gates.entries.length > 0) {
    lines.push('', 'gates:');
    for (const entry of gates.entries) lines.push(`  ${gateLegendLine(entry)}`);
  }
  const rule = options.exitRule ?? {};
  const counted = notesSummary(report, rule);
  lines.push(
    '',
    `${summaryLine(tally(report.nodes), judgeRun(report, rule).outside)}${counted === '' ? '' : ` · ${counted}`}`,
  );
  return `${lines.join('\n')}\n`;
}
