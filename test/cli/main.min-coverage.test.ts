/**
 * `--min-coverage` is a ratchet: the per-node rule is replaced by the exact ratio, but an orchestrator that
 * is not gated still fails the run (coverage counts tool-running nodes only).
 */
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';

// The drafting Graph is guarded; `reader` is gated and the swapped-in `drafter` is blocked: 1 of 2 covered.
const halfCovered = 'fixtures/graphs/late-node-graph.ts';
// The pricing Graph has no node guard: 3 of 4 agents gated.
const unguarded = 'fixtures/graphs/mixed-graph.ts';

describe('gate-audit --min-coverage', () => {
  describe('when it is not given', () => {
    it('without it, any blocked node fails the run', async () => {
      expect((await cli(halfCovered, '--format', 'json')).code).toBe(1);
    });
  });

  describe('when given a percent', () => {
    it('passes at exactly the ratio, fails just above it (the exact ratio, not a rounded percent)', async () => {
      expect((await cli(halfCovered, '--format', 'json', '--min-coverage', '50')).code).toBe(0);
      expect((await cli(halfCovered, '--format', 'json', '--min-coverage', '50.01')).code).toBe(1);
    });

    it('still fails when an orchestrator is not gated, even at 0', async () => {
      expect((await cli(unguarded, '--format', 'json', '--min-coverage', '0')).code).toBe(1);
    });
  });

  describe('when given a fraction', () => {
    it('refuses a fraction, suggesting the percent it probably meant', async () => {
      const result = await cli(halfCovered, '--min-coverage', '0.8');
      expect(result.code).toBe(2);
      expect(result.err).toMatch(/got the fraction 0\.8 \| write 80 for 80%/);
    });
  });

  describe('when --exit-zero is given instead', () => {
    it('--exit-zero never fails on coverage', async () => {
      expect((await cli(unguarded, '--format', 'json', '--exit-zero')).code).toBe(0);
    });
  });

  describe('when the report is written for GitHub', () => {
    it('--format github marks as errors exactly the nodes that fail under the rule in force', async () => {
      const errorsOf = (out: string): string[] =>
        out
          .split('\n')
          .filter((l) => l.startsWith('::error '))
          .map((l) => /title=gate-audit%3A ([^:]*)::/.exec(l)?.[1] ?? l);
      const strict = await cli(halfCovered, '--format', 'github');
      expect(strict.code).toBe(1);
      expect(errorsOf(strict.out).some((t) => t.startsWith('blocked agent'))).toBe(true);
      const ratchet = await cli(halfCovered, '--format', 'github', '--min-coverage', '50');
      expect(ratchet.code).toBe(0);
      expect(errorsOf(ratchet.out)).toEqual([]);
      expect(ratchet.out).toMatch(/^::warning .*title=gate-audit%3A blocked agent/m);
    });
  });
});
