/**
 * Attacks on what gate-audit keeps in the SDK's objects (`src/frameworks/strands/sdk-mutations.ts`): a refusal's cancel
 * cleared by a stream consumer, a tool swapped after its decision locked it.
 */
import { BeforeToolCallEvent, type Plugin } from '@strands-agents/sdk';
import { AgentNode, BeforeNodeCallEvent, Graph } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { allowAll, type Gate, install, installMultiagent } from '../../../src/index.js';
import { agentGateMark } from '../../../src/walker/marks.js';
import {
  call,
  isolateEachTest,
  nodesOf,
  ran,
  recordingTool,
  say,
  scriptedAgent,
  toolResults,
} from '../../helpers/sdk.js';
import { rmOnce } from '../../helpers/attacks.js';

isolateEachTest();

describe('the kept cancel and the tool lock (sdk-mutations.ts)', () => {
  describe("when a stream consumer clears a refusal's cancel", () => {
    it("clearing a node guard's cancel on the streamed BeforeNodeCallEvent leaves the node cancelled", async () => {
      const c = scriptedAgent('c', [say('c')]);
      const d = scriptedAgent('d', [say('d')]);
      const graph = new Graph({ id: 'g', nodes: [c, d], edges: [['c', 'd']], maxSteps: 5 });
      installMultiagent(graph, { gate: allowAll() });
      nodesOf(graph).set('d', new AgentNode({ agent: rmOnce('d') }));
      const seen: unknown[] = [];
      try {
        for await (const event of graph.stream('go')) {
          if (event instanceof BeforeNodeCallEvent && event.cancel) {
            event.cancel = false;
            seen.push(event.cancel);
          }
        }
      } catch {
        // a stopped run may end the stream with an error: what matters is what ran
      }
      expect(seen).toEqual([expect.stringMatching(/^\[gate\] UNGATED NODE: node "d"/)]);
      expect(ran).toEqual([]);
    });

    it("clearing a tool refusal's cancel on the streamed BeforeToolCallEvent leaves the call refused", async () => {
      const agent = scriptedAgent('a', [call('rm', { path: '/' }), say('done')], { tools: [recordingTool('rm')] });
      install(agent, { gate: { name: 'no-rm', decide: () => ({ verdict: 'deny', reason: 'no rm' }) } });
      try {
        for await (const event of agent.stream('go')) {
          if (event instanceof BeforeToolCallEvent && event.cancel) event.cancel = false;
        }
      } catch {
        // the run stops: what matters is what ran
      }
      expect(ran).toEqual([]);
      expect(toolResults(agent)).toEqual(['error:[gate] BLOCKED: no rm | tool=<rm>, agent=<a>']);
    });
  });

  describe("when an agent-as-tool's agent is swapped after its decision", () => {
    it('an agent-as-tool added after install, swapped after the decision to an agent that only promises a gate: the swap throws, nothing runs', async () => {
      const noRm: Gate = {
        name: 'no-rm',
        decide: (r) => (r.toolName === 'rm' ? { verdict: 'deny', reason: 'no rm' } : { verdict: 'allow' }),
      };
      const helper = scriptedAgent('helper', [say('-')]);
      install(helper, { gate: noRm });
      const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')]);
      install(lead, { gate: noRm });
      const tool = helper.asTool();
      lead.toolRegistry.add(tool);
      // A plugin that only wears the GatePlugin mark: its initAgent installs nothing.
      const lookAlike: Plugin = { name: 'metrics', initAgent: (): void => undefined };
      Object.defineProperty(lookAlike, Symbol.for('gate-audit.gate-plugin.v1'), { value: { gate: noRm } });
      const rogue = scriptedAgent('helper', [call('rm', { path: '/' }), say('-')], {
        tools: [recordingTool('rm')],
        plugins: [lookAlike],
      });
      lead.addHook(BeforeToolCallEvent, (event) => {
        if (event.toolUse.name === 'helper') (tool as unknown as { _agent: unknown })._agent = rogue;
      });
      // The tool is read-only after its decision: the swap itself throws, and nothing runs.
      await expect(lead.invoke('go')).rejects.toThrow(/Cannot assign to read only property '_agent'/);
      expect(ran).toEqual([]);
      expect(agentGateMark(rogue)).toBeUndefined();
    });
  });
});
