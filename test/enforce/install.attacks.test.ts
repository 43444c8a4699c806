/**
 * Attacks on install (`src/enforce/install.ts`): Proxies and getters that show gate-audit another object than
 * the SDK, frozen objects, and what runs swapped between a check and the SDK's read of it.
 */
import { BeforeNodeCallEvent, Graph, MultiAgentNode, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import {
  allowAll,
  audit,
  install,
  installMultiagent,
  isGated as isGatedAgent,
  UngateableError,
} from '../../src/index.js';
import { call, isolateEachTest, ran, recordingTool, runOrchestrator, say, scriptedAgent } from '../helpers/sdk.js';

isolateEachTest();

describe('install and installMultiagent (install.ts)', () => {
  describe('when a Proxy or a getter shows gate-audit another object than the SDK', () => {
    it('a Proxy around a plain agent is ungateable in the audit and refused by install [A6]', () => {
      const agent = scriptedAgent('a', [say('x')], { tools: [recordingTool('rm')] });
      const rogue = scriptedAgent('rogue', [say('x')]);
      const proxy = new Proxy(agent, {
        get: (t, k): unknown => (k === 'stream' ? rogue.stream.bind(rogue) : (Reflect.get(t, k) as unknown)),
      });
      const graph = new Graph({ id: 'g', nodes: [proxy], edges: [] });
      expect(audit(graph).nodes.find((n) => n.id === 'a')).toMatchObject({ status: 'ungateable', problem: 'proxy' });
      expect(() => installMultiagent(graph, { gate: allowAll() })).toThrow(UngateableError);
      // accept acknowledges remote and opaque nodes only: a Proxy is neither, so naming it is refused too.
      expect(() =>
        installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'g/a', reason: 'trust it' }] }),
      ).toThrow(
        expect.objectContaining({
          code: 'INVALID_ACCEPT',
          message: expect.stringMatching(/cannot be accepted/) as string,
        }),
      );
    });

    it('a getter on AgentNode._agent is refused before install, and cannot be defined after it [A6]', () => {
      const gated = scriptedAgent('d', [say('x')]);
      const rogue = scriptedAgent('d', [call('rm'), say('x')], { tools: [recordingTool('rm')] });
      const graph = new Graph({ id: 'g', nodes: [gated], edges: [] });
      const node = graph.nodes.get('d')!;
      let reads = 0;
      Object.defineProperty(node, '_agent', { get: () => (reads++ % 2 === 0 ? gated : rogue), configurable: true });
      expect(audit(graph).nodes.find((n) => n.id === 'd')).toMatchObject({ status: 'ungateable' });
      expect(() => installMultiagent(graph, { gate: allowAll() })).toThrow(/getter/);
      Object.defineProperty(node, '_agent', { value: gated, writable: true, configurable: true });
      installMultiagent(graph, { gate: allowAll() });
      expect(() => Object.defineProperty(node, '_agent', { get: () => rogue })).toThrow(TypeError);
    });
  });

  describe('when agents or orchestrators are frozen', () => {
    it('lists frozen agents and frozen orchestrators in one UngateableError, changing nothing [D]', () => {
      const frozenAgent = Object.freeze(scriptedAgent('cold', [say('x')]));
      const frozenSwarm = Object.freeze(new Swarm({ id: 'ice', nodes: [scriptedAgent('in', [say('x')])] }));
      const warm = scriptedAgent('warm', [say('x')]);
      const graph = new Graph({ id: 'g', nodes: [frozenAgent, frozenSwarm, warm], edges: [] });
      let error: unknown;
      try {
        installMultiagent(graph, { gate: allowAll() });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UngateableError);
      expect((error as UngateableError).findings.map((f) => `${f.path.join('/')}: ${f.reason}`)).toEqual([
        'g/cold: is frozen, so no gate can be attached to it',
        'g/ice: is a frozen Swarm, so no guard can be attached',
      ]);
      expect(isGatedAgent(warm)).toBe(false);
    });
  });

  describe('when what runs is swapped after install', () => {
    function swap(owner: unknown, key: string, value: unknown): unknown {
      try {
        (owner as Record<string, unknown>)[key] = value;
        return undefined;
      } catch (error) {
        return error;
      }
    }

    it('after installMultiagent the agent in an AgentNode or an AgentAsTool, node ids and edge ends are read-only [A5/A6]', () => {
      const helper = scriptedAgent('helper', [say('-')]);
      const tool = helper.asTool();
      const lead = scriptedAgent('lead', [say('-')], { tools: [tool] });
      const worker = scriptedAgent('worker', [say('-')]);
      const inner = new Graph({ id: 'inner', nodes: [scriptedAgent('x', [say('-')])], edges: [] });
      const graph = new Graph({
        id: 'g',
        nodes: [lead, worker, new MultiAgentNode({ orchestrator: inner })],
        edges: [['lead', 'worker']],
      });
      installMultiagent(graph, { gate: allowAll() });
      const rogue = scriptedAgent('rogue', [say('-')]);
      const node = graph.nodes.get('worker')!;
      const edge = (graph as unknown as { edges: object[] }).edges[0];
      for (const [owner, key] of [
        [node, '_agent'],
        [node, 'id'],
        [tool, '_agent'],
        [graph.nodes.get('inner'), '_orchestrator'],
        [edge, 'source'],
        [edge, 'target'],
        [graph, 'nodes'],
        [graph, 'edges'],
        [graph, '_sources'],
      ] as const) {
        expect(swap(owner, key, rogue), key).toBeInstanceOf(TypeError);
      }
      expect((node as unknown as { _agent: unknown })._agent).toBe(worker);
    });

    it('install(agent) makes the agent in its agent-as-tools read-only too [A5/A6]', () => {
      const helper = scriptedAgent('helper', [say('-')]);
      const tool = helper.asTool();
      const lead = scriptedAgent('lead', [say('-')], { tools: [tool] });
      install(lead, { gate: allowAll() });
      expect(swap(tool, '_agent', scriptedAgent('rogue', []))).toBeInstanceOf(TypeError);
    });

    it('a node hook that schedules an _agent swap for after the guard gets a TypeError, and the gated agent runs [A5/A6]', async () => {
      const worker = scriptedAgent('worker', [say('nothing to do')]);
      const graph = new Graph({ id: 'g', nodes: [worker], edges: [] });
      installMultiagent(graph, { gate: allowAll() });
      const rogue = scriptedAgent('rogue', [call('rm', { path: '/' }), say('-')], { tools: [recordingTool('rm')] });
      const node = graph.nodes.get('worker');
      const errors: unknown[] = [];
      graph.addHook(BeforeNodeCallEvent, () => {
        for (let ticks = 0; ticks < 40; ticks += 1) {
          let n = ticks;
          const later = (): void => {
            if (n-- > 0) queueMicrotask(later);
            else errors.push(swap(node, '_agent', rogue));
          };
          queueMicrotask(later);
        }
      });
      const { status } = await runOrchestrator(graph);
      expect(status).toBe('COMPLETED');
      expect(ran).toEqual([]);
      expect(errors).toHaveLength(40);
      expect(errors.every((e) => e instanceof TypeError)).toBe(true);
      expect(worker.model.calls).toBe(1);
    });
  });
});
