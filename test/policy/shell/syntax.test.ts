/**
 * The parser as the analysis calls it: text beyond ASCII is read word for word, a line without a UTF-8 form is not
 * read at all, a line that does not parse is never read as a tree, and the accessors give neutral values for
 * anything that is not the tree's shape.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { analyzeShell } from '../../../src/policy/shell/analyze.js';
import { kind, length, list, node, num, parseShell, ShellSyntaxError, text } from '../../../src/policy/shell/syntax.js';

const DIALECTS = ['bash', 'sh', 'mksh'] as const;

describe('parseShell', () => {
  describe('when the line parses', () => {
    it('reads text beyond ASCII word for word in every dialect', () => {
      for (const dialect of DIALECTS) {
        const parts = analyzeShell('echo héllo 😀 "naïve $(printf ü)"', dialect);
        expect(parts.map((p) => [p.program, p.args])).toEqual([
          ['printf', ['ü']],
          ['echo', ['héllo', '😀', undefined]],
        ]);
      }
    });

    it('gives each statement its UTF-8 byte offset (the walk finds the line after a statement in the bytes)', () => {
      const file = parseShell('echo é; ls\nls', 'bash');
      expect(list(file.Stmts).map((stmt) => num(node(stmt.Position)?.offs))).toEqual([0, 9, 12]);
    });
  });

  describe('when the line cannot be read as a tree', () => {
    it('refuses a line with a lone surrogate, which would otherwise hide the character after it', () => {
      // Node writes U+FFFD for a lone surrogate, so bash runs `rm` here; joined with `;` it would read as one word.
      for (const line of ['\ud800;rm -rf /', 'x\udbff;rm -rf /', 'echo \udc00;rm -rf /']) {
        expect(() => parseShell(line, 'bash')).toThrow(ShellSyntaxError);
        for (const dialect of DIALECTS) {
          const parts = analyzeShell(line, dialect);
          expect(parts).toHaveLength(1);
          expect(parts[0]?.opaque?.kind).toBe('code');
          expect(parts[0]?.opaque?.reason).toContain('lone UTF-16 surrogate');
        }
      }
      // What bash does with such a line: the surrogate is a word of its own and the command after `;` runs.
      const run = spawnSync('bash', ['-c', '\ud800;echo ran'], { encoding: 'utf8' });
      expect(run.stdout).toBe('ran\n');
      // A surrogate pair is text.
      expect(analyzeShell('echo \ud83d\ude00;rm -rf /', 'bash').map((p) => p.program)).toEqual(['echo', 'rm']);
    });

    it('throws where the line stops parsing, instead of reading what was parsed before it', () => {
      for (const dialect of DIALECTS) {
        expect(() => parseShell('rm -rf / && (', dialect)).toThrow(/^at=13 \| /);
        expect(() => parseShell("echo 'open", dialect)).toThrow(/single quote is not closed/);
      }
    });
  });
});

describe('the accessors', () => {
  describe('when given nodes of the tree', () => {
    it('read nodes, lists, text and numbers of the tree', () => {
      const file = parseShell('ls 2>x', 'bash');
      const [stmt] = list(file.Stmts);
      expect(kind(file)).toBe('File');
      expect(length(file.Stmts)).toBe(1);
      const [redirect] = list(stmt?.Redirs);
      expect(num(redirect?.Op)).toBe(54);
      expect(text(node(redirect?.N)?.Value)).toBe('2');
    });
  });

  describe('when given what is not the tree’s shape', () => {
    it('give neutral values', () => {
      expect(node(undefined)).toBeUndefined();
      expect(node({ Value: 'x' })).toBeUndefined();
      expect(node('File')).toBeUndefined();
      expect(kind({ type: 3 })).toBe('');
      expect(list({ type: 'File' })).toEqual([]);
      expect(list([{ type: 'Lit' }, 'x', null])).toEqual([{ type: 'Lit' }]);
      expect(length('abc')).toBe(0);
      expect(text(5)).toBe('');
      expect(num('5')).toBe(-1);
    });
  });
});
