/**
 * Arithmetic: bash's precedence and grouping, every operand a word (the walk checks each), `$((` read as arithmetic
 * or as a command substitution holding a subshell exactly as bash decides it (by where the parentheses balance),
 * `((` the same at a command's start, dash's arithmetic always, and what bash could not evaluate refused.
 */
import { describe, expect, it } from 'vitest';
import { readShell } from '../../../../src/policy/shell/reader/index.js';
import { hasShells, runs } from './bash.js';
import { render } from './render.js';

describe('readShell, arithmetic expressions', () => {
  describe('when an expansion is arithmetic', () => {
    it.each([
      ['$((1+2*3))', '$(((1 + (2 * 3))))'],
      ['$(( (1+2)*3 ))', '$(((((1 + 2)) * 3)))'],
      ['$((2**3**2))', '$(((2 ** (3 ** 2))))'],
      ['$((a=b=1, c))', '$((((a = (b = 1)) , c)))'],
      ['$((a ? b : c ? d : e))', '$(((a ? (b : (c ? (d : e))))))'],
      ['$((x++ + ++y - -z))', '$(((((x++) + (++y)) - (-z))))'],
      ['$((!a && ~b || c))', '$(((((!a) && (~b)) || c)))'],
      ['$((a<<2 >= b>>1 == c))', '$(((((a << 2) >= (b >> 1)) == c)))'],
      ['$((a[1] + b[2*3] + 16#ff + $x + ${y} + $(z)))', '$(((((((a[1] + b[2*3]) + 16#ff) + $x) + ${y}) + $(z))))'],
      ['$(( "1" + 2 ))', '$((("1" + 2)))'],
      ['$(( ))', '$(())'],
      ['$[1+1]', '$[(1 + 1)]'],
    ])('%s', (expansion, read) => {
      expect(render(`echo ${expansion}`)).toBe(`echo ${read}`);
    });
  });

  describe('when $(( or (( may open a subshell instead', () => {
    it('reads $(( as a command substitution of a subshell where the first ) that balances is not followed by )', () => {
      expect(render('echo $((ls) | wc)')).toBe('echo $(⟨( ls ) | wc⟩)');
      expect(render('echo $((ls a); (ls b))')).toBe('echo $(( ls a ); ( ls b ))');
      expect(render('echo $(( (1) ))')).toBe('echo $(((1)))');
      expect(() => readShell('echo $((1)+(2))', 'bash')).toThrow(/a word after a compound command/);
      expect(() => readShell('echo $((ls) )', 'sh')).toThrow(/without its \)\)/);
    });

    it('reads (( at a command’s start as arithmetic in bash when it closes with )), subshells otherwise (and in dash)', () => {
      expect(render('((x > 1)) && ls')).toBe('⟨(((x > 1))) && ls⟩');
      expect(render('((ls a) ; (ls b))')).toBe('( ( ls a ); ( ls b ) )');
      expect(render('((ls))', 'sh')).toBe('( ( ls ) )');
    });
  });

  describe('when a for loop is arithmetic', () => {
    it('reads for (( init; cond; post ))', () => {
      expect(render('for ((i=0; i<3; i++)); do a; done')).toBe('for (((i = 0); (i < 3); (i++))) do [a] done');
      expect(render('for ((;;)) { a; }')).toBe('for ((; ; )) do [a] done');
      expect(() => readShell('for ((i=0; i<3)); do a; done', 'bash')).toThrow(/three parts/);
    });
  });

  describe('when the expression is malformed', () => {
    it.each([
      ['echo $((1 2))', /cannot evaluate/],
      ['echo $((1 +))', /ends too early/],
      ['echo $((a ? b))', /without its :/],
      ['echo $(((1))', /not closed|without its/],
      ['echo $((a;b))', /cannot evaluate/],
      ['echo ${x:a?1:2}', /without its :/],
      ["echo $(( 'a[$(ls)]' ))", /expansion inside single quotes/],
      ["echo $(( $'1' ))", /inside a subscript or arithmetic/],
      ['echo $((a[(1)]))', /parenthesis inside an arithmetic subscript/],
      ['(( x', /not closed/],
    ])('refuses %s', (line, why) => {
      expect(() => readShell(line, 'bash')).toThrow(why);
    });
  });

  describe('when bash and dash run the line', () => {
    it.skipIf(!hasShells)('decides $(( as bash and dash decide it, and runs what is inside', () => {
      expect(runs('x $((1+2*3))')).toEqual(['x 7']);
      expect(runs('x $( (y) | wc )').sort()).toEqual(['wc', 'x', 'y']);
      expect(runs('x $((y) | wc)').sort()).toEqual(['wc', 'x', 'y']);
      expect(runs('x $(( $(y) + 1 ))')).toEqual(['y', 'x 1']);
      expect(runs('((y) ; (z))')).toEqual(['y', 'z']);
      expect(runs("x $(( '$(y)' ))")).toEqual(['y']);
    });
  });
});
