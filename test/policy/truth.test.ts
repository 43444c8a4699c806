import { describe, expect, it } from 'vitest';
import { and, holds, MAYBE, NO, not, or, type Truth, truth, YES } from '../../src/policy/truth.js';

const ALL: readonly Truth[] = [NO, MAYBE, YES];

describe('three-valued truth (truth, and, or, not)', () => {
  describe('when values are combined', () => {
    it('and is the lesser of two values, or the greater, and not turns them around', () => {
      expect(ALL.map((a) => ALL.map((b) => and(a, b)))).toEqual([
        [NO, NO, NO],
        [NO, MAYBE, MAYBE],
        [NO, MAYBE, YES],
      ]);
      expect(ALL.map((a) => ALL.map((b) => or(a, b)))).toEqual([
        [NO, MAYBE, YES],
        [MAYBE, MAYBE, YES],
        [YES, YES, YES],
      ]);
      expect(ALL.map(not)).toEqual([YES, MAYBE, NO]);
    });

    it('makes yes or no of a boolean', () => {
      expect([truth(true), truth(false)]).toEqual([YES, NO]);
    });
  });
});

describe('holds', () => {
  describe('when a rule allows, or denies and asks', () => {
    it('counts yes for every rule, maybe for deny and ask rules only, and no for none', () => {
      expect(ALL.map((value) => holds(value, true))).toEqual([false, false, true]);
      expect(ALL.map((value) => holds(value, false))).toEqual([false, true, true]);
    });
  });
});
