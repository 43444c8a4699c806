import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasHiddenCharacters, jsonVisible, quoted, visible, visibleField, visiblePath } from '../src/escape.js';

describe('visible', () => {
  describe('when the text holds hidden characters', () => {
    it('shows controls, ESC, CR, separators, bidi and zero-width characters escaped', () => {
      expect(visible('a\r\n\tb')).toBe('a\\r\\n\\tb');
      expect(visible('\u001b[8m\u001b]52;c;cm0=\u0007')).toBe('\\x1b[8m\\x1b]52;c;cm0=\\x07');
      expect(visible('\u009b31m \u009d0;x\u009c \u0085')).toBe('\\x9b31m \\x9d0;x\\x9c \\x85');
      expect(visible('\u2028\u2029')).toBe('\\u2028\\u2029');
      expect(visible('abc\u202edef\u2066g\u2069')).toBe('abc\\u202edef\\u2066g\\u2069');
      expect(visible('a\u200bb\u200dc\ufeffd\u00ade')).toBe('a\\u200bb\\u200dc\\ufeffd\\xade');
      expect(visible('\u{e0041}\u{e007f}')).toBe('\\u{e0041}\\u{e007f}');
      expect(visible('\ud800x\udfff')).toBe('\\ud800x\\udfff');
      expect(visible('\ufffe\uffff')).toBe('\\ufffe\\uffff');
    });

    it('also shows the format characters and default-ignorables the named ranges miss', () => {
      // Arabic number sign, Egyptian hieroglyph format control, musical symbol begin beam, shorthand format
      // overlap, an unassigned default-ignorable code point, and the noncharacters of other planes.
      for (const char of ['\u0600', '\u{13430}', '\u{1d173}', '\u{1bca0}', '\u{e0fff}', '\ufdd0', '\u{1fffe}']) {
        expect(hasHiddenCharacters(char)).toBe(true);
        expect(visible(`a${char}b`)).not.toContain(char);
      }
    });
  });

  describe('when the text is printable', () => {
    it('leaves printable text alone: other scripts, emoji, symbols', () => {
      for (const text of ['publisher', 'Ünïcödé', '研究チーム', 'قائمة', '🚀 agent', '✔ › ─ ∞', 'a/b%2Fc#2']) {
        expect(visible(text)).toBe(text);
        expect(hasHiddenCharacters(text)).toBe(false);
      }
    });
  });

  describe('when given any string', () => {
    it('never leaves a character it would escape, and is idempotent (property)', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary' }), (text) => {
          const shown = visible(text);
          expect(hasHiddenCharacters(shown)).toBe(false);
          expect(visible(shown)).toBe(shown);
        }),
      );
    });
  });
});

describe('visibleField', () => {
  describe('when a value holds the field delimiters', () => {
    it('cannot close its field or open another', () => {
      expect(visibleField('x>, agent=<admin')).toBe('x\\x3e, agent=\\x3cadmin');
      expect(visibleField('a\rb')).toBe('a\\rb');
    });
  });
});

describe('quoted', () => {
  describe('when the text holds quotes', () => {
    it('leaves the closing quote the only raw one', () => {
      expect(quoted('a" is gated | "b')).toBe('"a\\x22 is gated | \\x22b"');
      expect(quoted('a\nb')).toBe('"a\\nb"');
    });
  });
});

describe('visiblePath', () => {
  describe('when a segment holds the separator', () => {
    it('cannot let it pass for two segments', () => {
      expect(visiblePath(['a › b', 'c'])).toBe('a \\u203a b › c');
      expect(visiblePath(['a', 'b', 'c'])).toBe('a › b › c');
      expect(visiblePath(['x\u202e', 'y\r'])).toBe('x\\u202e › y\\r');
    });
  });
});

describe('jsonVisible', () => {
  describe('when the JSON holds hidden characters', () => {
    it('writes hidden characters as \\u escapes and parses back to the same value (property)', () => {
      fc.assert(
        fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 4 }), (values) => {
          const json = jsonVisible(JSON.stringify({ values }, null, 2));
          expect(JSON.parse(json)).toEqual({ values });
          expect(json.split('\n').some((line) => hasHiddenCharacters(line))).toBe(false);
        }),
      );
    });
  });
});
