/** Tree paths: escaped segments that keep every path unambiguous, as an array and as one string. */
import { describe, expect, it } from 'vitest';
import { escapeSegment, joinPath, segmentOf, UNNAMED } from '../src/tree-paths.js';

describe('escapeSegment', () => {
  describe('when an id holds the separator, the suffix mark or the escape character', () => {
    it('percent-escapes them, the escape character too', () => {
      expect(escapeSegment('acme/prod')).toBe('acme%2Fprod');
      expect(escapeSegment('acme%2Fprod')).toBe('acme%252Fprod');
      expect(escapeSegment('writer#2')).toBe('writer%232');
      expect(escapeSegment('plain id › x')).toBe('plain id › x');
    });
  });
});

describe('segmentOf', () => {
  describe('when the id is a non-empty string', () => {
    it('is its escaped segment', () => {
      expect(segmentOf('a/b', UNNAMED)).toBe('a%2Fb');
      expect(segmentOf('(unnamed)', UNNAMED)).toBe('(unnamed)');
    });
  });

  describe('when the id is missing, empty or not a string', () => {
    it('is the fallback, which no escaped id can equal', () => {
      for (const id of [undefined, '', 42, null, { id: 'x' }]) expect(segmentOf(id, UNNAMED)).toBe(UNNAMED);
      expect(escapeSegment(UNNAMED)).not.toBe(UNNAMED);
    });
  });
});

describe('joinPath', () => {
  describe('when two paths differ only in where a separator sits', () => {
    it('gives two different strings', () => {
      const one = joinPath([segmentOf('acme/prod', UNNAMED), segmentOf('writer', UNNAMED)]);
      const two = joinPath([segmentOf('acme', UNNAMED), segmentOf('prod/writer', UNNAMED)]);
      const three = joinPath(['acme', 'prod', 'writer']);
      expect(new Set([one, two, three]).size).toBe(3);
      expect(three).toBe('acme/prod/writer');
    });
  });
});
