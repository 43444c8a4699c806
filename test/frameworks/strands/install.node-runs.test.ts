/**
 * Which custom nodes install runs in the run context (their `stream` wrapped, marked): one that declares what it
 * runs, and one accepted as opaque; never a remote node accepted (it runs nothing here). (An object met at two
 * places is listed once; listing it twice would change nothing, as the wrap of a marked node is a no-op.)
 */
import { A2AAgent } from '@strands-agents/sdk/a2a';
import { Graph, Node } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { allowAll, installMultiagent } from '../../../src/index.js';
import { nodeRunMark } from '../../../src/walker/marks.js';
import { isolateEachTest, say, scriptedAgent } from '../../helpers/sdk.js';

isolateEachTest();

/** An opaque custom node: it runs nothing gate-audit can see. */
class Opaque extends Node {
  constructor(id: string) {
    super(id, {});
  }
  // eslint-disable-next-line require-yield, @typescript-eslint/require-await
  async *handle(): ReturnType<Node['handle']> {
    return { content: [] };
  }
}

const wrapped = (node: object): boolean => nodeRunMark(node) !== undefined && Object.hasOwn(node, 'stream');

describe('installMultiagent, the runs of custom nodes', () => {
  describe('when a node is accepted as opaque', () => {
    it('runs it in the run context (its stream wrapped and marked)', () => {
      const legacy = new Opaque('legacy');
      const graph = new Graph({ id: 'app', nodes: [scriptedAgent('a', [say('x')]), legacy], edges: [] });
      expect(wrapped(legacy)).toBe(false);
      installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'app/legacy', reason: 'reviewed' }] });
      expect(wrapped(legacy)).toBe(true);
    });
  });

  describe('when a node is accepted as remote', () => {
    it('leaves it as it is: it runs nothing in this process', () => {
      const remote = new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' });
      const graph = new Graph({ id: 'g', nodes: [scriptedAgent('a', [say('x')]), remote], edges: [] });
      installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'g/remote', reason: 'gated on its server' }] });
      expect(nodeRunMark(remote)).toBeUndefined();
      expect(Object.hasOwn(remote, 'stream')).toBe(false);
    });
  });
});
