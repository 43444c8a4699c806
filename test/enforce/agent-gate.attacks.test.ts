/**
 * Attacks on an agent's gate (`src/enforce/agent-gate.ts`): a look-alike GatePlugin mark, a forged gate mark,
 * registries tampered with after install.
 */
import { type Agent, BeforeToolCallEvent, type Plugin } from '@strands-agents/sdk';
import { AgentNode, Graph, Node, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import {
  allowAll,
  audit,
  configureGate,
  denyAll,
  type Gate,
  GOVERNS,
  type GovernanceDeclaration,
  install,
  installMultiagent,
  isGated as isGatedAgent,
} from '../../src/index.js';
import { agentGateMark } from '../../src/walker/marks.js';
import {
  call,
  handoff,
  isolateEachTest,
  nodesOf,
  ran,
  recordingTool,
  runOrchestrator,
  say,
  scriptedAgent,
  toolResults,
} from '../helpers/sdk.js';
import { forgeGateMark } from '../helpers/attacks.js';

isolateEachTest();

describe("an agent's gate (agent-gate.ts)", () => {
  describe('when an agent carries a look-alike GatePlugin mark (the mark without the plugin)', () => {
    /** A plugin that does nothing, wearing the GatePlugin mark (optionally naming a gate). */
    function fakeGatePlugin(gate?: unknown): Plugin {
      const plugin = { name: 'metrics', initAgent: (): void => undefined };
      Object.defineProperty(plugin, Symbol.for('gate-audit.gate-plugin.v1'), {
        value: gate === undefined ? {} : { gate },
      });
      return plugin;
    }

    it('installMultiagent gives its agent the gate the mark names: nothing runs ungated [A6]', async () => {
      configureGate(denyAll('nothing may run'));
      const worker = scriptedAgent('worker', [call('rm', { path: '/' }), say('done')], {
        tools: [recordingTool('rm')],
        plugins: [fakeGatePlugin()],
      });
      const graph = new Graph({ id: 'g', nodes: [worker], edges: [] });
      installMultiagent(graph);
      expect(agentGateMark(worker)).toBeDefined();
      const { status } = await runOrchestrator(graph);
      expect(status).toBe('COMPLETED');
      expect(ran).toEqual([]);
      expect(worker.model.calls).toBe(2);
    });

    it('a node swapped in later with one: the node guard installs the named gate before it runs [A6]', async () => {
      const gate: Gate = {
        name: 'no-rm',
        decide: (r) => (r.toolName === 'rm' ? { verdict: 'deny', reason: 'no rm' } : { verdict: 'allow' }),
      };
      const worker = scriptedAgent('worker', [say('done')]);
      const swarm = new Swarm({ id: 's', nodes: [scriptedAgent('lead', [handoff('worker', 'go'), say('-')]), worker] });
      installMultiagent(swarm, { gate });
      const rogue = scriptedAgent('worker', [call('rm', { path: '/' }), say('done')], {
        tools: [recordingTool('rm')],
        plugins: [fakeGatePlugin(agentGateMark(worker)?.gateKey)],
      });
      nodesOf(swarm).set('worker', new AgentNode({ agent: rogue }));
      await runOrchestrator(swarm);
      expect(ran).toEqual([]);
      expect(agentGateMark(rogue)?.gateKey).toBe(gate);
      expect(rogue.model.calls).toBeGreaterThan(0);
    });

    it('an agent used as a tool that carries one gets that gate before its call runs [A6]', async () => {
      const helper = scriptedAgent('helper', [call('rm', { path: '/' }), say('-')], {
        tools: [recordingTool('rm')],
        plugins: [fakeGatePlugin(denyAll('helpers may not rm'))],
      });
      const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')], { tools: [helper.asTool()] });
      install(lead, { gate: allowAll() });
      await lead.invoke('go');
      expect(ran).toEqual([]);
      expect(toolResults(helper)).toEqual(['error:[gate] BLOCKED: helpers may not rm | tool=<rm>, agent=<helper>']);
    });

    /** A custom node that declares the agent it runs and runs whichever `pick()` names at that moment. */
    function declaringNode(pick: () => Agent): Node {
      class Step extends Node {
        constructor() {
          super('step', {});
        }
        [GOVERNS](): GovernanceDeclaration {
          return { agents: [pick()] };
        }
        async *handle(input: unknown): ReturnType<Node['handle']> {
          yield* [];
          const result = await pick().invoke(input as string);
          return { content: result.lastMessage.content };
        }
      }
      return new Step();
    }

    it("a declared custom node's agent swapped for one that carries it gets the named gate before it runs [A6]", async () => {
      configureGate(denyAll('nothing may run'));
      const worker = scriptedAgent('worker', [say('done')]);
      const rogue = scriptedAgent('rogue', [call('rm', { path: '/' }), say('done')], {
        tools: [recordingTool('rm')],
        plugins: [fakeGatePlugin()],
      });
      let current = worker;
      const graph = new Graph({ id: 'g', nodes: [declaringNode(() => current)], edges: [] });
      installMultiagent(graph);
      current = rogue;
      await runOrchestrator(graph);
      expect(ran).toEqual([]);
      expect(agentGateMark(rogue)).toBeDefined();
    });

    it("a declared custom node's agent swapped for one gated by another gate than the tree's: blocked, cancelled [A6]", async () => {
      const worker = scriptedAgent('worker', [say('done')]);
      const rogue = scriptedAgent('rogue', [call('rm', { path: '/' }), say('done')], { tools: [recordingTool('rm')] });
      install(rogue, { gate: allowAll() });
      let current = worker;
      const graph = new Graph({ id: 'g', nodes: [declaringNode(() => current)], edges: [] });
      installMultiagent(graph, { gate: denyAll() });
      current = rogue;
      expect(audit(graph).nodes.find((n) => n.id === 'rogue')).toMatchObject({ status: 'blocked' });
      const { cancelled } = await runOrchestrator(graph);
      expect(ran).toEqual([]);
      expect(cancelled.step).toMatch(/gated by "allow-all", not by this tree's gate/);
    });
  });

  describe('when an agent carries a forged gate mark (hooks of its own, a gate read from another agent)', () => {
    const noRm: Gate = {
      name: 'no-rm',
      decide: (r) => (r.toolName === 'rm' ? { verdict: 'deny', reason: 'no rm' } : { verdict: 'allow' }),
    };

    it('a node swapped in later with one gets a real gate from the node guard before it runs [A6]', async () => {
      const worker = scriptedAgent('worker', [say('done')]);
      const swarm = new Swarm({ id: 's', nodes: [scriptedAgent('lead', [handoff('worker', 'go'), say('-')]), worker] });
      installMultiagent(swarm, { gate: noRm });
      const rogue = scriptedAgent('worker', [call('rm', { path: '/' }), say('done')], { tools: [recordingTool('rm')] });
      forgeGateMark(rogue, agentGateMark(worker)?.gateKey);
      expect(isGatedAgent(rogue)).toBe(true);
      nodesOf(swarm).set('worker', new AgentNode({ agent: rogue }));
      await runOrchestrator(swarm);
      expect(ran).toEqual([]);
      expect(rogue.model.calls).toBeGreaterThan(0);
    });

    it('installMultiagent installs its own gate on an agent that carries one [A6]', async () => {
      const worker = scriptedAgent('worker', [call('rm', { path: '/' }), say('done')], {
        tools: [recordingTool('rm')],
      });
      forgeGateMark(worker, noRm);
      const graph = new Graph({ id: 'g', nodes: [worker], edges: [] });
      expect(installMultiagent(graph, { gate: noRm }).map((h) => h.agent)).toEqual([worker]);
      await runOrchestrator(graph);
      expect(ran).toEqual([]);
    });

    it('an agent used as a tool that carries one gets a real gate before its call runs [A6]', async () => {
      const helper = scriptedAgent('helper', [call('rm', { path: '/' }), say('-')], { tools: [recordingTool('rm')] });
      forgeGateMark(helper, noRm);
      const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')], { tools: [helper.asTool()] });
      install(lead, { gate: noRm });
      await lead.invoke('go');
      expect(ran).toEqual([]);
    });
  });

  describe("when the agent's registries are tampered with after install", () => {
    it('an array given another own property is not a plain array: the agent reads as not gated', () => {
      const agent = scriptedAgent('victim', [say('done')]);
      install(agent, { gate: denyAll() });
      const fields = agent as unknown as Record<string, { _callbacks?: Map<unknown, unknown[]> }>;
      const list = fields._hooksRegistry!._callbacks!.get(BeforeToolCallEvent)!;
      Object.defineProperty(list, 'extra', { value: 1 });
      expect(isGatedAgent(agent)).toBe(false);
    });

    it("an agent's hook and middleware registries cannot be replaced after install", () => {
      const agent = scriptedAgent('victim', [say('done')]);
      install(agent, { gate: denyAll() });
      const fields = agent as unknown as Record<string, object>;
      for (const key of ['_hooksRegistry', '_middlewareRegistry', '_toolRegistry']) {
        const Ctor = (Object.getPrototypeOf(fields[key]) as { constructor: new () => object }).constructor;
        expect(() => {
          fields[key] = new Ctor();
        }, key).toThrow(TypeError);
      }
    });
  });
});
