/**
 * The text of a backquoted command once bash has removed its escapes: the backslash before `$`, a backquote and a
 * backslash always, before `"` inside double quotes only; line joins always; any other backslash stays.
 */
import { describe, expect, it } from 'vitest';
import { unescapeBackquoted } from '../../../../src/policy/shell/reader/backquotes.js';

describe('unescapeBackquoted', () => {
  describe('when the text holds backslashes', () => {
    it('removes the backslash before $, a backquote and a backslash', () => {
      expect(unescapeBackquoted('echo \\$x \\`ls\\` a\\\\b', false)).toBe('echo $x `ls` a\\b');
    });

    it('removes the backslash before " inside double quotes only', () => {
      expect(unescapeBackquoted('echo \\"a\\"', true)).toBe('echo "a"');
      expect(unescapeBackquoted('echo \\"a\\"', false)).toBe('echo \\"a\\"');
    });

    it('keeps any other backslash, and removes line joins', () => {
      expect(unescapeBackquoted("a\\x \\' \\#", true)).toBe("a\\x \\' \\#");
      expect(unescapeBackquoted('a\\\nb', false)).toBe('ab');
    });

    it('takes escapes left to right: an escaped backslash before a newline joins nothing', () => {
      expect(unescapeBackquoted('a\\\\\nb', false)).toBe('a\\\nb');
      expect(unescapeBackquoted('\\\\\\"', true)).toBe('\\"');
    });
  });

  describe('when the text holds no backslash', () => {
    it('returns text without backslashes as it is', () => {
      const text = 'echo "a" $(b)';
      expect(unescapeBackquoted(text, true)).toBe(text);
    });
  });
});
