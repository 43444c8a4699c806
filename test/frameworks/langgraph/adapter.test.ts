/**
 * What the LangGraph adapter makes of the tools a `createAgent` agent is given: a local tool is gated at its tool
 * node; a provider (server-side) tool never reaches a tool node, so it is a row of its own, `ungateable` until
 * accepted; a runnable used as a tool (`graph.asTool()`) reaches the tool node but what it runs is not walked, so
 * its tool node is `ungateable`, said as such (it is not a provider tool).
 */
import { createAgent } from 'langchain';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { tool } from '@langchain/core/tools';
import { allowAll, assertFullyGated, audit, GOVERNS, installMultiagent, UngateableError } from '../../../src/index.js';
import { callsOnce, recordingTool } from '../../helpers/langgraph.js';

const rows = (root: unknown): string[] => audit(root).nodes.map((n) => `${n.path.join('/')}:${n.status}`);

describe('the LangGraph adapter, the tools of a createAgent agent', () => {
  describe('when one is a provider (server-side) tool', () => {
    const build = () =>
      createAgent({
        model: callsOnce('read', { path: 'a' }),
        tools: [recordingTool('read', []), { type: 'web_search_preview' }],
        name: 'assistant',
      });

    it('gives it a row of its own, ungateable, and refuses to install until it is accepted', () => {
      const agent = build();
      expect(rows(agent)).toEqual([
        'assistant:ungated',
        'assistant/tools:ungated',
        'assistant/tool:web_search_preview:ungateable',
      ]);
      expect(() => installMultiagent(agent, { gate: allowAll() })).toThrow(UngateableError);
      installMultiagent(agent, {
        gate: allowAll(),
        accept: [{ path: 'assistant/tool:web_search_preview', reason: 'search runs at the provider' }],
      });
      expect(rows(agent)).toEqual([
        'assistant:gated',
        'assistant/tools:gated',
        'assistant/tool:web_search_preview:accepted',
      ]);
      // Accepted at install, it is read back as accepted (as an accepted node is): the tree asserts fully gated.
      expect(() => assertFullyGated(agent)).not.toThrow();
    });
  });

  describe('when one is a tool that runs another agent and declares it', () => {
    it('walks the agent under the tool, gates it at install, and its tools run under the gate', async () => {
      const ran: string[] = [];
      const inner = createAgent({
        model: callsOnce('rm', { path: '/' }),
        tools: [recordingTool('rm', ran)],
        name: 'helper',
      });
      const ask = tool(
        async ({ question }: { question: string }) => {
          await inner.invoke({ messages: [{ role: 'user', content: question }] });
          return 'asked';
        },
        { name: 'ask_helper', description: 'asks the helper', schema: z.object({ question: z.string() }) },
      );
      Object.assign(ask, { [GOVERNS]: () => ({ agents: [inner.graph] }) });
      const outer = createAgent({ model: callsOnce('ask_helper', { question: 'go' }), tools: [ask], name: 'outer' });
      expect(rows(outer)).toEqual([
        'outer:ungated',
        'outer/tools:ungated',
        'outer/tools/ask_helper:ungated',
        'outer/tools/ask_helper/tools:ungated',
      ]);
      const judged: string[] = [];
      installMultiagent(outer, {
        gate: {
          name: 'no-rm',
          decide: (request) => {
            judged.push(request.toolName);
            return request.toolName === 'rm' ? { verdict: 'deny', reason: 'no rm' } : { verdict: 'allow' };
          },
        },
      });
      expect(audit(outer).summary).toMatchObject({ ungated: 0, ungateable: 0 });
      await outer.invoke({ messages: [{ role: 'user', content: 'hi' }] });
      expect(judged).toEqual(['ask_helper', 'rm']);
      expect(ran).toEqual([]);
    });

    it("a declaration that throws is the tool's problem, and install refuses it", () => {
      const ask = tool(() => 'asked', { name: 'ask_helper', description: 'asks', schema: z.object({}) });
      Object.assign(ask, {
        [GOVERNS]: () => {
          throw new Error('not built yet');
        },
      });
      const outer = createAgent({ model: callsOnce('ask_helper', {}), tools: [ask], name: 'outer' });
      expect(audit(outer).nodes.find((n) => n.path.join('/') === 'outer/tools/ask_helper')).toMatchObject({
        status: 'ungateable',
        reason:
          'is a tool whose declaration of what it runs cannot be read: its governance declaration threw: not built yet',
      });
      expect(() => installMultiagent(outer, { gate: allowAll() })).toThrow(UngateableError);
    });
  });

  describe('when one is a runnable used as a tool (asTool)', () => {
    it('says its tool node holds a runnable whose run is not walked (not a provider tool), and refuses to install', () => {
      const inner = createAgent({ model: callsOnce('rm', { path: '/' }), tools: [recordingTool('rm', [])] });
      const asTool = inner.graph.asTool({
        name: 'ask_inner',
        description: 'asks the inner agent',
        schema: z.object({ messages: z.array(z.unknown()) }),
      });
      const outer = createAgent({ model: callsOnce('ask_inner', { messages: [] }), tools: [asTool], name: 'outer' });
      const report = audit(outer);
      expect(rows(outer)).toEqual(['outer:ungated', 'outer/tools:ungateable']);
      expect(report.nodes[1]?.reason).toBe(
        'holds "ask_inner", a runnable used as a tool (asTool()): what it runs is not walked, so an agent or a tool behind it would run ungated',
      );
      expect(() => installMultiagent(outer, { gate: allowAll() })).toThrow(
        /"outer › tools" holds "ask_inner", a runnable used as a tool \(asTool\(\)\).* \| put the graph it runs in the tree as a node or a declared subgraph, or remove it/,
      );
    });
  });
});
