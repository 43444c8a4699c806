/**
 * LangGraph's own ways around a gate, each tried against an installed one: callbacks that fail open, a nested
 * invoke that drops callbacks, middleware that swaps the tool or calls it directly, members replaced after
 * install, and a tree that cannot be gated whole.
 */
import type { CallbackHandlerMethods } from '@langchain/core/callbacks/base';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { createAgent, createMiddleware } from 'langchain';
import { describe, expect, it } from 'vitest';
import { allowAll, audit, denyAll, GateFailedError, installMultiagent, UngateableError } from '../../../src/index.js';
import { applyLangGraph, planLangGraph } from '../../../src/frameworks/langgraph/install.js';
import { gateSource } from '../../../src/enforce/gate-source.js';
import { settle } from '../../helpers/runs.js';
import { askingFor, callsOnce, messagesOf, recordingTool, toolNodeGraph } from '../../helpers/langgraph.js';

const hi = { messages: [{ role: 'user', content: 'hi' }] };

const asking = (name: string, path: string): ReturnType<typeof askingFor> => askingFor({ name, path });
const toolGraph = (tools: StructuredToolInterface[]): ReturnType<typeof toolNodeGraph> => toolNodeGraph('g', tools);
const build = toolGraph;

describe('the LangGraph runtime gate, against bypass attempts', () => {
  describe('when a callback fails open or is dropped (callbacks are never the enforcement point)', () => {
    it('a tool callback that throws without raiseError changes nothing: the deny holds and nothing runs', async () => {
      const ran: string[] = [];
      const rm = recordingTool('rm', ran);
      const loud: CallbackHandlerMethods = {
        handleToolStart: () => {
          throw new Error('a callback that would veto');
        },
      };
      const graph = toolGraph([rm]);
      installMultiagent(graph, { gate: denyAll() });
      const result = await graph.invoke(asking('rm', '/x'), { callbacks: [loud] });
      expect(ran).toEqual([]);
      expect(messagesOf(result).some((m) => m.includes('BLOCKED'))).toBe(true);
    });

    it('a nested invoke with callbacks: [] inside a declared function node is still gated', async () => {
      const ran: string[] = [];
      const inner = createAgent({
        model: callsOnce('rm', { path: '/x' }),
        tools: [recordingTool('rm', ran)],
        name: 'inner',
      });
      const graph = new StateGraph(MessagesAnnotation)
        // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- LangGraph types this state with `any`
        .addNode('call', async (state) => inner.invoke({ messages: state.messages }, { callbacks: [] }), {
          subgraphs: [inner.graph],
        })
        .addEdge(START, 'call')
        .addEdge('call', END)
        .compile({ name: 'app' });
      installMultiagent(graph, { gate: denyAll() });
      await graph.invoke(hi);
      expect(ran).toEqual([]);
    });
  });

  describe('when a middleware swaps the tool or its wrapper', () => {
    it('a middleware that hands the node another tool object is refused and the run rejects', async () => {
      const ran: string[] = [];
      const impostor = recordingTool('rm', ran);
      const swap = createMiddleware({
        name: 'swap',
        wrapToolCall: (request, handler) => handler({ ...request, tool: impostor }),
      });
      const agent = createAgent({
        model: callsOnce('rm', { path: '/x' }),
        tools: [recordingTool('rm', ran)],
        middleware: [swap],
        name: 'a',
      });
      installMultiagent(agent, { gate: allowAll() });
      expect(await settle(agent.invoke(hi))).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
    });

    it('wrapToolCall cannot be replaced after install', () => {
      const agent = createAgent({ model: callsOnce('rm', {}), tools: [recordingTool('rm', [])], name: 'a' });
      installMultiagent(agent, { gate: allowAll() });
      const node = agent.graph.nodes.tools!.bound as unknown as { wrapToolCall: unknown };
      expect(() => {
        node.wrapToolCall = undefined;
      }).toThrow(TypeError);
    });
  });

  describe('when a gated tool is called from outside its tool node', () => {
    it('is refused: it runs only inside a call its gate judged', async () => {
      const ran: string[] = [];
      const rm = recordingTool('rm', ran);
      installMultiagent(toolGraph([rm]), { gate: allowAll() });
      await expect(rm.invoke({ path: '/x' })).rejects.toThrow(/outside a call its gate judged/);
      expect(ran).toEqual([]);
    });
  });

  describe('when members are replaced after install', () => {
    it('a node replaced in nodes is stopped before it runs', async () => {
      const ran: string[] = [];
      const graph = toolGraph([recordingTool('rm', ran)]);
      installMultiagent(graph, { gate: allowAll() });
      const other = build([recordingTool('rm', ran)]).nodes.tools;
      Object.defineProperty(graph.nodes, 'tools', { value: other, writable: true, configurable: true });
      expect(await settle(graph.invoke(asking('rm', '/x')))).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
    });

    it("a tool pushed into a gated tool node's tools makes the node stop before it runs", async () => {
      const ran: string[] = [];
      const graph = toolGraph([recordingTool('rm', ran)]);
      installMultiagent(graph, { gate: allowAll() });
      (graph.nodes.tools.bound as unknown as { tools: unknown[] }).tools.push(recordingTool('late', ran));
      expect(await settle(graph.invoke(asking('late', '/x')))).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(audit(graph).nodes.find((n) => n.id === 'tools')?.status).toBe('ungated');
    });

    it("a tool's call cannot be reassigned after install", () => {
      const rm = recordingTool('rm', []);
      installMultiagent(toolGraph([rm]), { gate: allowAll() });
      expect(() => {
        (rm as unknown as { call: unknown }).call = () => 'ran';
      }).toThrow(TypeError);
    });
  });

  describe('when a tree is installed and uninstalled', () => {
    it('refuses a frozen tool node before changing anything, with every problem listed', () => {
      const ran: string[] = [];
      const frozen = new ToolNode([recordingTool('rm', ran)]);
      Object.freeze(frozen);
      const rm2 = recordingTool('rm2', ran);
      const graph = new StateGraph(MessagesAnnotation)
        .addNode('frozen', frozen)
        .addNode('open', new ToolNode([rm2]))
        .addNode('opaque', () => ({}))
        .addEdge(START, 'frozen')
        .addEdge('frozen', 'open')
        .addEdge('open', 'opaque')
        .addEdge('opaque', END)
        .compile({ name: 'g' });
      let error: unknown;
      try {
        installMultiagent(graph, { gate: allowAll() });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(UngateableError);
      expect((error as UngateableError).findings.map((f) => f.path.join('/'))).toEqual(['g/opaque', 'g/frozen']);
      expect(audit(graph).nodes.filter((n) => n.status === 'gated')).toEqual([]);
      expect(Object.hasOwn(rm2, 'call')).toBe(false);
    });

    it('rolls back every applied change when one fails midway', () => {
      const rm = recordingTool('rm', []);
      const graph = toolGraph([rm]);
      const source = gateSource({ gate: allowAll() }, 'test');
      const planned = planLangGraph(graph, source);
      expect(planned.mutations.map((m) => m.what)).toEqual([
        'graph "g"',
        'tool "rm" of tool node "tools"',
        'tool node "tools"',
      ]);
      // The tool node (the last mutation) is frozen after the plan was checked: applying it throws.
      const node = graph.nodes.tools.bound as object;
      Object.freeze(node);
      expect(() => applyLangGraph(planned, source)).toThrow(/rolled back/);
      expect(audit(graph).nodes.filter((n) => n.status === 'gated')).toEqual([]);
      expect(Object.hasOwn(graph, 'stream')).toBe(false);
      expect(Object.hasOwn(rm, 'call')).toBe(false);
      expect(Object.hasOwn(graph.nodes.tools, 'getNode')).toBe(false);
    });

    it('uninstall restores what was there: the tool runs ungated again', async () => {
      const ran: string[] = [];
      const graph = toolGraph([recordingTool('rm', ran)]);
      const [handle] = installMultiagent(graph, { gate: denyAll() });
      await graph.invoke(asking('rm', '/a'));
      expect(ran).toEqual([]);
      handle!.uninstall();
      expect(audit(graph).summary.gated).toBe(0);
      await graph.invoke(asking('rm', '/b'));
      expect(ran).toEqual(['rm({"path":"/b"})']);
    });
  });
});
