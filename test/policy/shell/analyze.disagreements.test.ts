/**
 * Lines that the parser (mvdan-sh) or the word checks read differently from bash. For each, bash itself
 * (the oracle: a throwaway root with stub programs) runs `rm -rf /`, and the analysis must either find that
 * part or hold a part that runs code it cannot see (which every policy refuses).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeShell, basename, type ShellPart } from '../../../src/policy/shell/analyze.js';
import { Oracle, oracleOff, oracleSupport } from './oracle.js';

/** Lines bash runs `rm -rf /` for, by finding, in the dialect of the tool that runs them. */
const DISAGREEMENTS: readonly {
  readonly line: string;
  readonly dialect: 'bash' | 'sh';
  readonly why: string;
  /** What bash runs, when not `rm -rf /` itself. */
  readonly runs?: string;
}[] = [
  { line: 'ls\r#$(rm -rf /)', dialect: 'bash', why: 'carriage return' },
  { line: 'ls\r#$(rm -rf /)', dialect: 'sh', why: 'carriage return' },
  { line: "cat <<'EOF'\r\nEOF\r\nrm -rf /\nEOF", dialect: 'bash', why: 'carriage return' },
  { line: "cat <<'EOF'\r\nEOF\r\nrm -rf /\nEOF", dialect: 'sh', why: 'carriage return' },
  { line: "{r'm',-rf,/}", dialect: 'bash', why: 'brace expansion across quotes' },
  { line: "/bin/r['m'] -rf /", dialect: 'bash', why: 'bracket glob across quotes' },
  { line: "/bin/r['m'] -rf /", dialect: 'sh', why: 'bracket glob across quotes' },
  { line: 'echo "$\\\n(rm -rf /)"', dialect: 'bash', why: 'backslash-newline after $' },
  { line: 'echo "$\\\n(rm -rf /)"', dialect: 'sh', why: 'backslash-newline after $' },
  { line: 'echo ${x:-$\\\n(rm -rf /)}', dialect: 'bash', why: 'backslash-newline after $' },
  { line: 'cat <<EOF\n$\\\n(rm -rf /)\nEOF', dialect: 'bash', why: 'backslash-newline after $' },
  { line: 'ls #\\\nrm -rf /', dialect: 'bash', why: 'backslash at the end of a comment' },
  { line: 'ls #\\\nrm -rf /', dialect: 'sh', why: 'backslash at the end of a comment' },
  { line: 'echo "$(ls #\\\nrm -rf /)"', dialect: 'bash', why: 'backslash at the end of a comment in "$( )"' },
  { line: 'echo "$(ls #\\\nrm -rf /)"', dialect: 'sh', why: 'backslash at the end of a comment in "$( )"' },
  { line: 'cat <<EOF\nEO\\\nF\nrm -rf /\nEOF\n', dialect: 'bash', why: 'here-document terminator continued' },
  { line: "echo $(cat <<'EOF'\nEOF)\nrm -rf /\nEOF\n)", dialect: 'bash', why: 'here-document ended by EOF)' },
  { line: 'time -- rm -rf /', dialect: 'bash', why: 'time --' },
  { line: 'time -p -- rm -rf /', dialect: 'bash', why: 'time -p --' },
  {
    line: "find /work {'-exec',} rm -rf / ';'",
    dialect: 'bash',
    why: 'brace expansion across quotes',
    runs: 'find /work -exec rm -rf / ;',
  },
];

/** Whether the analysis accounts for a run of `rm -rf /`: an opaque code part, or that very part (`find` with
 * an unknown word is opaque code too). */
function accounted(parts: readonly ShellPart[]): boolean {
  return parts.some(
    (p) =>
      p.opaque?.kind === 'code' ||
      (p.program !== undefined && basename(p.program) === 'rm' && p.args.includes('-rf') && p.args.includes('/')),
  );
}

describe('analyzeShell, on lines bash reads differently from the parser', () => {
  describe('when the analysis reads each line', () => {
    // Named with %s: vitest shortens a $-interpolated value past 40 characters, and Stryker picks a mutant's tests by
    // their full names.
    it.each(DISAGREEMENTS.map((d) => [d.why, JSON.stringify(d.line), d.dialect, d] as const))(
      '%s: %s (%s) is accounted for',
      (_why, _line, _dialect, { line, dialect }) => {
        expect(accounted(analyzeShell(line, dialect))).toBe(true);
      },
    );
  });

  describe.skipIf(!oracleSupport().ok || oracleOff())('when bash itself runs each line', () => {
    let oracle: Oracle;
    beforeAll(() => {
      oracle = new Oracle({ stubs: ['rm', 'ls', 'cat', 'echo', 'find'] });
    });
    afterAll(() => oracle.dispose());

    it('bash (or sh) runs rm -rf / (or find -exec rm) for every line', async () => {
      const seen = await oracle.observeAll(DISAGREEMENTS.map(({ line, dialect }) => ({ line, mode: dialect })));
      const missing = DISAGREEMENTS.filter(
        (entry, i) =>
          !(seen[i]?.runs ?? []).some((r) => [r.program, ...r.args].join(' ') === (entry.runs ?? 'rm -rf /')),
      );
      expect(missing).toEqual([]);
    });
  });
});
