/**
 * The CLI's notes in the text renderers: what a run did not audit (exported functions not called, modules
 * skipped) and gated nodes under another gate than the one required, counted in the summary line.
 */
import { quoted, visible, visiblePath } from '../../escape.js';
import { type ExitRule, noteFailsRun } from '../exit.js';
import type { CoverageNote, CoverageReport } from '../schema.js';

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** How each kind of note is labelled in every text output. */
export const NOTE_LABELS: Readonly<Record<CoverageNote['kind'], string>> = {
  'unaudited-export': 'not audited',
  'skipped-module': 'skipped',
  'gate-mismatch': 'wrong gate',
  load: 'load failed',
  'invoked-at-import': 'invoked at import',
  'process-guard': 'no process guard',
  'refused-tree': 'refused',
  'writable-keyring': 'writable keyring',
};

/**
 * The counts for the summary line (`2 exported functions not audited · 1 module skipped`), or an empty
 * string when there are no notes. Given the exit rule, only the notes that do not fail the run (those that
 * do are named by the summary line's "the run fails").
 *
 * @param report - the report
 * @param rule - the exit rule in force, to leave out the notes that fail the run
 */
export function notesSummary(report: CoverageReport, rule?: ExitRule): string {
  const notes = (report.notes ?? []).filter((note) => rule === undefined || !noteFailsRun(note, rule));
  const count = (kind: CoverageNote['kind']): number => notes.filter((n) => n.kind === kind).length;
  const parts: string[] = [];
  const load = count('load');
  if (load > 0) parts.push(plural(load, 'load failure', 'load failures'));
  const unaudited = count('unaudited-export');
  if (unaudited > 0) parts.push(plural(unaudited, 'export not audited', 'exports not audited'));
  const skipped = count('skipped-module');
  if (skipped > 0) parts.push(plural(skipped, 'module skipped', 'modules skipped'));
  const mismatched = count('gate-mismatch');
  if (mismatched > 0) parts.push(plural(mismatched, 'node under another gate', 'nodes under another gate'));
  return parts.join(' · ');
}

/**
 * One line per note: `not audited: app.ts#buildGraph: was not called, … | fix`, every value from data shown
 * through `visible` (module and export names come from the user's code).
 *
 * @param report - the report
 */
export function noteLines(report: CoverageReport): string[] {
  return (report.notes ?? []).map((note) => {
    const where =
      note.path === undefined
        ? visible(`${note.module}${note.export === undefined ? '' : `#${note.export}`}`)
        : quoted(visiblePath(note.path));
    const label = NOTE_LABELS[note.kind];
    return `${label}: ${where}: ${visible(note.message)}${note.fix === undefined ? '' : ` | ${visible(note.fix)}`}`;
  });
}

/**
 * One line per entry run: `entry src/main.ts: 1 invocation stopped and audited, ended: exit code 0`.
 *
 * @param report - the report
 */
export function entryLines(report: CoverageReport): string[] {
  return (report.entries ?? []).map((entry) => {
    const how =
      entry.ended === 'exit'
        ? `exit code ${entry.exitCode ?? '?'}`
        : entry.ended === 'signal'
          ? `signal ${visible(entry.signal ?? '?')}`
          : entry.ended === 'settle'
            ? 'no new invocation within the settle time'
            : 'the timeout';
    const guard = entry.processGuard;
    const guarded =
      guard === undefined
        ? ''
        : guard.installed
          ? `; process guard started by ${guard.by ?? '?'} (onUngated: ${guard.onUngated ?? '?'}; gates ${(guard.gates ?? []).map((g) => quoted(visible(g.name))).join(', ')})`
          : '; no process guard before its first invocation';
    return `entry ${visible(entry.module)}: ${plural(entry.invocations, 'invocation', 'invocations')} stopped and audited, ended by ${how}${guarded}`;
  });
}
