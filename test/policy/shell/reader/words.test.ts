/**
 * Words and their pieces, with bash (and dash) as the oracle where the reading decides what runs: a `#` starts a
 * comment only where a word starts; backquotes inside double quotes lose the backslash of `\"` before their command
 * is read (nested too) and elsewhere keep it; `<(…)` is a process substitution anywhere in a word; an extended glob
 * is one piece; where a reading is not certain the line is refused.
 */
import { describe, expect, it } from 'vitest';
import { analyzeShell } from '../../../../src/policy/shell/analyze.js';
import { readShell } from '../../../../src/policy/shell/reader/index.js';
import { hasShells, runs } from './bash.js';
import { render } from './render.js';

/** What the analysis finds runs, as `program word…` (unknown words as `?`), in its order. */
function found(line: string, dialect: 'bash' | 'sh' = 'bash'): string[] {
  return analyzeShell(line, dialect)
    .filter((p) => p.program !== undefined)
    .map((p) => [p.program, ...p.args.map((a) => a ?? '?')].join(' '));
}

describe('a # inside a word', () => {
  const GLUED = ["''", '""', '$HOME', '${HOME}', '$(pwd)', '`pwd`', '$((1))', "$'x'", '$?', '@(a|b)', 'a', '\\x'];

  describe('when the # follows a piece of the word', () => {
    it.each(GLUED)('after %s is part of the word, and the rest of the line runs', (form) => {
      expect(render(`ls ${form}#;rm x`)).toBe(`ls ${form}#; rm x`);
      expect(render(`ls >o${form}#|rm x`)).toBe(`⟨ls >o${form}# | rm x⟩`);
    });
  });

  describe('when the # starts a word', () => {
    it('starts a comment where a word starts: after a blank, an operator, or at the start', () => {
      expect(render('ls #;rm x')).toBe('ls');
      expect(render('ls;#rm x\nwc')).toBe('ls; wc');
      expect(render('#rm x')).toBe('');
      expect(render('(ls)#;rm x')).toBe('( ls )');
      expect(render('echo ${x#a} $#')).toBe('echo ${x#a} $#');
    });
  });

  describe('when bash and dash run the line', () => {
    it.skipIf(!hasShells)('is read as bash and dash read it', () => {
      expect(runs("ls ''#;rm x")).toEqual(['ls #', 'rm x']);
      expect(runs('ls @(a|b)#;rm x')).toEqual([]); // extglob off: the line does not parse, nothing runs
      expect(runs('shopt -s extglob\nls @(a|b)#;rm x')).toEqual(['ls @(a|b)#', 'rm x']);
      expect(runs('ls $HOME#;rm x', 'sh').map((run) => run.split(' ')[0])).toEqual(['ls', 'rm']);
      expect(runs('(ls)#;rm x')).toEqual(['ls']);
      expect(found('ls $(pwd)#;rm x')).toEqual(['pwd', 'ls ?', 'rm x']);
    });
  });
});

describe('backquotes', () => {
  describe('when a backquoted command is read', () => {
    it('inside double quotes lose the backslash of \\" before their command is read', () => {
      expect(render('echo "`echo \\"\'\\";rm x;echo \\"\'\\"`"')).toBe(`echo "\`echo "'"; rm x; echo "'"\`"`);
    });

    it('outside double quotes keep the backslash of \\" (the quotes it leaves hide the rest in one word)', () => {
      expect(render('echo `echo \\"\'\\";rm x;echo \\"\'\\"`')).toBe('echo `echo \\"\'\\";rm x;echo \\"\'\\"`');
    });

    it('nest: the inner command is read again with the same rules', () => {
      expect(render('echo "`echo \\`rm x\\``"')).toBe('echo "`echo `rm x``"');
      expect(render('echo `echo \\`rm x\\``')).toBe('echo `echo `rm x``');
      expect(render('echo "`echo \\\\\\`rm x\\\\\\``"')).toBe('echo "`echo \\`rm x\\``"');
      expect(render('echo "`echo \\"\\`echo \\\\\\"a\\\\\\"\\`\\"`"')).toBe('echo "`echo "`echo "a"`"`"');
    });

    it('end at the first backquote not escaped, whatever quotes are open inside', () => {
      expect(() => readShell("echo `echo '`'`", 'bash')).toThrow(/single quote is not closed/);
    });
  });

  describe('when whether bash removes a backslash is not certain', () => {
    it('refuse \\" where whether bash removes it is not certain (a here-document, a quoted ${…}, arithmetic)', () => {
      expect(() => readShell('cat <<E\n`echo \\"a\\"`\nE', 'bash')).toThrow(/inside backquotes here/);
      expect(() => readShell('echo "${x:-`echo \\"a\\"`}"', 'bash')).toThrow(/inside backquotes here/);
      expect(() => readShell('echo $(( `echo \\"1\\"` ))', 'bash')).toThrow(/inside backquotes here/);
      expect(render('echo ${x:-`echo \\"a\\"`}')).toBe('echo ${x:-`echo \\"a\\"`}');
    });
  });

  describe('when bash and dash run it', () => {
    it.skipIf(!hasShells)('are read as bash and dash read them', () => {
      const line = 'echo "`echo \\"\'\\";rm x;echo \\"\'\\"`"';
      expect(runs(line)).toEqual(['rm x']);
      expect(runs(line, 'sh')).toEqual(['rm x']);
      // Outside double quotes the backslashes stay: one word, nothing else runs.
      expect(runs('x `x \\"\'\\";rm y;x \\"\'\\"`')).toEqual(['x "\\";rm y;x \\""', 'x']);
      expect(found('x `x \\"\'\\";rm y;x \\"\'\\"`')).toEqual(['x "\\";rm y;x \\""', 'x ?']);
      expect(found(line)).toContain('rm x');
      expect(runs('echo "`echo \\`rm x\\``"')).toEqual(['rm x']);
      expect(runs('echo "`echo \\\\\\`rm x\\\\\\``"')).toEqual([]);
      expect(found('echo "`echo \\\\\\`rm x\\\\\\``"')).not.toContain('rm x');
    });
  });
});

describe('quotes and expansions', () => {
  describe('when quotes and expansions are read', () => {
    it.each([
      [
        "echo 'a b' \"c $d ${e} $(f) `g` $((1)) \\\" '\" $'\\t\\'' $\"h\"",
        "echo 'a b' \"c $d ${e} $(f) `g` $((1)) \\\" '\" $'\\t\\'' $\"h\"",
      ],
      ['echo $ $% a$ "$" $1x $12 $@ $* $# $? $- $$ $! $0', 'echo $ $% a$ "$" $1x $12 $@ $* $# $? $- $$ $! $0'],
      ['echo a<(ls)b >(wc) <(ls)', 'echo a<(ls)b >(wc) <(ls)'],
      ['cat < <(ls) > >(wc)', 'cat <<(ls) >>(wc)'],
      ['echo @(a|b) *(c) +(d) ?(e) !(f) x@(y z)', 'echo @(a|b) *(c) +(d) ?(e) !(f) x@(y z)'],
      ['!(ls)', '!(ls)'],
      ['echo {a,b} ~ ~/x a=~ [ab]', 'echo {a,b} ~ ~/x a=~ [ab]'],
    ])('%j', (line, read) => {
      expect(render(line)).toBe(read);
    });

    it('read $12 as $1 followed by 2, and ANSI-C quotes only in bash', () => {
      const [stmt] = readShell('echo $12', 'bash').Stmts;
      expect(stmt?.Cmd?.type === 'CallExpr' && stmt.Cmd.Args[1]?.Parts.map((p) => p.type)).toEqual(['ParamExp', 'Lit']);
      expect(found("echo $'\\x72m'", 'bash')).toEqual(['echo rm']);
      expect(found("echo $'\\x72m'", 'sh')).toEqual(['echo $\\x72m']);
    });
  });

  describe('when an expansion cannot be read', () => {
    it('refuse an expansion inside an extended glob, and what dash cannot read', () => {
      expect(() => readShell('ls @($(rm x)|b)', 'bash')).toThrow(/inside an extended glob/);
      expect(() => readShell('ls @(a|b)', 'sh')).toThrow(ShellSyntaxErrorLike);
      expect(() => readShell('cat <(ls)', 'sh')).toThrow(ShellSyntaxErrorLike);
      expect(() => readShell('echo "a', 'bash')).toThrow(/double quote is not closed/);
      expect(() => readShell("echo $'a", 'bash')).toThrow(/not closed/);
      expect(() => readShell('echo `a', 'bash')).toThrow(/backquote is not closed/);
    });
  });

  describe('when bash runs the line', () => {
    it.skipIf(!hasShells)('are read as bash reads them', () => {
      expect(runs('x a<(y)b; wait $!').sort()).toEqual(['x a/dev/fd/63b', 'y']);
      expect(found('x a<(y)b')).toEqual(['y', 'x ?']);
      expect(runs("x $'\\x72m'")).toEqual(['x rm']);
      expect(runs("x $'\\x72m'", 'sh')).toEqual(['x $\\x72m']);
    });
  });
});

/** Any ShellSyntaxError (dash refuses these lines too). */
const ShellSyntaxErrorLike = /^at=\d+ \| /;
