/**
 * bash's `[[ … ]]`: grouping of `!`, `( )`, `&&`, `||`; unary and binary tests numbered as the walk reads them;
 * `<` and `>` as operators; `=~` with a regular expression holding `|` and parenthesised groups with blanks; line
 * breaks only where a test starts. In dash `[[` is a plain word.
 */
import { describe, expect, it } from 'vitest';
import type { TestExpr } from '../../../../src/policy/shell/reader/index.js';
import { OP, readShell } from '../../../../src/policy/shell/reader/index.js';
import { hasShells, runs } from './bash.js';
import { render } from './render.js';

function expression(line: string): TestExpr | undefined {
  const cmd = readShell(line, 'bash').Stmts[0]?.Cmd;
  return cmd?.type === 'TestClause' ? cmd.X : undefined;
}

describe('[[ ]]', () => {
  describe('when the test is well formed', () => {
    it.each([
      ['[[ a ]]', '[[ a ]]'],
      ['[[ -f a && ! ( b == c* || d =~ ^(x|y z)$ ) ]]', '[[ ((-f a) && (! (((b == c*) || (d =~ ^(x|y z)$))))) ]]'],
      ['[[ a < b || a > b ]]', '[[ ((a < b) || (a > b)) ]]'],
      ['[[ a=~x||y ]]', '[[ (a=~x || y) ]]'],
      ['[[ a =~ x||y ]]', '[[ (a =~ x||y) ]]'],
      ['[[ a =~ x && y ]]', '[[ ((a =~ x) && y) ]]'],
      ['[[ -v a[$(ls)] && $x -eq 2 && a != @(b|c) ]]', '[[ (((-v a[$(ls)]) && ($x -eq 2)) && (a != @(b|c))) ]]'],
      ['[[\n a &&\n b ]]', '[[ (a && b) ]]'],
      ['[[ ! \n a ]]', '[[ (! a) ]]'],
      ['[[ -f <(ls) ]]', '[[ (-f <(ls)) ]]'],
      ['[[ -a x || -h y ]]', '[[ ((-e x) || (-L y)) ]]'],
    ])('%j', (line, read) => {
      expect(render(line)).toBe(read);
    });

    it('numbers the operators the walk reads (-eq, -ne, -le, -ge, -lt, -gt as 116 to 121; -v, -R)', () => {
      expect(expression('[[ a -eq 1 ]]')).toMatchObject({ type: 'BinaryTest', Op: 116 });
      expect(expression('[[ a -gt 1 ]]')).toMatchObject({ type: 'BinaryTest', Op: 121 });
      expect(expression('[[ -v a ]]')).toMatchObject({ type: 'UnaryTest', Op: 110 });
      expect(expression('[[ -R a ]]')).toMatchObject({ type: 'UnaryTest', Op: 111 });
      expect(expression('[[ a == b ]]')).toMatchObject({ Op: OP.match });
    });
  });

  describe('when the test is malformed', () => {
    it.each([
      '[[ ]]',
      '[[ a',
      '[[ -f ]]',
      '[[ -f && a ]]',
      '[[ a b ]]',
      '[[ a\n]]',
      '[[ a ==\n b ]]',
      '[[ ( a ]]',
      '[[ a == ]]',
      '[[ a =~ x y ]]',
      '[[ !(a) ]]',
      '[[ "==" ]] ]]',
    ])('refuses %j', (line) => {
      expect(() => readShell(line, 'bash')).toThrow(/^at=\d+ \| /);
    });
  });

  describe('when read in dash', () => {
    it('is a plain word in dash (where < is a redirection)', () => {
      expect(render('[[ a < b ]]', 'sh')).toBe('[[ a ]] <b');
    });
  });

  describe('when bash runs it', () => {
    it.skipIf(!hasShells)('runs what bash runs', () => {
      expect(runs('[[ ab =~ a||b ]] && x')).toEqual(['x']);
      expect(runs('[[ a =~ (a b) ]] || x')).toEqual(['x']);
      expect(runs('[[ -f <(y) ]] || x; wait $!').sort()).toEqual(['x', 'y']);
      expect(runs('[[ a\n]] && x')).toEqual([]);
    });
  });
});
