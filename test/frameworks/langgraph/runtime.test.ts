import type { AIMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, Send, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { describe, expect, it } from 'vitest';
import { type Gate, GateFailedError, installMultiagent } from '../../../src/index.js';
import { settle } from '../../helpers/runs.js';
import { askingFor as asking, recordingTool, toolNodeGraph } from '../../helpers/langgraph.js';

/** Throws for `/boom`; allows anything else after `ms` milliseconds. */
function boomGate(ms: number, seen: string[] = []): Gate {
  return {
    name: 'boom',
    decide: async (request) => {
      seen.push(String((request.input as { path?: string }).path));
      if ((request.input as { path?: string }).path === '/boom') throw new Error('gate broke');
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { verdict: 'allow' };
    },
  };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('the root run of a LangGraph graph', () => {
  describe('when a gate fails in one of parallel tool calls', () => {
    it('stops the run: a sibling call still being decided never runs', async () => {
      const ran: string[] = [];
      const graph = toolNodeGraph('g', [recordingTool('rm', ran)]);
      installMultiagent(graph, { gate: boomGate(20) });
      const error = await settle(graph.invoke(asking({ name: 'rm', path: '/boom' }, { name: 'rm', path: '/slow' })));
      expect(error).toBeInstanceOf(GateFailedError);
      await pause(60);
      expect(ran).toEqual([]);
    });
  });

  describe('when a gate fails in one branch of a Send fan-out', () => {
    it('stops every branch of the run', async () => {
      const ran: string[] = [];
      const graph = new StateGraph(MessagesAnnotation)
        .addNode('tools', new ToolNode([recordingTool('rm', ran)]))
        .addConditionalEdges(START, (state) =>
          (state.messages.at(-1) as AIMessage).tool_calls!.map(
            (tc) => new Send('tools', { ...state, lg_tool_call: tc }),
          ),
        )
        .addEdge('tools', END)
        .compile({ name: 'fan' });
      installMultiagent(graph, { gate: boomGate(20) });
      const error = await settle(
        graph.invoke(asking({ name: 'rm', path: '/boom' }, { name: 'rm', path: '/a' }, { name: 'rm', path: '/b' })),
      );
      expect(error).toBeInstanceOf(GateFailedError);
      await pause(60);
      expect(ran).toEqual([]);
    });
  });

  describe('when a function node catches the failure of a nested graph', () => {
    it('the run stays stopped: a later tool node of it refuses and the run rejects', async () => {
      const ran: string[] = [];
      const inner = toolNodeGraph('inner', [recordingTool('rm', ran)]);
      const outer = new StateGraph(MessagesAnnotation)
        .addNode(
          'first',
          async () => {
            await settle(inner.invoke(asking({ name: 'rm', path: '/boom' })));
            return asking({ name: 'rm', path: '/after' });
          },
          { subgraphs: [inner] },
        )
        .addNode('second', new ToolNode([recordingTool('rm', ran)]))
        .addEdge(START, 'first')
        .addEdge('first', 'second')
        .addEdge('second', END)
        .compile({ name: 'outer' });
      const seen: string[] = [];
      installMultiagent(outer, { gate: boomGate(0, seen) });
      expect(await settle(outer.invoke({ messages: [] }))).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      // A call of a stopped run is refused before its gate is asked.
      expect(seen).toEqual(['/boom']);
    });
  });

  describe('when two runs of one graph overlap', () => {
    it('a failure in one stops nothing of the other', async () => {
      const ran: string[] = [];
      const graph = toolNodeGraph('g', [recordingTool('rm', ran)]);
      installMultiagent(graph, { gate: boomGate(20) });
      const [failed, passed] = await Promise.all([
        settle(graph.invoke(asking({ name: 'rm', path: '/boom' }))),
        settle(graph.invoke(asking({ name: 'rm', path: '/ok' }))),
      ]);
      expect(failed).toBeInstanceOf(GateFailedError);
      expect(passed).toBeUndefined();
      expect(ran).toEqual(['rm({"path":"/ok"})']);
    });
  });

  describe('when a run is stopped and its config is passed on', () => {
    it('a nested graph invoked with that config does not start', async () => {
      const ran: string[] = [];
      const inner = toolNodeGraph('inner', [recordingTool('rm', ran)]);
      let kept: unknown;
      const outer = new StateGraph(MessagesAnnotation)
        .addNode(
          'call',
          async (state, config: unknown) => {
            kept = config;
            // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- LangGraph types this state with `any`
            return inner.invoke({ messages: state.messages }, config as never);
          },
          { subgraphs: [inner] },
        )
        .addEdge(START, 'call')
        .addEdge('call', END)
        .compile({ name: 'outer' });
      installMultiagent(outer, { gate: boomGate(0) });
      expect(await settle(outer.invoke(asking({ name: 'rm', path: '/boom' })))).toBeInstanceOf(GateFailedError);
      expect(await settle(inner.invoke(asking({ name: 'rm', path: '/later' }), kept as never))).toBeInstanceOf(
        GateFailedError,
      );
      expect(ran).toEqual([]);
    });
  });
});
