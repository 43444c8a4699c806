/**
 * `plan` answers "what would `installMultiagent` do", so it runs the same checks install runs before it changes
 * anything, and reports what install would refuse. It ran only the tree preflight: for a tree with an agent that
 * already carries another gate, it showed every node gated (coverage 1) and no refusal, and `installMultiagent`
 * then refused the tree with `GATE_CONFLICT`. `plan` takes the gate install would be given (`gate`; without it, the
 * configured gate, resolved at each call, as install uses it) and reports each conflict as a refusal.
 *
 * Mutated by hand: the conflict check skipped in `preflightTree` (install.ts) fails the conflict rows of plan and
 * install alike; `plan` catching only `UngateableError` again fails the plan rows.
 */
import { Graph, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import {
  allowAll,
  configureGate,
  type CoverageReport,
  type Gate,
  GateAuditError,
  GatePlugin,
  install,
  installMultiagent,
  plan,
} from '../../src/index.js';
import { isolateEachTest, say, scriptedAgent } from '../helpers/sdk.js';

isolateEachTest();

const treeGate: Gate = { name: 'tree', decide: () => ({ verdict: 'allow' }) };
const otherGate: Gate = { name: 'other', decide: () => ({ verdict: 'allow' }) };

/** A fresh tree of two agents; `prepare` gates some of them before the plan and the install. */
type Build = () => Graph | Swarm;

const trees: Record<string, { build: Build; gate?: Gate; configured?: Gate; conflicts: string[] }> = {
  'an agent gated by another gate, install given a gate': {
    build: () => {
      const a = scriptedAgent('a', [say('x')]);
      install(a, { gate: otherGate });
      return new Graph({ id: 'g', nodes: [a, scriptedAgent('b', [say('x')])], edges: [['a', 'b']] });
    },
    gate: treeGate,
    conflicts: ['g/a'],
  },
  'an agent gated by another gate, install resolving the configured gate': {
    build: () => {
      const a = scriptedAgent('a', [say('x')]);
      install(a, { gate: otherGate });
      return new Graph({ id: 'g', nodes: [a, scriptedAgent('b', [say('x')])], edges: [['a', 'b']] });
    },
    configured: treeGate,
    conflicts: ['g/a'],
  },
  'an agent whose GatePlugin carries another gate, in a nested Swarm': {
    build: () => {
      const inner = new Swarm({
        id: 's',
        nodes: [
          scriptedAgent('c', [say('x')], { plugins: [new GatePlugin({ gate: otherGate })] }),
          scriptedAgent('d', [say('x')]),
        ],
      });
      return new Graph({ id: 'g', nodes: [scriptedAgent('a', [say('x')]), inner], edges: [['a', 's']] });
    },
    gate: treeGate,
    conflicts: ['g/s/c'],
  },
  'an agent gated by the same gate already': {
    build: () => {
      const a = scriptedAgent('a', [say('x')]);
      install(a, { gate: treeGate });
      return new Graph({ id: 'g', nodes: [a, scriptedAgent('b', [say('x')])], edges: [['a', 'b']] });
    },
    gate: treeGate,
    conflicts: [],
  },
  'no agent gated yet': {
    build: () =>
      new Graph({
        id: 'g',
        nodes: [scriptedAgent('a', [say('x')]), scriptedAgent('b', [say('x')])],
        edges: [['a', 'b']],
      }),
    gate: allowAll(),
    conflicts: [],
  },
};

function installError(tree: Graph | Swarm, gate: Gate | undefined): unknown {
  try {
    installMultiagent(tree, gate === undefined ? {} : { gate });
    return undefined;
  } catch (error) {
    return error;
  }
}

const refusedPaths = (report: CoverageReport): string[] => report.refusals.map((r) => r.path.join('/'));

describe('plan reports what installMultiagent would refuse', () => {
  describe('when a tree (or the configured gate) may conflict with the gate given', () => {
    describe.each(Object.entries(trees))('%s', (_name, tree) => {
      it('plan shows each conflict as a refusal, and install refuses exactly then', () => {
        if (tree.configured !== undefined) configureGate(tree.configured);
        const report = plan(tree.build(), tree.gate === undefined ? {} : { gate: tree.gate });
        expect(refusedPaths(report)).toEqual(tree.conflicts);
        const error = installError(tree.build(), tree.gate);
        if (tree.conflicts.length === 0) {
          expect(error).toBeUndefined();
          expect(report.summary.coverage).toBe(1);
          return;
        }
        expect(error).toBeInstanceOf(GateAuditError);
        expect((error as GateAuditError).code).toBe('GATE_CONFLICT');
        expect(report.refusals.every((r) => r.kind === 'gate-conflict')).toBe(true);
        expect(report.refusals[0]!.reason).toMatch(/carries gate "other", not "(tree|configured)"/);
        // The tree as it stands: nothing is shown gated that install would not gate.
        expect(report.summary.coverage).toBeLessThan(1);
      });
    });
  });
  describe('when no gate is given and none is configured', () => {
    it('a tree that carries a gate conflicts with the configured one', () => {
      const a = scriptedAgent('a', [say('x')]);
      install(a, { gate: otherGate });
      const report = plan(new Graph({ id: 'g', nodes: [a, scriptedAgent('b', [say('x')])], edges: [['a', 'b']] }));
      expect(refusedPaths(report)).toEqual(['g/a']);
    });
  });
});
