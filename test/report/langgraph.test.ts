/**
 * The report of a LangGraph tree (`src/report/langgraph.ts`) is built by the same walk and builder as a Strands
 * tree's: the same sibling names, the same depth limit, the same shared warnings, on real compiled graphs.
 */
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { RunnableLambda } from '@langchain/core/runnables';
import { allowAll, audit, installMultiagent } from '../../src/index.js';
import { MAX_DEPTH } from '../../src/walker/limits.js';
import { recordingTool, toolNodeGraph } from '../helpers/langgraph.js';

/** A graph whose one node, `node`, is `inner`. */
function around(name: string, inner: unknown, node = 'inner'): unknown {
  return new StateGraph(MessagesAnnotation)
    .addNode(node, inner as ReturnType<typeof toolNodeGraph>)
    .addEdge(START, node as 'inner')
    .addEdge(node as 'inner', END)
    .compile({ name });
}

describe('the report of a LangGraph tree', () => {
  describe('when declared subgraphs share a name', () => {
    it('tells apart declared subgraphs that share a name with #2', () => {
      const twin = (): ReturnType<typeof toolNodeGraph> => toolNodeGraph('twin', [recordingTool('rm', [])]);
      const graph = new StateGraph(MessagesAnnotation)
        .addNode('step', () => ({}), { subgraphs: [twin(), twin()] })
        .addEdge(START, 'step')
        .addEdge('step', END)
        .compile({ name: 'g' });
      const paths = audit(graph).nodes.map((n) => n.path.join('/'));
      expect(paths).toContain('g/step/twin');
      expect(paths).toContain('g/step/twin#2');
    });
  });
  describe('when the tree is nested too deep', () => {
    it(`refuses a tree nested deeper than ${MAX_DEPTH} levels with TOO_DEEP`, () => {
      let graph: unknown = toolNodeGraph('leaf', [recordingTool('rm', [])]);
      for (let i = 0; i < MAX_DEPTH; i += 1) graph = around(`g${i}`, graph);
      expect(() => audit(graph)).toThrow(expect.objectContaining({ code: 'TOO_DEEP' }));
    });
  });
  describe('when a node is accepted', () => {
    it('reads an accepted node as accepted only while it holds what was accepted, and never a cycle', () => {
      const inner = toolNodeGraph('inner', [recordingTool('rm', [])]);
      const root = new StateGraph(MessagesAnnotation)
        .addNode('f', RunnableLambda.from((s: unknown) => s) as never)
        .addNode('sub', inner)
        .addEdge(START, 'f')
        .addEdge('f', 'sub')
        .addEdge('sub', END)
        .compile({ name: 'root' });
      installMultiagent(root, { gate: allowAll(), accept: [{ path: 'root/f', reason: 'reviewed' }] });
      const rowF = (): ReturnType<typeof audit>['nodes'][number] =>
        audit(root).nodes.find((n) => n.path.join('/') === 'root/f')!;
      expect(rowF().status).toBe('accepted');
      // The function node's runnable swapped for the graph itself: a cycle, which no acceptance covers.
      const nodes = (root as unknown as { nodes: Record<string, object> }).nodes;
      const swapped = Object.assign(Object.create(Object.getPrototypeOf(nodes.f!) as object) as object, nodes.f, {
        bound: root,
      });
      nodes.f = swapped;
      expect(rowF()).toMatchObject({ status: 'ungateable', problem: 'cycle' });
      // Swapped for another function node: not what was accepted.
      nodes.f = Object.assign(Object.create(Object.getPrototypeOf(swapped) as object) as object, swapped, {
        bound: RunnableLambda.from((s: unknown) => s),
      });
      expect(rowF()).toMatchObject({ status: 'ungateable', problem: 'custom-node' });
    });
  });
  describe('when an id holds hidden characters', () => {
    it('warns on an id with hidden characters', () => {
      const graph = around('g', toolNodeGraph('sub', [recordingTool('rm', [])]), 'safe\u202egpj.exe');
      const row = audit(graph).nodes.find((n) => n.path.length === 2)!;
      expect(row.framework).toBe('langgraph');
      expect(row.warnings).toContain(
        'its id holds control, bidi or invisible characters (shown escaped): check where the id comes from',
      );
    });
  });
});
