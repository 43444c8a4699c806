/**
 * `check-policy` over LangGraph trees: each tool node at the place its gate judges its calls, with the verdict the
 * policy gives its tools before any input is known. The static verdict is proven against the gate: the same
 * policy installed on the same graph runs exactly the tools `check-policy` says it allows.
 */
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { installMultiagent } from '../../src/langgraph.js';
import { checkLangGraphTree } from '../../src/policy/check-langgraph.js';
import { parsePolicy } from '../../src/policy/load.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { policyGate } from '../../src/policy/policy-gate.js';
import { askingFor, NOT_IN_DESK, recordingTool, toolNodeGraph, workerInDesk } from '../helpers/langgraph.js';

const policy: PolicyInput = {
  version: 1,
  default: 'deny',
  rules: [
    { id: 'search-in-a', tools: ['search'], paths: ['desk/a/tools'], verdict: 'allow' },
    { id: 'notes', tools: ['note'], verdict: 'allow' },
  ],
};

function desk(ranA: string[], ranB: string[]) {
  // Two branches run the same call in parallel, each through its own subgraph's tool node.
  return new StateGraph(MessagesAnnotation)
    .addNode('a', toolNodeGraph('inner-a', [recordingTool('search', ranA), recordingTool('note', ranA)]))
    .addNode('b', toolNodeGraph('inner-b', [recordingTool('search', ranB)]))
    .addEdge(START, 'a')
    .addEdge(START, 'b')
    .addEdge('a', END)
    .addEdge('b', END)
    .compile({ name: 'desk' });
}

describe('checkLangGraphTree', () => {
  describe('when given a graph with tool nodes in subgraphs', () => {
    it('lists each tool node at its path, with each tool, its verdict and the rules covering it there', () => {
      const verdicts = checkLangGraphTree(parsePolicy(policy), desk([], []));
      expect(
        verdicts?.map((agent) => ({
          path: agent.path.join('/'),
          tools: agent.tools.map((t) => `${t.tool}:${t.verdict}:${t.rules.join('+')}`),
        })),
      ).toEqual([
        { path: 'desk/a/tools', tools: ['search:allow:search-in-a', 'note:allow:notes'] },
        { path: 'desk/b/tools', tools: ['search:deny:'] },
      ]);
    });

    it('says what the gate then does: the same policy on the same graph runs the search of a only', async () => {
      const ranA: string[] = [];
      const ranB: string[] = [];
      const graph = desk(ranA, ranB);
      const verdicts = checkLangGraphTree(parsePolicy(policy), graph) ?? [];
      installMultiagent(graph, { gate: policyGate(policy) });
      await graph.invoke(askingFor({ name: 'search', path: 'x' }));
      const allowedAt = (path: string): boolean =>
        verdicts.find((v) => v.path.join('/') === path)?.tools.find((t) => t.tool === 'search')?.verdict === 'allow';
      expect(ranA.length > 0).toBe(allowedAt('desk/a/tools'));
      expect(ranB.length > 0).toBe(allowedAt('desk/b/tools'));
      expect(ranA).toEqual(['search({"path":"x"})']);
      expect(ranB).toEqual([]);
    });
  });

  describe('when a tool node is gated at another place already (its agent installed on its own)', () => {
    it('judges it at every place its gate will: a deny for one place holds, as at run time', async () => {
      const ran: string[] = [];
      const { worker, desk } = workerInDesk(ran);
      const gate = policyGate(NOT_IN_DESK);
      installMultiagent(worker, { gate });
      const [checked] = checkLangGraphTree(parsePolicy(NOT_IN_DESK), desk) ?? [];
      expect(checked?.places.map((p) => p.join('/'))).toEqual(['worker/tools', 'desk/worker/tools']);
      expect(checked?.tools.map((t) => `${t.tool}:${t.verdict}`)).toEqual(['shell:deny']);
      installMultiagent(desk, { gate });
      await desk.invoke({ messages: [{ role: 'user', content: 'go' }] });
      expect(ran).toEqual([]);
    });
  });

  describe('when given something else', () => {
    it('answers undefined (a Strands tree is checked by check-strands.ts)', () => {
      expect(checkLangGraphTree(parsePolicy(policy), {})).toBeUndefined();
      expect(checkLangGraphTree(parsePolicy(policy), undefined)).toBeUndefined();
    });
  });
});
