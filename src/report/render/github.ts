/**
 * GitHub Actions workflow commands: one `::error` per node that fails the run under the one exit rule
 * (`nodeFailsRun`), one `::warning` per accepted node (with its reason) and per node that is not gated but
 * does not fail the run (under `--min-coverage`), an `::error` per note that fails the run (a module or entry
 * that failed to load or invoked nothing, a tree the module refused, `--require-gate`, `--fail-on-unaudited`,
 * `--require-process-guard`; `judgeRun`) and when coverage is under the minimum, and one `::notice` with the
 * summary, which names every reason the run fails. Each annotation carries `file` (the node's module) where
 * the report knows it and a `title` naming the node.
 *
 * Values from data are first shown with `visible` (controls, ESC, bidi, zero-width and the spaces a runner
 * skips escaped visibly), then escaped as workflow commands require: `%`, `\r`, `\n` in the message; also `:`
 * and `,` in properties. Every command is one line, so no value can start a command of its own; the final
 * pass writes the `[` of a `##[` after the command's own prefix as `\x5b`, so none is read as the older syntax.
 */
import { neutralizeCommands, visible, visiblePath } from '../../escape.js';
import { type ExitRule, judgeRun, nodeFailsRun, noteFailsRun, underMinimum } from '../exit.js';
import type { CoverageNode, CoverageReport } from '../schema.js';
import { percent } from './glyphs.js';
import { NOTE_LABELS } from './notes.js';
import { coverageOf, sourceOf, summaryLine, tally } from './summary.js';

/** Options of the workflow-command output. */
export interface GithubOptions {
  /** The exit rule in force, so exactly the nodes that fail the run are errors. */
  readonly exitRule?: ExitRule;
}

/**
 * The message part of a workflow command: `%`, `\r`, `\n` escaped.
 *
 * @param text - neutralised text
 */
export function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

/**
 * A property value of a workflow command: as `escapeData`, plus `:` and `,`.
 *
 * @param text - neutralised text
 */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}

type Level = 'error' | 'warning' | 'notice';

/**
 * One workflow command: the reporter's own `::level` prefix, then properties and message escaped as workflow
 * commands require and passed through the final pass (mid-line, so only a `##[` is left to escape, as `\x5b`).
 *
 * @param level - the command
 * @param properties - `file`, `title`, … (neutralised text; an undefined value is left out)
 * @param message - neutralised text
 */
export function workflowCommand(
  level: Level,
  properties: Readonly<Record<string, string | undefined>>,
  message: string,
): string {
  const props = Object.entries(properties)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${key}=${escapeProperty(value)}`)
    .join(',');
  // The prefix is the reporter's own command; what follows it passes the final pass (mid-line: only `##[`).
  return `::${level}${neutralizeCommands(`${props === '' ? '' : ` ${props}`}::${escapeData(message)}`, 'text', true)}`;
}

/**
 * Renders a report as GitHub Actions workflow commands.
 *
 * @param report - the report
 * @param options - the exit rule in force
 * @returns one command per line, ending with a newline
 */
export function renderGithub(report: CoverageReport, options: GithubOptions = {}): string {
  const rule = options.exitRule ?? {};
  const lines: string[] = [];
  const fileOf = (node: CoverageNode): string | undefined => {
    const module = sourceOf(report.sources, node.path)?.module;
    return module === undefined ? undefined : visible(module);
  };
  for (const node of report.nodes) {
    const fails = nodeFailsRun(node, rule);
    const hole = node.status !== 'gated' && node.status !== 'attested';
    if (!fails && !hole) continue;
    const where = visiblePath(node.path);
    const fix = node.fix === undefined || node.status === 'accepted' ? '' : ` | fix: ${visible(node.fix)}`;
    lines.push(
      workflowCommand(
        fails ? 'error' : 'warning',
        { file: fileOf(node), title: `gate-audit: ${visible(node.status)} ${visible(node.kind)} ${where}` },
        `${where} is ${visible(node.status)}: ${visible(node.reason)}${fix}`,
      ),
    );
  }
  // Every note that fails the run is an error (a load failure whatever the nodes say, exit 2); the others are
  // the text report's.
  for (const note of report.notes ?? []) {
    if (!noteFailsRun(note, rule)) continue;
    const where =
      note.path === undefined
        ? visible(`${note.module}${note.export === undefined ? '' : `#${note.export}`}`)
        : visiblePath(note.path);
    const fix = note.fix === undefined ? '' : ` | fix: ${visible(note.fix)}`;
    lines.push(
      workflowCommand(
        'error',
        { file: visible(note.module), title: `gate-audit: ${NOTE_LABELS[note.kind]} ${where}` },
        `${where}: ${visible(note.message)}${fix}`,
      ),
    );
  }
  const t = tally(report.nodes);
  const ratio = coverageOf(t);
  if (rule.minCoverage !== undefined && ratio !== undefined && underMinimum(report.nodes, rule.minCoverage)) {
    lines.push(
      workflowCommand(
        'error',
        { title: 'gate-audit: coverage under the minimum' },
        `coverage ${percent(ratio)} is under the minimum of ${rule.minCoverage}%`,
      ),
    );
  }
  const { outside } = judgeRun(report, rule);
  lines.push(
    workflowCommand(
      'notice',
      { title: `gate-audit ${report.mode}: ${visible(report.root.id)}` },
      summaryLine(t, outside),
    ),
  );
  return `${lines.join('\n')}\n`;
}
