/**
 * The one exit rule (`src/report/exit.ts`) on plain nodes and notes: which nodes fail a run, the exact coverage
 * ratio against a minimum, `exitZero`, and how notes (a load failure above all) judge a run.
 */
import { describe, expect, it } from 'vitest';
import {
  coverageCounts,
  exitCodeOf,
  judgeRun,
  minCoverageProblem,
  nodeFailsRun,
  underMinimum,
} from '../../src/report/exit.js';
import type { CoverageNode, CoverageNote } from '../../src/report/schema.js';

const node = (id: string, kind: CoverageNode['kind'], status: CoverageNode['status']): CoverageNode => ({
  path: ['root', id],
  id,
  kind,
  status,
  reason: `is ${status}`,
  tools: [],
  toolsUnknownUntilInit: false,
  warnings: [],
});

const note = (kind: CoverageNote['kind'], fails?: boolean): CoverageNote => ({
  kind,
  module: 'app.ts',
  message: kind,
  ...(fails === undefined ? {} : { fails }),
});

/** 2 of 3 counted tool-running nodes covered (one accepted, not counted), under a gated graph. */
const twoOfThree = [
  node('g', 'graph', 'gated'),
  node('a', 'agent', 'gated'),
  node('b', 'custom', 'attested'),
  node('c', 'agent-tool', 'ungated'),
  node('d', 'remote', 'accepted'),
];

describe('exit rule', () => {
  describe('when no minimum coverage is set', () => {
    it('fails on an ungated, ungateable or blocked node, never on an attested or accepted one', () => {
      for (const status of ['ungated', 'ungateable', 'blocked'] as const) {
        expect(nodeFailsRun(node('a', 'agent', status)), status).toBe(true);
        expect(exitCodeOf({ nodes: [node('g', 'graph', 'gated'), node('a', 'agent', status)] }), status).toBe(1);
      }
      for (const status of ['gated', 'attested', 'accepted'] as const) {
        expect(nodeFailsRun(node('a', 'agent', status)), status).toBe(false);
      }
      expect(exitCodeOf({ nodes: [node('g', 'graph', 'gated'), node('a', 'agent', 'accepted')] })).toBe(0);
    });

    it('fails on an orchestrator that is not gated, whatever else', () => {
      expect(nodeFailsRun(node('s', 'swarm', 'ungated'))).toBe(true);
      expect(nodeFailsRun(node('s', 'swarm', 'ungated'), { minCoverage: 0 })).toBe(true);
      expect(exitCodeOf({ nodes: [node('g', 'graph', 'blocked')] }, { minCoverage: 0 })).toBe(1);
    });
  });

  describe('when a minimum coverage is set', () => {
    it('counts covered tool-running nodes, leaving out orchestrators and accepted nodes', () => {
      expect(coverageCounts(twoOfThree)).toEqual({ covered: 2, counted: 3 });
      expect(coverageCounts([node('g', 'graph', 'gated')])).toEqual({ covered: 0, counted: 0 });
    });

    it('replaces the per-node condition by the exact ratio, never a rounded percent', () => {
      // 2/3 is 66.66…%: under 66.67, not under 66.66.
      expect(underMinimum(twoOfThree, 66.67)).toBe(true);
      expect(underMinimum(twoOfThree, 66.66)).toBe(false);
      expect(nodeFailsRun(node('c', 'agent-tool', 'ungated'), { minCoverage: 50 })).toBe(false);
      expect(exitCodeOf({ nodes: twoOfThree }, { minCoverage: 66.66 })).toBe(0);
      expect(exitCodeOf({ nodes: twoOfThree }, { minCoverage: 66.67 })).toBe(1);
      expect(exitCodeOf({ nodes: twoOfThree })).toBe(1);
    });

    it('is never under the minimum with no tool-running node to count', () => {
      expect(underMinimum([node('g', 'graph', 'gated'), node('d', 'remote', 'accepted')], 100)).toBe(false);
    });
  });

  describe('when exitZero is set', () => {
    it('passes whatever the nodes and the coverage', () => {
      expect(exitCodeOf({ nodes: [node('g', 'graph', 'ungated')] }, { exitZero: true, minCoverage: 100 })).toBe(0);
      expect(judgeRun({ nodes: twoOfThree }, { exitZero: true, minCoverage: 100 })).toEqual({
        exitCode: 0,
        failingNodes: 0,
        underMinimum: false,
        outside: [],
      });
    });
  });

  describe('when notes judge the run (judgeRun)', () => {
    it('names each kind of failing note with its count, in the verdict order, and fails with 1', () => {
      const notes = [
        note('unaudited-export', true),
        note('gate-mismatch', true),
        note('gate-mismatch', true),
        note('skipped-module'),
        note('writable-keyring', false),
      ];
      expect(judgeRun({ nodes: [node('g', 'graph', 'gated')], notes })).toEqual({
        exitCode: 1,
        failingNodes: 0,
        underMinimum: false,
        outside: ['2 nodes under another gate (--require-gate)', '1 export not audited (--fail-on-unaudited)'],
      });
      expect(judgeRun({ nodes: [node('g', 'graph', 'gated')], notes }, { exitZero: true }).exitCode).toBe(0);
    });

    it('gives 2 for a module that failed to load, exitZero or not', () => {
      const judged = judgeRun({ nodes: [], notes: [note('load'), note('load')] }, { exitZero: true });
      expect(judged).toEqual({
        exitCode: 2,
        failingNodes: 0,
        underMinimum: false,
        outside: ['2 modules or entries that failed to load'],
      });
    });

    it('counts the failing nodes and the minimum next to the notes', () => {
      expect(judgeRun({ nodes: twoOfThree }, { minCoverage: 80 })).toEqual({
        exitCode: 1,
        failingNodes: 0,
        underMinimum: true,
        outside: [],
      });
      expect(judgeRun({ nodes: twoOfThree })).toMatchObject({ exitCode: 1, failingNodes: 1, underMinimum: false });
    });
  });

  describe('when a user gives a minimum coverage (minCoverageProblem)', () => {
    it('accepts a percent from 0 to 100 and refuses a fraction with the percent it meant', () => {
      for (const ok of [0, 1, 80, 100]) expect(minCoverageProblem(ok), String(ok)).toBeUndefined();
      for (const bad of [-1, 101, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(minCoverageProblem(bad), String(bad)).toBe('expected a percentage from 0 to 100');
      }
      expect(minCoverageProblem(0.8)).toBe(
        'expected a percentage from 0 to 100, got the fraction 0.8 | write 80 for 80%',
      );
    });
  });
});
