/** The "did you mean" tail of a usage message: the closest known name to a mistyped one, or nothing. */
import { describe, expect, it } from 'vitest';
import { didYouMean } from '../../src/cli/did-you-mean.js';

describe('didYouMean', () => {
  describe('when a known name is close to the given one', () => {
    it('names it as a message tail', () => {
      expect(didYouMean('reporterz', ['format', 'reporters', 'exclude'])).toBe(' | did you mean "reporters"?');
      expect(didYouMean('EXCLUDE', ['include', 'exclude'])).toBe(' | did you mean "exclude"?');
    });
  });

  describe('when no known name is close, or the name is known as it is', () => {
    it('is an empty string', () => {
      expect(didYouMean('timeout', ['format', 'reporters'])).toBe('');
      expect(didYouMean('format', ['format'])).toBe('');
      expect(didYouMean('x', [])).toBe('');
    });
  });
});
