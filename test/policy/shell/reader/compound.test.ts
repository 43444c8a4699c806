/**
 * Compound commands: groups, subshells, `if`, `while`/`until`, `for`/`select` (with bash's `{ }` body), `case` with
 * every terminator, function definitions, and bash's `coproc` in its three forms, where `coproc X=1 cmd` runs `cmd`.
 */
import { describe, expect, it } from 'vitest';
import { analyzeShell } from '../../../../src/policy/shell/analyze.js';
import { readShell } from '../../../../src/policy/shell/reader/index.js';
import { hasShells, runs } from './bash.js';
import { render } from './render.js';

describe('compound commands', () => {
  describe('when the command is well formed', () => {
    it.each([
      ['{ a; b\n} >o', '{ a; b; } >o'],
      ['( a; b ) 2>&1 | c', '⟨( a; b ) 2>&1 | c⟩'],
      ['if a; then b; elif c; then d; else e; fi', 'if [a] then [b] elif [c] then [d] else [e] fi'],
      ['if a\nthen\n b\nfi', 'if [a] then [b] fi'],
      ['while a; do b; done; until c; do d; done', 'while [a] do [b] done; until [c] do [d] done'],
      ['for i in a "b c" $(d); do e; done', 'for i in a "b c" $(d) do [e] done'],
      ['for i; do a; done; for i do b; done', 'for i do [a] done; for i do [b] done'],
      ['for i\nin a\ndo b; done', 'for i in a do [b] done'],
      ['for i in a; { b; }', 'for i in a do [b] done'],
      ['select i in a b; do c; done', 'select i in a b do [c] done'],
      ['case $x in (a|b) c;; d) ;& *) e;;& esac', 'case $x in a|b) [c] ;; d) [] ;& *) [e] ;;& esac'],
      ['case x in\n a ) b\n;;\n esac', 'case x in a) [b] ;; esac'],
      ['case x in a) b; esac', 'case x in a) [b] ;; esac'],
      ['case x in esac', 'case x in  esac'],
      ['case x in @(a|b)) c;; esac', 'case x in @(a|b)) [c] ;; esac'],
      ['echo $(case x in a) b;; esac)', 'echo $(case x in a) [b] ;; esac)'],
      ['function f { a; }; function g() ( b )', 'f() { a; }; g() ( b )'],
    ])('%j', (line, read) => {
      expect(render(line)).toBe(read);
    });
  });

  describe('when the command is malformed, or bash-only and read as sh', () => {
    it.each([
      '{ a }',
      '{ }',
      '( )',
      'if a; then fi',
      'if a; b; fi',
      'while a; done',
      'for i in a; b; done',
      'for "i" in a; do b; done',
      'for i in a & do b; done',
      'case x in a) b;; c',
      'case esac in esac) a;; esac',
      'case x in #a) b;; esac',
      '{ a; } b',
      'function f a',
    ])('refuses %j', (line) => {
      expect(() => readShell(line, 'bash')).toThrow(/^at=\d+ \| /);
    });

    it('in sh: no select, function keyword, ;& or { } loop body', () => {
      expect(() => readShell('select i in a; do b; done', 'sh')).toThrow(/unexpected do/);
      expect(() => readShell('function f { a; }', 'sh')).toThrow(/unexpected }/);
      expect(() => readShell('case x in a) b;& esac', 'sh')).toThrow(/unexpected/);
      expect(() => readShell('for i in a; { b; }', 'sh')).toThrow(/do expected/);
    });
  });

  describe('when bash runs it', () => {
    it.skipIf(!hasShells)('run what bash runs', () => {
      expect(runs('case a in a) x;& b) y;;& a) z;; esac')).toEqual(['x', 'y', 'z']);
      expect(runs('for i in a; { x $i; }')).toEqual(['x a']);
      expect(runs('f() { x; }; f; f')).toEqual(['x', 'x']);
    });
  });
});

describe('coproc', () => {
  describe('when read in bash', () => {
    it.each([
      ['coproc a b', 'coproc [a b]'],
      ['coproc { a; }', 'coproc [{ a; }]'],
      ['coproc N { a; }', 'coproc N [{ a; }]'],
      ['coproc N ( a )', 'coproc N [( a )]'],
      ['coproc N while a; do b; done', 'coproc N [while [a] do [b] done]'],
      ['coproc X=1 rm x', 'coproc [X=1 rm x]'],
      ['coproc A[0]=1 Y+=2 rm x', 'coproc [A[0]=1 Y+=2 rm x]'],
      ['coproc a >o', 'coproc [a >o]'],
      ['coproc N a', 'coproc [N a]'],
    ])('%j', (line, read) => {
      expect(render(line)).toBe(read);
    });
  });

  describe('when read in sh', () => {
    it('is a plain word in sh', () => {
      expect(render('coproc a', 'sh')).toBe('coproc a');
    });
  });

  describe('when the walk reads its parts', () => {
    it('gives the walk the program after the assignments', () => {
      expect(analyzeShell('coproc X=1 rm -rf /', 'bash').map((p) => [p.program, p.args])).toEqual([
        ['coproc', []],
        ['rm', ['-rf', '/']],
      ]);
    });
  });

  describe('when bash runs it', () => {
    it.skipIf(!hasShells)('runs what bash runs', () => {
      expect(runs('coproc X=1 rm x; wait')).toEqual(['rm x']);
      expect(runs('coproc a b; wait')).toEqual(['a b']);
      expect(runs('coproc N { x; }; wait')).toEqual(['x']);
    });
  });
});
