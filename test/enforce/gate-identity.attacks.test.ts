/**
 * Attacks on which gate an agent is under (`src/enforce/gate-identity.ts`, as the audit reports it): two gates
 * under one name, a GatePlugin with no gate to use.
 */
import { Graph } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { audit, GatePlugin, install } from '../../src/index.js';
import { isolateEachTest, say, scriptedAgent } from '../helpers/sdk.js';

isolateEachTest();

describe('gate identity (gate-identity.ts)', () => {
  describe('when the audit names which gate, not only whether', () => {
    it('every gated node carries its gate; two different gates under one name are a finding [C]', () => {
      const a = scriptedAgent('a', [say('x')]);
      const b = scriptedAgent('b', [say('x')]);
      install(a, { gate: { name: 'policy', id: 'sha-of-strict', decide: () => ({ verdict: 'deny', reason: 'no' }) } });
      install(b, { gate: { name: 'policy', decide: () => ({ verdict: 'allow' }) } });
      const report = audit(new Graph({ id: 'g', nodes: [a, b], edges: [] }));
      const nodeA = report.nodes.find((n) => n.id === 'a')!;
      const nodeB = report.nodes.find((n) => n.id === 'b')!;
      expect(nodeA.gate).toEqual({ name: 'policy', id: 'sha-of-strict' });
      expect(nodeB.gate).toMatchObject({ name: 'policy', perProcess: true });
      expect(nodeB.gate?.id).toMatch(/^process:/);
      expect(nodeA.warnings.join('\n')).toMatch(/gate name "policy" is used by 2 different gates/);
    });

    it('a GatePlugin with no gate while none is configured is blocked, not gated [C]', () => {
      const agent = scriptedAgent('a', [say('x')], { plugins: [new GatePlugin()] });
      const report = audit(new Graph({ id: 'g', nodes: [agent], edges: [] }));
      const node = report.nodes.find((n) => n.id === 'a');
      expect(node?.status).toBe('blocked');
      expect(node?.reason).toMatch(/no gate is configured now: every call is refused/);
    });
  });
});
