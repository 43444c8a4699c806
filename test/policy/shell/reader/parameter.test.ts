/**
 * `${…}` in every form bash knows, where it ends (bash counts no bare `{`, and inside double quotes matches single
 * quotes in bash but not in dash), and the forms refused: bash stops such a command with "bad substitution", or
 * the reader cannot be sure what is expanded.
 */
import { describe, expect, it } from 'vitest';
import type { ParamExp } from '../../../../src/policy/shell/reader/index.js';
import { OP, readShell } from '../../../../src/policy/shell/reader/index.js';
import { hasShells, runs } from './bash.js';
import { render } from './render.js';

/** The `${…}` that is the second word's first piece. */
function param(line: string, dialect: 'bash' | 'sh' = 'bash'): ParamExp {
  const cmd = readShell(line, dialect).Stmts[0]?.Cmd;
  const part = cmd?.type === 'CallExpr' ? cmd.Args[1]?.Parts[0] : undefined;
  if (part?.type !== 'ParamExp') throw new Error(`no \${…} in ${line}`);
  return part;
}

describe('${…} forms', () => {
  describe('when the expansion is well formed', () => {
    it.each([
      '${x} ${10} ${@} ${*} ${#} ${?} ${-} ${$} ${!} ${0}',
      '${#x} ${#x[@]} ${##} ${#-} ${#10}',
      '${!x} ${!x[@]} ${!x[*]} ${!p*} ${!p@} ${!1}',
      '${a[1]} ${a[@]} ${a[$(ls)]} ${a["k"]}',
      '${x-a} ${x:-a b} ${x=a} ${x:=$(ls)} ${x?} ${x:?msg} ${x+a} ${x:+"a"}',
      '${x#a} ${x##*/} ${x%.*} ${x%%a} ${x^} ${x^^} ${x,} ${x,,} ${x@Q} ${x@P}',
      '${x/a/b} ${x//a/b} ${x/#a} ${x/%a/} ${x/a\\/b/c}',
      '${x:1} ${x:1:2} ${x::2}',
    ])('%s', (words) => {
      expect(render(`echo ${words}`)).toBe(`echo ${words}`);
    });

    it('reads a slice’s bounds as arithmetic, and a colon before -, =, ? or + as that operator', () => {
      expect(render('echo ${x: -1} ${x:(-1):1+1} ${x:-1}')).toBe('echo ${x:(-1)} ${x:((-1)):(1 + 1)} ${x:-1}');
      expect(param('echo ${x:-1}').Exp?.Op).toBe(OP.colonMinus);
      expect(param('echo ${x: -1}').Slice?.Offset?.type).toBe('UnaryArithm');
    });

    it('keeps what the walk reads: names, the prefix operator, index words, the operator number', () => {
      expect(param('echo ${!p*}')).toMatchObject({ Excl: true, Names: OP.star, Param: { Value: 'p' } });
      expect(param('echo ${#a[@]}')).toMatchObject({ Length: true, Index: { Parts: [{ type: 'Lit', Value: '@' }] } });
      expect(param('echo ${x:=1}').Exp?.Op).toBe(OP.colonAssign);
      expect(param('echo ${x@P}').Exp).toMatchObject({ Op: OP.at, Word: { Parts: [{ Value: 'P' }] } });
      expect(param('echo $x')).toMatchObject({ Short: true, Param: { Value: 'x' } });
    });
  });

  describe('when deciding where the expansion ends', () => {
    it('ends at the first } not quoted or escaped (a bare { does not nest)', () => {
      expect(render('echo ${x:-{a}b}')).toBe('echo ${x:-{a}b}');
      expect(param('echo ${x:-{a}b}').Exp?.Word?.Parts).toEqual([{ type: 'Lit', Value: '{a' }]);
      expect(param("echo ${x:-'}'}").Exp?.Word?.Parts).toEqual([{ type: 'SglQuoted', Value: '}', Dollar: false }]);
      expect(param('echo ${x:-\\}}').Exp?.Word?.Parts).toEqual([{ type: 'Lit', Value: '\\}' }]);
      expect(param('echo ${x:-$(echo })}').Exp?.Word?.Parts[0]?.type).toBe('CmdSubst');
    });

    it('inside double quotes: bash matches single quotes (holding no expansion), dash reads them as characters', () => {
      const bash = readShell('echo "${x:-\'}\'}"', 'bash').Stmts[0]?.Cmd;
      const sh = readShell('echo "${x:-\'}\'}"', 'sh').Stmts[0]?.Cmd;
      const inner = (cmd: typeof bash) =>
        cmd?.type === 'CallExpr' && cmd.Args[1]?.Parts[0]?.type === 'DblQuoted' ? cmd.Args[1].Parts[0].Parts : [];
      expect(inner(bash)).toHaveLength(1);
      expect(inner(sh).map((p) => p.type)).toEqual(['ParamExp', 'Lit']);
      expect(() => readShell('echo "${x:-\'$(rm x)\'}"', 'bash')).toThrow(/expansion inside single quotes/);
      expect(() => readShell('echo "${x:-\'a\'}"', 'mksh')).toThrow(/ksh/);
    });

    it.skipIf(!hasShells)('ends where bash and dash end it', () => {
      expect(runs('x ${v:-{a}b}')).toEqual(['x {ab}']);
      expect(runs('x "${v:-\'}\'}"')).toEqual(["x '}'"]);
      expect(runs('x "${v:-\'}\'}"', 'sh')).toEqual(["x ''}"]);
      expect(runs('x "${v:-\'$(y)\'}"')).toEqual(['y', "x ''"]);
    });
  });

  describe('when the expansion is malformed', () => {
    it.each([
      ['echo ${}', /without a parameter name/],
      ['echo ${x', /not closed/],
      ['echo ${#x:-a}', /operator after/],
      ['echo ${!x:-a}', /operator after/],
      ['echo ${x y}', /form this reader does not know/],
      ['echo ${#-x}', /form this reader does not know/],
      ['echo ${a[}]}', /inside a \$\{…\} subscript/],
      ['echo ${a[1}', /not closed/],
      ['echo ${x:-<(ls)}', /process substitution inside/],
    ])('refuses %s', (line, why) => {
      expect(() => readShell(line, 'bash')).toThrow(why);
    });
  });
});
