/**
 * The rule the oracle checks for every line, between what the analysis says and what bash did:
 * - every program bash ran, with its words, is a part the analysis found (same program; the same words when
 *   it knew them all), unless the line has an opaque part of kind `code` (a `state` part such as `cd` does
 *   not exempt it);
 * - every file written is a write of a part (a target it knew, resolved against the working directory, or
 *   one it did not know);
 * - a line a preset allows ran only what the preset allows on its own and, for `read-only-shell`, wrote
 *   nothing.
 * It also tells the lines the read-only preset refuses although bash shows they ran only what it allows and
 * wrote nothing (over-reports, for the README's table).
 */
import { posix } from 'node:path';
import type { Decision, Gate } from '../../../src/index.js';
import { policyGate } from '../../../src/index.js';
import { analyzeShell, basename, type ShellPart } from '../../../src/policy/shell/analyze.js';
import { quote } from './corpus.js';
import { type Observation, type Run, WORK } from './oracle.js';

/** One disagreement between the analysis and bash. */
export interface Finding {
  readonly line: string;
  readonly dialect: 'bash' | 'sh';
  /** `program`: a run not found; `write`: a file written not found; `preset`: an allowed line did more. */
  readonly kind: 'program' | 'write' | 'preset' | 'timeout';
  readonly detail: string;
}

/** The two shipped presets, as a user extends them. */
export const PRESETS: readonly { readonly name: string; readonly gate: Gate; readonly noWrites: boolean }[] = [
  {
    name: 'vended-tools',
    gate: policyGate({ version: 1, extends: ['gate-audit:vended-tools'], default: 'allow' }),
    noWrites: false,
  },
  {
    name: 'read-only-shell',
    gate: policyGate({ version: 1, extends: ['gate-audit:read-only-shell'] }),
    noWrites: true,
  },
];

/** The verdict of a gate for one line given to the tool of its dialect. */
export function verdictOf(gate: Gate, line: string, dialect: 'bash' | 'sh'): string {
  const decision = gate.decide({
    toolUseId: 't',
    toolName: dialect === 'sh' ? 'shell' : 'bash',
    input: { command: line },
    agentId: 'a',
    agentName: 'a',
    path: ['app', 'a'],
    paths: [['app', 'a']],
    toolKind: 'function',
  }) as Decision;
  return decision.verdict;
}

/**
 * A run as a line of its own, its words quoted. `piped`: its input is a pipe, as it was in the line it came
 * from (a pipe, a redirection or the shell's own script; a preset refuses a program that reads the tool's own
 * input, which a run in a pipeline does not).
 */
export function runLine(run: Run, piped = true): string {
  const words = [run.program, ...run.args].map(quote).join(' ');
  return piped ? `true | ${words}` : words;
}

/** Options by which `find` writes or deletes files itself (a policy judges them; they are not redirections). */
const FIND_WRITES = new Set(['-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

/** Whether a part's program writes the file itself, by its own options: `find -delete`, `flock FILE`. */
function writesItself(part: ShellPart, path: string): boolean {
  const program = part.program === undefined ? '' : basename(part.program);
  if (program === 'find') return part.args.some((a) => a === undefined || FIND_WRITES.has(a));
  if (program === 'flock') return part.args.some((a) => a === undefined || posix.resolve(WORK, a) === path);
  return false;
}

function explainsRun(part: ShellPart, run: Run): boolean {
  if (part.program === undefined || basename(part.program) !== run.program) return false;
  if (part.moreArgs || part.args.some((a) => a === undefined)) return true;
  return part.args.length === run.args.length && part.args.every((a, i) => a === run.args[i]);
}

function explainsWrite(part: ShellPart, path: string): boolean {
  if (writesItself(part, path)) return true;
  return part.writes.some(
    (w) =>
      w === undefined ||
      part.cwdUnknown ||
      posix.resolve(WORK, w) === path ||
      (w.startsWith('/dev/fd/') && path.startsWith('/dev')),
  );
}

/**
 * What disagrees for one line.
 *
 * @param line - the line
 * @param dialect - the shell that read it
 * @param seen - what bash did
 * @param parts - the analysis of the line (computed when not given)
 */
export function judge(
  line: string,
  dialect: 'bash' | 'sh',
  seen: Observation,
  parts = analyzeShell(line, dialect),
): Finding[] {
  const out: Finding[] = [];
  const found = (kind: Finding['kind'], detail: string): number => out.push({ line, dialect, kind, detail });
  if (seen.timedOut) found('timeout', 'still running after 2 s: the harness cannot say what it runs');
  const code = parts.some((p) => p.opaque?.kind === 'code');
  if (!code) {
    for (const run of seen.runs) {
      if (!parts.some((p) => explainsRun(p, run)))
        found('program', `bash ran ${run.program} ${JSON.stringify(run.args)}`);
    }
    for (const path of seen.writes) {
      if (!parts.some((p) => explainsWrite(p, path))) found('write', `bash wrote ${path}`);
    }
  }
  for (const preset of PRESETS) {
    if (verdictOf(preset.gate, line, dialect) !== 'allow') continue;
    for (const run of seen.runs) {
      if (verdictOf(preset.gate, runLine(run), dialect) !== 'allow')
        found('preset', `${preset.name} allows the line, not what bash ran: ${runLine(run)}`);
    }
    if (preset.noWrites && seen.writes.length > 0)
      found('preset', `${preset.name} allows the line; bash wrote ${seen.writes.join(', ')}`);
  }
  return out;
}

/**
 * Refusals by design, not by reading: a part that sets environment names or changes later calls (*state*),
 * reads the tool's own input, or whose code depends on values the line does not hold (a program or `eval` of
 * words that are not literals, arithmetic on a variable, a prompt expansion). Bash running nothing more with
 * the oracle's empty environment says nothing about them.
 */
const BY_DESIGN = /standard input|not a literal|not literals|arithmetic on|prompt expansion/;

/**
 * Whether read-only-shell refuses a line that bash shows ran only what it allows, wrote nothing, and ran
 * every part the analysis found (so the refusal is not about a branch that did not run this time), where the
 * refusal is about how the line reads, not one the preset makes by design (see BY_DESIGN).
 */
export function overReported(
  line: string,
  dialect: 'bash' | 'sh',
  seen: Observation,
  parts = analyzeShell(line, dialect),
): boolean {
  if (parts.some((p) => p.assigns.length > 0 || p.opaque?.kind === 'state' || BY_DESIGN.test(p.opaque?.reason ?? ''))) {
    return false;
  }
  const readOnly = PRESETS[1]?.gate;
  if (readOnly === undefined || seen.timedOut || seen.writes.length > 0 || seen.runs.length === 0) return false;
  if (verdictOf(readOnly, line, dialect) === 'allow') return false;
  if (!seen.runs.every((run) => verdictOf(readOnly, runLine(run, false), dialect) === 'allow')) return false;
  return parts.every(
    (p) => p.opaque !== undefined || p.program === undefined || seen.runs.some((run) => explainsRun(p, run)),
  );
}
