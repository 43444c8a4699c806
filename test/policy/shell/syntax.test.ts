/**
 * The parser as the analysis calls it: the line reaches the Go parser as its UTF-8 bytes, a line without a
 * UTF-8 form is not parsed at all, and a line that does not parse is never read as a tree.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { analyzeShell } from '../../../src/policy/shell/analyze.js';
import { ShellSyntaxError, parseShell } from '../../../src/policy/shell/syntax.js';

const DIALECTS = ['bash', 'sh', 'mksh'] as const;

describe('parseShell', () => {
  it('reads text beyond ASCII word for word in every dialect', () => {
    for (const dialect of DIALECTS) {
      const parts = analyzeShell('echo héllo 😀 "naïve $(printf ü)"', dialect);
      expect(parts.map((p) => [p.program, p.args])).toEqual([
        ['printf', ['ü']],
        ['echo', ['héllo', '😀', undefined]],
      ]);
    }
  });

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

  it('throws the parser’s message for a line that does not parse, instead of reading what was parsed before it', () => {
    for (const dialect of DIALECTS) {
      expect(() => parseShell('rm -rf / && (', dialect)).toThrow(/command:1:/);
      expect(() => parseShell("echo 'open", dialect)).toThrow(/reached EOF|not closed/);
    }
  });
});
