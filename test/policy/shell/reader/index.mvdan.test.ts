/**
 * The shell reader against mvdan-sh, the parser the analysis used before it, as a second opinion: the analysis runs
 * on each reading of every corpus line (the walk is the same, only `parseShell` differs), and the lines whose parts
 * differ must be exactly those listed in reader/mvdan-disagreements.json, each with its reason. Bash runs
 * `rm -rf /` for every listed line (the corpus test runs each in bash): the reader finds that part, or refuses the
 * whole line where its reason says so, and mvdan-sh's reading does not have it. A new difference fails here until
 * it is understood and listed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { analyzeShell, basename, type ShellPart } from '../../../../src/policy/shell/analyze.js';
import type * as Syntax from '../../../../src/policy/shell/syntax.js';
import { CORPUS } from '../corpus.js';
import { mvdanParse } from './mvdan.js';

const reading = vi.hoisted(() => ({ mvdan: false }));

vi.mock('../../../../src/policy/shell/syntax.js', async (importOriginal) => {
  const real = await importOriginal<typeof Syntax>();
  return {
    ...real,
    parseShell: (source: string, dialect: 'bash' | 'sh' | 'mksh') =>
      reading.mvdan ? mvdanParse(source, dialect) : real.parseShell(source, dialect),
  };
});

interface Listed {
  readonly line: string;
  readonly dialect: 'bash' | 'sh';
  readonly reason: string;
}

/** Why the readings differ, and what the reader does with such a line. */
interface Reason {
  readonly why: string;
  readonly reader: 'finds rm -rf /' | 'refuses the line';
}

const LISTED = JSON.parse(readFileSync(new URL('./mvdan-disagreements.json', import.meta.url), 'utf8')) as {
  readonly reasons: Readonly<Record<string, Reason>>;
  readonly lines: readonly Listed[];
};

/** The analysis of a line on one reading or the other. */
function analyze(line: string, dialect: 'bash' | 'sh', mvdan: boolean): readonly ShellPart[] {
  reading.mvdan = mvdan;
  try {
    return analyzeShell(line, dialect);
  } finally {
    reading.mvdan = false;
  }
}

/** The parts as compared: everything but the wording of an opacity's reason (the parsers' messages differ). */
function summary(parts: readonly ShellPart[]): string {
  return JSON.stringify(parts.map((p) => ({ ...p, opaque: p.opaque?.kind })));
}

function runsRm(parts: readonly ShellPart[]): boolean {
  return parts.some((p) => p.program !== undefined && basename(p.program) === 'rm' && p.args.join(' ') === '-rf /');
}

describe('the shell reader against mvdan-sh, over the corpus', () => {
  const differing = CORPUS.flatMap((entry) => {
    const dialect = entry.dialect ?? 'bash';
    const ours = analyze(entry.line, dialect, false);
    const theirs = analyze(entry.line, dialect, true);
    return summary(ours) === summary(theirs) ? [] : [{ line: entry.line, dialect, ours, theirs }];
  });

  describe('when every corpus line is read both ways', () => {
    it('differs on exactly the listed lines', () => {
      expect(differing.map(({ line, dialect }) => ({ line, dialect }))).toEqual(
        LISTED.lines.map(({ line, dialect }) => ({ line, dialect })),
      );
    });

    it('gives every listed line a reason', () => {
      for (const entry of LISTED.lines) expect(LISTED.reasons[entry.reason]?.why, entry.line).toBeTypeOf('string');
    });

    it('finds the rm -rf / that bash runs (or refuses the line, where listed so), which mvdan-sh’s reading misses', () => {
      const wrong = differing.filter(({ line, dialect, ours, theirs }) => {
        const listed = LISTED.lines.find((entry) => entry.line === line && entry.dialect === dialect);
        const refuses = ours.length === 1 && ours[0]?.program === undefined && ours[0]?.opaque?.kind === 'code';
        const expected = LISTED.reasons[listed?.reason ?? '']?.reader === 'refuses the line' ? refuses : runsRm(ours);
        return !expected || runsRm(theirs);
      });
      expect(wrong.map(({ line }) => line)).toEqual([]);
    });
  });

  describe('when both read a line alike', () => {
    it('sees mvdan-sh read the lines it reads alike (the comparison can fail)', () => {
      expect(summary(analyze('ls -la | wc -l', 'bash', true))).toBe(summary(analyze('ls -la | wc -l', 'bash', false)));
      expect(runsRm(analyze("ls ''#;rm -rf /", 'bash', true))).toBe(false);
    });
  });
});
