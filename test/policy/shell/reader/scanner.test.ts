/**
 * The scanner's rules, seen through whole lines: line joins (backslash-newline) vanish wherever bash removes them
 * and stay where it keeps them (single quotes, comments), a backslash ending the text is refused (the bash tool's
 * own next line would continue it), statements carry UTF-8 byte offsets, and nesting has a bound.
 */
import { describe, expect, it } from 'vitest';
import { readShell, ShellSyntaxError } from '../../../../src/policy/shell/reader/index.js';
import { hasShells, runs } from './bash.js';
import { render } from './render.js';

describe('line joins', () => {
  describe('when a line join is read', () => {
    it.each([
      ['ls \\\n  -la', 'ls -la'],
      ['ls -la \\\n| wc', '⟨ls -la | wc⟩'],
      ['ls &\\\n& wc', '⟨ls && wc⟩'],
      ['ls |\\\n| wc', '⟨ls || wc⟩'],
      ['echo $\\\n(ls)', 'echo $(ls)'],
      ['echo $\\\n{x}', 'echo ${x}'],
      ['echo $a\\\nb', 'echo $ab'],
      ['ls 2\\\n>x', 'ls 2>x'],
      ['i\\\nf a; then b; fi', 'if [a] then [b] fi'],
      ['time -\\\np a', 'time -p [a]'],
    ])('%j reads as %j', (line, read) => {
      expect(render(line)).toBe(read);
    });

    it('stay inside a word as written (the walk removes them) and join its pieces', () => {
      expect(render('l\\\ns')).toBe('l\\\ns');
    });

    it('are kept in single quotes and do not continue a comment', () => {
      expect(render("echo 'a\\\nb'")).toBe("echo 'a\\\nb'");
      expect(render('ls # a comment \\\nrm')).toBe('ls; rm');
    });
  });

  describe('when bash runs the line', () => {
    it.skipIf(!hasShells)('are read as bash reads them', () => {
      expect(runs('ls \\\n  -la')).toEqual(['ls -la']);
      expect(runs('l\\\ns a')).toEqual(['ls a']);
      expect(runs('ls # a comment \\\nrm x')).toEqual(['ls', 'rm x']);
      expect(runs('ls &\\\n& wc')).toEqual(['ls', 'wc']);
    });
  });
});

describe('the end of the text', () => {
  describe('when a backslash ends the text', () => {
    it('refuses a backslash that ends it (the bash tool appends a line of its own, which it would join)', () => {
      expect(() => readShell('ls x\\', 'bash')).toThrow(/backslash at the end of the line/);
      expect(() => readShell('rm -rf /\\', 'sh')).toThrow(ShellSyntaxError);
      expect(render('ls x\\\\')).toBe('ls x\\\\');
    });
  });
});

describe('statement positions', () => {
  describe('when statements are read from the line', () => {
    it('are UTF-8 byte offsets (the walk looks for the next line in the bytes)', () => {
      const file = readShell('echo é; ls\n😀; ls', 'bash');
      expect(file.Stmts.map((s) => s.Position.offs)).toEqual([0, 9, 12, 18]);
    });

    it('start where a statement’s first word starts, joined statements where their first does', () => {
      const file = readShell('  ls && wc\nx', 'bash');
      expect(file.Stmts.map((s) => s.Position.offs)).toEqual([2, 11]);
    });
  });
});

describe('nesting', () => {
  describe('when nesting is deep', () => {
    it.each([
      ['echo ', '$(', ')', ''],
      ['', '(', ')', ''],
      ['', '((', '))', ''],
      ['echo ', '${x:-', '}', ''],
      ['', '{ ', '; }', ''],
      ['', '! ', '', ''],
      ['', 'time ', '', ''],
      ['echo $((', '-', '', '))'],
      ['echo ', '$((', '))', ''],
      ['[[ ', '( ', ' )', ' ]]'],
      ['', 'if a; then b; elif a; then ', '', ' b; fi'],
    ])('of %j%j… is refused beyond a fixed depth, not read until the stack runs out', (before, open, close, after) => {
      const line = `${before}${open.repeat(3000)}ls${close.repeat(3000)}${after}`;
      expect(() => readShell(line, 'bash')).toThrow(/nested too deeply/);
    });
  });

  describe('when nesting is shallow', () => {
    it('is read where it is shallow', () => {
      expect(render(`echo ${'$('.repeat(20)}ls${')'.repeat(20)}`)).toBe(`echo ${'$('.repeat(20)}ls${')'.repeat(20)}`);
    });
  });

  describe('when bash would read ahead', () => {
    it('reads a construct once where bash reads ahead ($(( then $( (), in time linear in the line', () => {
      let line = 'a';
      for (let i = 0; i < 60; i += 1) line = `$((${line}) | b)`;
      const started = performance.now();
      expect(render(`echo ${line}`)).toContain('$(⟨( a ) | b⟩)');
      expect(performance.now() - started).toBeLessThan(2000);
    });
  });
});
