/** The option parsers the audit and `merge` share (`--min-coverage`, the millisecond options, `--shard`, repeatables). */
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { collect, msArg, percentArg, shardArg } from '../../src/cli/args.js';

describe('percentArg', () => {
  describe('when given a percent from 0 to 100', () => {
    it('returns it as a number, the bounds included', () => {
      expect(percentArg('0')).toBe(0);
      expect(percentArg('50.01')).toBe(50.01);
      expect(percentArg(' 100 ')).toBe(100);
    });
  });

  describe('when given a fraction, a value out of range or no number', () => {
    it('throws a commander argument error, suggesting the percent a fraction meant', () => {
      expect(() => percentArg('0.8')).toThrow(InvalidArgumentError);
      expect(() => percentArg('0.8')).toThrow('got the fraction 0.8 | write 80 for 80%');
      for (const value of ['101', '-1', 'half', '', '  ']) {
        expect(() => percentArg(value), value).toThrow('expected a percentage from 0 to 100');
      }
    });
  });
});

describe('msArg', () => {
  describe('when given a positive whole number', () => {
    it('returns it', () => {
      expect(msArg('1')).toBe(1);
      expect(msArg('1500')).toBe(1500);
    });
  });

  describe('when given zero, a negative, a fraction or no number', () => {
    it('throws a commander argument error', () => {
      for (const value of ['0', '-5', '1.5', 'soon', '']) {
        expect(() => msArg(value), value).toThrow(InvalidArgumentError);
        expect(() => msArg(value), value).toThrow('expected a positive whole number of milliseconds');
      }
    });
  });
});

describe('shardArg', () => {
  describe('when given i/n with 1 <= i <= n', () => {
    it('returns the index and the count', () => {
      expect(shardArg('1/3')).toEqual({ index: 1, count: 3 });
      expect(shardArg(' 3/3 ')).toEqual({ index: 3, count: 3 });
    });
  });

  describe('when the index is out of range or the form is not i/n', () => {
    it('throws a commander argument error with an example', () => {
      for (const value of ['0/3', '3/2', '1/0', '1', '1/2/3', 'a/b', '-1/2', '']) {
        expect(() => shardArg(value), value).toThrow(InvalidArgumentError);
        expect(() => shardArg(value), value).toThrow('expected i/n with 1 <= i <= n');
      }
    });
  });
});

describe('collect', () => {
  describe('when an option is repeated', () => {
    it('parses each value and appends it, starting from none', () => {
      const add = collect(msArg);
      const once = add('10');
      expect(once).toEqual([10]);
      expect(add('20', once)).toEqual([10, 20]);
      expect(once).toEqual([10]);
    });
  });
});
