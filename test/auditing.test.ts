/** Whether this process is an audit child: the environment variable, or the mark the audit child's preload sets. */
import { afterEach, describe, expect, it } from 'vitest';
import { AUDITING_ENV, AUDITING_MARK, isAuditing } from '../src/auditing.js';

const before = process.env[AUDITING_ENV];
afterEach(() => {
  if (before === undefined) delete process.env[AUDITING_ENV];
  else process.env[AUDITING_ENV] = before;
  Reflect.deleteProperty(globalThis, AUDITING_MARK);
});

describe('isAuditing', () => {
  describe('when neither the variable nor the mark is set', () => {
    it('is false', () => {
      delete process.env[AUDITING_ENV];
      expect(isAuditing()).toBe(false);
    });
  });

  describe('when the variable is set', () => {
    it('is true for "1" only', () => {
      process.env[AUDITING_ENV] = '1';
      expect(isAuditing()).toBe(true);
      process.env[AUDITING_ENV] = 'true';
      expect(isAuditing()).toBe(false);
    });
  });

  describe('when the mark is on globalThis', () => {
    it('is true even with the variable reset, and only for the value true', () => {
      delete process.env[AUDITING_ENV];
      Object.defineProperty(globalThis, AUDITING_MARK, { value: 'yes', configurable: true });
      expect(isAuditing()).toBe(false);
      Reflect.deleteProperty(globalThis, AUDITING_MARK);
      Object.defineProperty(globalThis, AUDITING_MARK, { value: true, configurable: true });
      expect(isAuditing()).toBe(true);
    });
  });
});
