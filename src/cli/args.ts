/** Parsers of option values the audit and `merge` share, for commander. */
import { InvalidArgumentError } from 'commander';
import { minCoverageProblem } from '../report/exit.js';

/**
 * Parses `--min-coverage`: a percent from 0 to 100.
 *
 * @throws InvalidArgumentError naming the problem (a fraction like `0.8` suggests `80`)
 */
export function percentArg(value: string): number {
  const n = value.trim() === '' ? Number.NaN : Number(value);
  const problem = minCoverageProblem(n);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return n;
}

/**
 * Parses a positive whole number of milliseconds.
 *
 * @throws InvalidArgumentError otherwise
 */
export function msArg(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError('expected a positive whole number of milliseconds');
  return n;
}

/**
 * Parses `--shard i/n`.
 *
 * @throws InvalidArgumentError unless 1 <= i <= n
 */
export function shardArg(value: string): { index: number; count: number } {
  const match = /^(\d+)\/(\d+)$/.exec(value.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || index < 1 || count < 1 || index > count) {
    throw new InvalidArgumentError('expected i/n with 1 <= i <= n, e.g. 1/3 for the first of three shards');
  }
  return { index, count };
}

/** A repeatable option: each value parsed and appended. */
export const collect =
  <T>(parse: (value: string) => T) =>
  (value: string, previous: T[] = []): T[] => [...previous, parse(value)];
