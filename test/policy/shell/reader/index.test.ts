/**
 * The reader as a whole: the three dialects (bash; sh read as dash; ksh read as sh with what ksh reads otherwise
 * refused), the refusal as data (`at=<offset> | why`), and the tree's operator numbers and shapes held against
 * mvdan-sh's, whose numbering the walk's constants follow.
 */
import { describe, expect, it } from 'vitest';
import { readShell, ShellSyntaxError } from '../../../../src/policy/shell/reader/index.js';
import { mvdanParse } from './mvdan.js';
import { render } from './render.js';

describe('readShell', () => {
  describe('when the line does not parse', () => {
    it('refuses with a ShellSyntaxError that says where and why', () => {
      let error: unknown;
      try {
        readShell('ls && (', 'bash');
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ShellSyntaxError);
      expect((error as Error).name).toBe('ShellSyntaxError');
      expect((error as Error).message).toBe('at=7 | a ( without its )');
    });
  });

  describe('when the dialect is ksh', () => {
    it('reads ksh as sh, refusing what ksh reads otherwise', () => {
      expect(render('a | b && c', 'mksh')).toBe('⟨⟨a | b⟩ && c⟩');
      for (const line of ["echo $'\\x72m'", 'echo $"x"', '[[ a ]]', '((x))', '!(a)', '*(a) b', 'echo "${x:-\'a\'}"']) {
        expect(() => readShell(line, 'mksh'), line).toThrow(/ksh/);
      }
    });
  });
});

/** The tree with only what the walk reads: kinds, operators, literal values, and nothing mvdan-sh adds. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value !== 'object' || value === null) return value;
  const node = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of ['type', 'Op', 'Value', 'Names', 'Excl', 'Length', 'Dollar', 'Backquotes', 'Bracket', 'Post']) {
    // mvdan-sh's `Dollar` of a `${…}` is a position, not the flag of `$'…'` and `$"…"`.
    if (node[key] !== undefined && node[key] !== false && typeof node[key] !== 'object') out[key] = node[key];
  }
  for (const key of ['Stmts', 'Cmd', 'Args', 'Assigns', 'Parts', 'Redirs', 'X', 'Y', 'Word', 'N', 'Exp', 'Param']) {
    if (node[key] !== undefined && !(Array.isArray(node[key]) && node[key].length === 0)) out[key] = shape(node[key]);
  }
  return out;
}

describe('readShell, its tree against mvdan-sh’s', () => {
  describe('when a line holds an operator', () => {
    it.each([
      'a && b || c | d |& e',
      'ls >a >>b <c <>d <&0 >&2 >|e &>f &>>g <<<h 2>i',
      'echo ${x+a} ${x:+a} ${x-a} ${x:-a} ${x?a} ${x:?a} ${x=a} ${x:=a} ${x%a} ${x%%a} ${x#a} ${x##a}',
      'echo ${x^a} ${x^^a} ${x,a} ${x,,a} ${x@Q} ${!x*} ${!x} ${#x}',
      ...['-e', '-f', '-d', '-c', '-b', '-p', '-S', '-L', '-k', '-g', '-u', '-G', '-O', '-N', '-r', '-w', '-x', '-s']
        .concat(['-t', '-z', '-n', '-o', '-v', '-R', '-a', '-h', '!'])
        .map((op) => `[[ ${op} a ]]`),
      ...[
        '-eq',
        '-ne',
        '-lt',
        '-le',
        '-gt',
        '-ge',
        '-nt',
        '-ot',
        '-ef',
        '==',
        '=',
        '!=',
        '<',
        '>',
        '=~',
        '&&',
        '||',
      ].map((op) => `[[ a ${op} b ]]`),
      '[[ ( a ) ]]',
      ...['+', '-', '*', '/', '%', '**', '==', '!=', '<=', '>=', '<', '>', '&', '|', '^', '<<', '>>', '&&', '||', ',']
        .concat(['=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>='])
        .map((op) => `echo $((a ${op} b))`),
      ...['!', '~', '-', '+', '++', '--'].map((op) => `echo $((${op}a))`),
      'echo $((a++)) $((a--)) $((a ? b : c)) $(( (a) ))',
      'echo \'a\' "b $c" $\'d\' $"e" `f` $(g) <(h) >(i) $((1)) $[2]',
    ])('numbers and shapes %j as mvdan-sh does', (line) => {
      expect(shape(readShell(line, 'bash'))).toEqual(shape(mvdanParse(line, 'bash')));
    });
  });
});
