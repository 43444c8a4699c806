/**
 * Statements: lists and their separators, `&&`/`||` and pipes grouped left to right, bash's `!` and `time` before a
 * pipeline in any number and order (dash's single `!`), a reserved word only as a command's first word, `declare`
 * and `let` read as such, functions defined with `name()`, and what bash refuses refused.
 */
import { describe, expect, it } from 'vitest';
import { analyzeShell } from '../../../../src/policy/shell/analyze.js';
import { readShell } from '../../../../src/policy/shell/reader/index.js';
import { hasShells, runs } from './bash.js';
import { render } from './render.js';

describe('lists and pipelines', () => {
  describe('when the list is well formed', () => {
    it.each([
      ['a; b & c\nd', 'a; b &; c; d'],
      ['a && b || c | d', '⟨⟨a && b⟩ || ⟨c | d⟩⟩'],
      ['a | b | c', '⟨⟨a | b⟩ | c⟩'],
      ['a |& b', '⟨a |& b⟩'],
      ['a &&\n\n  # c\n b', '⟨a && b⟩'],
      ['a |\n b', '⟨a | b⟩'],
      ['a && b &', '⟨a && b⟩ &'],
      ['', ''],
      ['\n\n# only a comment\n', ''],
    ])('%j', (line, read) => {
      expect(render(line)).toBe(read);
    });
  });

  describe('when the list is malformed', () => {
    it.each([';', 'a;;', 'a & ;', 'a &;', '&& a', 'a &&', 'a | ', '| a', 'a || ;', ')', 'a )', 'a |& b'])(
      'refuses %j',
      (line) => {
        expect(() => readShell(line, line === 'a |& b' ? 'sh' : 'bash')).toThrow(/^at=\d+ \| /);
      },
    );
  });
});

describe('! and time', () => {
  describe('when read in bash', () => {
    it.each([
      ['! a', '! a'],
      ['! ! a', 'a'],
      ['! a | b', '! ⟨a | b⟩'],
      ['! a && ! b', '⟨! a && ! b⟩'],
      ['time a | b && c', '⟨time [⟨a | b⟩] && c⟩'],
      ['time -p a', 'time -p [a]'],
      ['time -- a', 'time [a]'],
      ['time -p -- a', 'time -p [a]'],
      ['time ! a', 'time [! a]'],
      ['! time a', '! time [a]'],
      ['time time a', 'time [time [a]]'],
      ['time; a', 'time; a'],
      ['!; a', '! ; a'],
      ['time -x a', 'time [-x a]'],
      ['a | time b', '⟨a | time b⟩'],
    ])('%j', (line, read) => {
      expect(render(line)).toBe(read);
    });
  });

  describe('when malformed', () => {
    it.each([
      ['a | ! b', /unexpected !/],
      ['time -- -- a', /command named --/],
      ['time "--" a', /command named --/],
      ['time && a', /unexpected/],
    ])('refuses %j', (line, why) => {
      expect(() => readShell(line, 'bash')).toThrow(why);
    });
  });

  describe('when read in dash', () => {
    it('are plain words in dash, where ! may come once', () => {
      expect(render('time a', 'sh')).toBe('time a');
      expect(render('! a', 'sh')).toBe('! a');
      expect(() => readShell('! ! a', 'sh')).toThrow(/twice in sh/);
    });
  });

  describe('when bash and dash run them', () => {
    it.skipIf(!hasShells)('run what bash and dash run', () => {
      expect(runs('! ! ls')).toEqual(['ls']);
      expect(runs('time ! ls 2>/dev/null')).toEqual(['ls']);
      expect(runs('time -- ! ls 2>/dev/null')).toEqual(['ls']);
      expect(runs('ls | time wc')).toEqual(['ls']); // `time` is a program there, not on this PATH
      expect(runs('! ! ls', 'sh')).toEqual([]);
      expect(analyzeShell('time ! ls', 'bash').map((p) => p.program)).toEqual(['time', 'ls']);
    });
  });
});

describe('reserved words', () => {
  describe('when a reserved word starts a command', () => {
    it('count only as a command’s first word, unquoted and whole', () => {
      expect(render('echo if then fi { }')).toBe('echo if then fi { }');
      expect(render('"if" a')).toBe('"if" a');
      expect(render('{a b}')).toBe('{a b}');
      expect(() => readShell('{a; }', 'bash')).toThrow(/unexpected }/);
      expect(render('a=1 if')).toBe('a=1 if');
      expect(render('a=1 time b')).toBe('a=1 time b');
      expect(render('>x if')).toBe('if >x');
    });
  });

  describe('when a reserved word stands where none fits', () => {
    it.each(['then', 'fi', 'done', 'esac', 'in', '}', ']]', 'a; else', 'a=1 if a; then b; fi', '>x { a; }'])(
      'refuses %j, a reserved word where none fits',
      (line) => {
        expect(() => readShell(line, 'bash')).toThrow(/^at=\d+ \| /);
      },
    );
  });

  describe('when bash runs the line', () => {
    it.skipIf(!hasShells)('are read as bash reads them', () => {
      expect(runs('a=1 if')).toEqual([]);
      expect(runs('a=1 time ls')).toEqual([]);
      expect(runs('{a; }')).toEqual([]);
      expect(runs('a=1 if a; then b; fi')).toEqual([]);
    });
  });
});

describe('declarations, let and functions', () => {
  describe('when a declaration is well formed', () => {
    it.each([
      ['declare -a x=(1) y', 'decl:declare -a x=(1) y'],
      ['export a=$(ls) b', 'decl:export a=$(ls) b'],
      ['\\declare a', '\\declare a'],
      ['let a=1 "b+=2"', 'let:let a=1 "b+=2"'],
      ['f() { a; }', 'f() { a; }'],
      ['f ( ) ( a ) >x', 'f() ( a ) >x'],
      ['f()\n{ a; }', 'f() { a; }'],
      ['a-b() { a; }', 'a-b() { a; }'],
      ['f() if a; then b; fi', 'f() if [a] then [b] fi'],
      ['f() ((1))', 'f() ((1))'],
    ])('%j', (line, read) => {
      expect(render(line)).toBe(read);
    });
  });

  describe("when a declaration is malformed, or not sh's", () => {
    it.each(['f() a', '"f"() { a; }', 'a b() { c; }', '>x f() { a; }', 'f( { a; }', 'let a=(1)', 'echo a=(1)'])(
      'refuses %j',
      (line) => {
        expect(() => readShell(line, 'bash')).toThrow(/^at=\d+ \| /);
      },
    );

    it('in sh: local, export and readonly only; no let', () => {
      expect(render('declare a; local b; export c=1; let d=1', 'sh')).toBe(
        'declare a; decl:local b; decl:export c=1; let d=1',
      );
    });
  });
});
