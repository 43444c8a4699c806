/**
 * A tree nested deeper than the walk goes is refused with one readable error, not a stack overflow.
 */
import { Agent } from '@strands-agents/sdk';
import { Graph, Node } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { allowAll, audit, installMultiagent, plan } from '../../src/index.js';
import { MAX_DEPTH, walk } from '../../src/walker/walk.js';
import { ScriptedModel, say } from '../helpers/sdk.js';

function nested(levels: number): Graph {
  let inner = new Graph({
    id: 'leaf',
    nodes: [new Agent({ id: 'a', printer: false, model: new ScriptedModel([say('x')]) })],
    edges: [],
  });
  for (let i = 0; i < levels; i += 1) inner = new Graph({ id: `g${i}`, nodes: [inner], edges: [] });
  return inner;
}

describe('walk, at the depth limit', () => {
  describe('when a tree nests deeper than MAX_DEPTH', () => {
    const tooDeep = nested(MAX_DEPTH + 10);

    it('is refused by walk, audit, plan and installMultiagent with TOO_DEEP, naming where it starts', () => {
      for (const run of [
        () => walk(tooDeep),
        () => audit(tooDeep),
        () => plan(tooDeep),
        () => installMultiagent(tooDeep, { gate: allowAll() }),
      ]) {
        expect(run).toThrow(expect.objectContaining({ code: 'TOO_DEEP' }));
      }
      expect(() => walk(tooDeep)).toThrow(/path=<g265\/g264\/g263\/…> \| the tree nests deeper than 256 levels/);
    });
  });

  describe('when a tree nests just within the limit', () => {
    it('is walked', () => {
      expect(walk(nested(MAX_DEPTH - 3)).orchestrators).toHaveLength(MAX_DEPTH - 2);
    });
  });

  describe('when sibling ids collide', () => {
    it('ids a, a and a#2 get three distinct paths and the audit does not crash', async () => {
      const { GOVERNS } = await import('../../src/index.js');
      const agents = ['a', 'a', 'a#2'].map(
        (id) => new Agent({ id, printer: false, model: new ScriptedModel([say('x')]) }),
      );
      class Step extends Node {
        constructor() {
          super('step', {});
        }
        [GOVERNS](): { agents: Agent[] } {
          return { agents };
        }
        // eslint-disable-next-line require-yield, @typescript-eslint/require-await
        async *handle(): ReturnType<Node['handle']> {
          return { content: [] };
        }
      }
      const report = audit(new Graph({ id: 'g', nodes: [new Step()], edges: [] }));
      const paths = report.nodes.map((n) => n.path.join('/'));
      expect(paths).toEqual(['g', 'g/step', 'g/step/a', 'g/step/a#2', 'g/step/a%232']);
      expect(new Set(paths).size).toBe(paths.length);
    });
  });
});
