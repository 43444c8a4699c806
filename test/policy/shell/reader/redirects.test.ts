/**
 * Redirections and assignments: every operator (bash's `&>`, `&>>` and `<<<` in bash only), the descriptor glued
 * before one (any digits in bash, one in dash, bash's `{name}`), `<(…)` as a word rather than `<` and `(`, and
 * assignments with subscripts, `+=` and bash's arrays, before a command and as `declare`-like operands.
 */
import { describe, expect, it } from 'vitest';
import { analyzeShell } from '../../../../src/policy/shell/analyze.js';
import { OP, readShell } from '../../../../src/policy/shell/reader/index.js';
import { hasShells, runs } from './bash.js';
import { render } from './render.js';

describe('redirections', () => {
  describe('when a redirection is read', () => {
    it.each([
      ['ls >a >>b <c <>d <&0 >&2 >|e', 'ls >a >>b <c <>d <&0 >&2 >|e'],
      ['ls 2>a 10>b 2>&1 0<&- {fd}>c {a[1]}<d', 'ls 2>a 10>b 2>&1 0<&- {fd}>c {a[1]}<d'],
      ['ls &>a &>>b <<<"s $x"', 'ls &>a &>>b <<<"s $x"'],
      ['>a ls b >c', 'ls b >a >c'],
      ['>a', '>a'],
      ['cat < <(ls) 2< <(ls)', 'cat <<(ls) 2<<(ls)'],
      ['ls 2<(ls) {a}<(ls) a>(wc)', 'ls 2<(ls) {a}<(ls) a>(wc)'],
      ['ls {1a}>x {a-b}>y', 'ls {1a} {a-b} >x >y'],
    ])('%j', (line, read) => {
      expect(render(line)).toBe(read);
    });

    it('number their operators as the walk reads them', () => {
      const redirs = readShell('ls >a >>b <c <>d <&0 >&2 >|e <<E <<-E <<<s &>f &>>g\nE\nE', 'bash').Stmts[0]?.Redirs;
      expect(redirs?.map((r) => r.Op)).toEqual([
        OP.out,
        OP.append,
        OP.in,
        OP.readWrite,
        OP.dupIn,
        OP.dupOut,
        OP.clobber,
        OP.heredoc,
        OP.heredocTabs,
        OP.herestring,
        OP.all,
        OP.appendAll,
      ]);
    });

    it('give the walk a here-string’s word, which it reads (its substitutions run)', () => {
      expect(analyzeShell('cat <<< $(rm x)', 'bash').map((p) => p.program)).toEqual(['rm', 'cat']);
    });
  });

  describe('when a redirection is malformed, or bash-only and read as sh', () => {
    it('in sh: one digit only, no {name}, & before > is a separator, no here-string', () => {
      expect(render('ls 10>a 2>b {fd}>c', 'sh')).toBe('ls 10 {fd} >a 2>b >c');
      expect(render('ls &>a', 'sh')).toBe('ls &; >a');
      expect(() => readShell('ls <<<a', 'sh')).toThrow(/here-string/);
    });

    it.each([
      ['ls >', /without its target/],
      ['ls > ;', /without its target/],
      ['ls >#a', /without its target/],
      ['ls >&', /without its target/],
    ])('refuses %j', (line, why) => {
      expect(() => readShell(line, 'bash')).toThrow(why);
    });
  });

  describe('when bash and dash run it', () => {
    it.skipIf(!hasShells)('are read as bash and dash read them', () => {
      expect(runs('ls 2<(x)').map((run) => run.replace(/\d+$/, 'N'))).toContain('ls 2/dev/fd/N');
      expect(runs('ls {a}<(x)').map((run) => run.replace(/\d+$/, 'N'))).toContain('ls {a}/dev/fd/N');
      expect(runs('ls 10>a', 'sh')).toEqual(['ls 10']);
      expect(runs('ls &>a; wait', 'sh')).toEqual(['ls']);
    });
  });
});

describe('assignments', () => {
  describe('when an assignment is read', () => {
    it.each([
      ['a=1 b+=2 c= d[1]=x e[$(ls)]+=y f=~/x ls', 'a=1 b+=2 c= d[1]=x e[$(ls)]+=y f=~/x ls'],
      ['a=(1 "2" [3]=x [k]+=y $(ls)) ls', 'a=(1 "2" [3]=x [k]=y $(ls)) ls'],
      ['a=(\n 1 # one\n 2\n)', 'a=(1 2)'],
      ['a[1 + 2]=x', 'a[1 + 2]=x'],
      ['ls a=1 b=(', undefined],
      ['declare -a a=(1 2) b[1]=x c "$d" e+=1; local f; export g=1; readonly h; typeset i', undefined],
      ['X=1 declare y', 'X=1 declare y'],
    ])('%j', (line, read) => {
      if (read === undefined) {
        if (line.startsWith('ls')) expect(() => readShell(line, 'bash')).toThrow(/\( inside a command/);
        else
          expect(render(line)).toBe(
            'decl:declare -a a=(1 2) b[1]=x c "$d" e+=1; decl:local f; decl:export g=1; decl:readonly h; decl:typeset i',
          );
        return;
      }
      expect(render(line)).toBe(read);
    });

    it('read only unquoted names, and only before the command (or as declare-like operands)', () => {
      expect(render('"a"=1 ls')).toBe('"a"=1 ls');
      expect(render('ls a=1')).toBe('ls a=1');
      expect(render('a\\=1 ls')).toBe('a\\=1 ls');
      expect(render('1a=1')).toBe('1a=1');
    });

    it('keep declare-like operands as the walk reads them: a name, an assignment, or a word', () => {
      const cmd = readShell('declare -x a b=1 "$c"', 'bash').Stmts[0]?.Cmd;
      expect(
        cmd?.type === 'DeclClause' && cmd.Args.map((a) => [a.Naked, a.Name?.Value, a.Value?.Parts[0]?.type]),
      ).toEqual([
        [true, undefined, 'Lit'],
        [true, 'a', undefined],
        [false, 'b', 'Lit'],
        [true, undefined, 'DblQuoted'],
      ]);
    });
  });

  describe('when an assignment is malformed, or bash-only and read as sh', () => {
    it.each([
      ['a=(1', /array is not closed/],
      ['a=(1; 2)', /inside an array/],
      ['a=([1] 2)', /without =/],
      ['a[1]=(x)', /array assigned to an array element/],
      ['a[1] b', /no =/],
      ['declare a[1 + 2]=x', /subscript of a declaration operand/],
      ['a[1=x', /not closed/],
    ])('refuses %j', (line, why) => {
      expect(() => readShell(line, 'bash')).toThrow(why);
    });

    it('read no arrays, subscripts or here-strings in sh', () => {
      expect(() => readShell('a=(1)', 'sh')).toThrow(/array assignment in sh/);
      expect(render('a[1]=x', 'sh')).toBe('a[1]=x');
      const [stmt] = readShell('a[1]=x', 'sh').Stmts;
      expect(stmt?.Cmd?.type === 'CallExpr' && stmt.Cmd.Assigns).toEqual([]);
    });
  });

  describe('when bash and dash run it', () => {
    it.skipIf(!hasShells)('are read as bash and dash read them', () => {
      expect(runs('a[1 + 2]=x ls')).toEqual(['ls']);
      expect(runs('a=(1 2) ls')).toEqual(['ls']);
      expect(runs('"a"=1 ls')).toEqual([]);
      expect(runs('a[1]=x', 'sh')).toEqual([]);
    });
  });
});
