/**
 * Attacks on the node guard (`src/enforce/node-guard.ts`): the node that runs is not the one the orchestrator
 * chose, a node map that lies, a declaration that throws, a node or nested orchestrator under another gate.
 */
import { type Agent, type Plugin } from '@strands-agents/sdk';
import { AgentNode, Edge, Graph, MultiAgentHandoffEvent, Node, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import {
  allowAll,
  audit,
  type Gate,
  GatePlugin,
  GOVERNS,
  type GovernanceDeclaration,
  install,
  installMultiagent,
  isGated as isGatedAgent,
} from '../../src/index.js';
import {
  call,
  edgesOf,
  handoff,
  isolateEachTest,
  nodesOf,
  ran,
  recordingTool,
  runOrchestrator,
  say,
  scriptedAgent,
} from '../helpers/sdk.js';
import { forgeGateMark, recordingGate, rmOnce } from '../helpers/attacks.js';

isolateEachTest();

describe('the node guard (node-guard.ts)', () => {
  describe('when the node that runs is not the node that was judged', () => {
    it('a node added under a key that is not its id is refused, and the audit says the topology is inconsistent [A1]', async () => {
      // Both agents keep the default id "agent": the SDK runs nodes.get("helper") but names it "agent".
      const gated = rmOnce(undefined);
      const lead = scriptedAgent('lead', [handoff('helper', 'go on'), say('-')]);
      const swarm = new Swarm({ id: 's', nodes: [lead, gated], maxSteps: 4 });
      installMultiagent(swarm, { gate: allowAll() });
      const rogue = rmOnce(undefined);
      nodesOf(swarm).set('helper', new AgentNode({ agent: rogue }));
      const report = audit(swarm);
      const root = report.nodes.find((n) => n.path.length === 1)!;
      expect(root).toMatchObject({ status: 'ungateable', problem: 'topology' });
      expect(report.nodes.find((n) => n.path.join('/') === 's/helper')?.status).toBe('ungated');
      expect(report.nodes.some((n) => n.status === 'blocked')).toBe(false);
      const { cancelled } = await runOrchestrator(swarm);
      expect(ran).toEqual([]);
      expect(cancelled.agent).toMatch(/UNGATED NODE: node "agent" .* has an inconsistent topology/);
    });

    it('a Swarm handoff hook that swaps the chosen node back before the guard looks gets the node cancelled [A1]', async () => {
      const gate = allowAll();
      const lead = scriptedAgent('lead', [handoff('helper', 'go on'), say('-')]);
      const helper = scriptedAgent('helper', [call('ls'), handoff(undefined, 'done'), say('-')], {
        tools: [recordingTool('ls')],
      });
      const swarm = new Swarm({ id: 's', nodes: [lead, helper], maxSteps: 4 });
      installMultiagent(swarm, { gate });
      const gatedNode = swarm.nodes.get('helper')!;
      const rogue = new AgentNode({ agent: rmOnce('helper') });
      // The map holds the rogue when the SDK chooses the target, and the gated node again when the guard looks.
      nodesOf(swarm).set('helper', rogue);
      swarm.addHook(MultiAgentHandoffEvent, () => void nodesOf(swarm).set('helper', gatedNode));
      const { status, cancelled } = await runOrchestrator(swarm);
      expect(ran).toEqual([]);
      expect(cancelled.helper).toMatch(/was swapped after the orchestrator chose it/);
      expect(status).not.toBe('COMPLETED');
    });

    it('a Graph handoff hook that restores the edge after the SDK took the rogue gets it cancelled [A1]', async () => {
      const c = scriptedAgent('c', [say('c')]);
      const d = scriptedAgent('d', [call('ls'), say('d')], { tools: [recordingTool('ls')] });
      const graph = new Graph({ id: 'g', nodes: [c, d], edges: [['c', 'd']], maxSteps: 5 });
      installMultiagent(graph, { gate: allowAll() });
      const gatedD = graph.nodes.get('d')!;
      const rogue = new AgentNode({ agent: rmOnce('d') });
      // An edge's ends are read-only after install; the edge list is not, so the edge object is swapped.
      const edges = edgesOf(graph);
      const edge = edges[0]!;
      expect(() => {
        (edge as unknown as { target: unknown }).target = rogue;
      }).toThrow(TypeError);
      edges[0] = new Edge({ source: graph.nodes.get('c')!, target: rogue });
      nodesOf(graph).set('d', rogue);
      graph.addHook(MultiAgentHandoffEvent, () => {
        edges[0] = edge;
        nodesOf(graph).set('d', gatedD);
      });
      const { cancelled } = await runOrchestrator(graph);
      expect(ran).toEqual([]);
      expect(cancelled.d).toMatch(/UNGATED NODE: node "d"/);
    });

    it('the Graph resume path (a walk over nodes) refuses a node whose key is not its id [A1]', async () => {
      const gate = recordingGate((r) =>
        r.toolName === 'rm' ? { verdict: 'ask', reason: 'needs a human' } : { verdict: 'allow' },
      );
      const first = scriptedAgent('first', [say('first done')]);
      const asker = scriptedAgent('asker', [call('rm', { path: '/ask' }), say('-')], { tools: [recordingTool('rm')] });
      const graph = new Graph({ id: 'g', nodes: [first, asker], edges: [['first', 'asker']], maxSteps: 6 });
      installMultiagent(graph, {
        gate: { ...gate, approval: { via: 'interrupt', check: () => ({ granted: false, reason: 'no' }) } },
      });
      const paused = await graph.invoke('go');
      expect(paused.status).toBe('INTERRUPTED');
      // Before the graph resumes from its own state, a node is slipped in under another key with the id of a
      // completed node: the resume walks the map and runs it under that id.
      nodesOf(graph).set('late', new AgentNode({ agent: rmOnce('first') }));
      const { cancelled } = await runOrchestrator(graph, 'again');
      expect(ran).toEqual([]);
      expect(cancelled.first).toMatch(/inconsistent topology/);
    });
  });

  describe('when the node map has an own get or is a Proxy', () => {
    it('a node map with an own get, or a Proxy for nodes, runs nothing [A6]', async () => {
      for (const swap of ['own-get', 'proxy'] as const) {
        ran.length = 0;
        const d = scriptedAgent('d', [call('ls'), say('x')], { tools: [recordingTool('ls')] });
        const graph = new Graph({ id: 'g', nodes: [d], edges: [] });
        installMultiagent(graph, { gate: allowAll() });
        const map = graph.nodes as Map<string, unknown>;
        if (swap === 'own-get') Object.defineProperty(map, 'get', { value: Map.prototype.get.bind(map) });
        else {
          // The field is read-only after install; before it, the walk refuses a Proxy (see above).
          expect(() => {
            (graph as unknown as { nodes: unknown }).nodes = new Proxy(map, {});
          }).toThrow(TypeError);
          continue;
        }
        const outcome = await runOrchestrator(graph);
        expect({ swap, ran }).toEqual({ swap, ran: [] });
        expect(outcome.cancelled.d).toMatch(/not a plain Map/);
      }
    });
  });

  describe("when a node's declaration throws at run time", () => {
    it('the node guard cancels a node whose declaration throws while it is read at run time [D]', async () => {
      const worker = scriptedAgent('worker', [call('rm'), say('-')], { tools: [recordingTool('rm')] });
      let armed = false;
      class Step extends Node {
        constructor() {
          super('step', {});
        }
        [GOVERNS](): GovernanceDeclaration {
          // A declaration whose getter throws once armed: reading it fails outside the declaration call itself.
          return {
            get agents(): readonly unknown[] {
              if (armed) throw new Error('declaration broke');
              return [worker];
            },
          };
        }
        async *handle(input: unknown): ReturnType<Node['handle']> {
          yield* [];
          const result = await worker.invoke(input as string);
          return { content: result.lastMessage.content };
        }
      }
      const graph = new Graph({ id: 'g', nodes: [new Step()], edges: [] });
      installMultiagent(graph, { gate: allowAll() });
      armed = true;
      const { cancelled } = await runOrchestrator(graph);
      expect(ran).toEqual([]);
      expect(cancelled.step).toMatch(/could not be checked: declaration broke/);
    });
  });

  describe("when a node is swapped in under another gate than its tree's", () => {
    const noRm: Gate = {
      name: 'no-rm',
      decide: (r) => (r.toolName === 'rm' ? { verdict: 'deny', reason: 'no rm' } : { verdict: 'allow' }),
    };
    // Not rmAgent of helpers/sdk.ts: the node `worker` is built with the plugins each way under test gives it.
    const rmAgent = (plugins: Plugin[] = []): ReturnType<typeof scriptedAgent> =>
      scriptedAgent('worker', [call('rm', { path: '/' }), say('done')], { tools: [recordingTool('rm')], plugins });
    const ways: [string, () => Agent][] = [
      [
        'gated by install() with an allow-all gate',
        () => {
          const rogue = rmAgent();
          install(rogue, { gate: allowAll() });
          return rogue;
        },
      ],
      ['waiting on a GatePlugin with an allow-all gate', () => rmAgent([new GatePlugin({ gate: allowAll() })])],
      [
        'carrying a forged gate mark that names an allow-all gate',
        () => {
          const rogue = rmAgent();
          forgeGateMark(rogue, allowAll());
          expect(isGatedAgent(rogue)).toBe(true);
          return rogue;
        },
      ],
    ];
    for (const [what, make] of ways) {
      it(what, async () => {
        const worker = scriptedAgent('worker', [say('done')]);
        const swarm = new Swarm({
          id: 's',
          nodes: [scriptedAgent('lead', [handoff('worker', 'go'), say('-')]), worker],
        });
        installMultiagent(swarm, { gate: noRm });
        nodesOf(swarm).set('worker', new AgentNode({ agent: make() }));
        // The audit says what the guard will do.
        const row = audit(swarm).nodes.find((n) => n.id === 'worker');
        expect(row?.status).toBe('blocked');
        expect(row?.reason).toMatch(/not by its tree's gate "no-rm": the node guard cancels it at run time$/);
        const { cancelled } = await runOrchestrator(swarm);
        expect(ran).toEqual([]);
        expect(cancelled.worker).toMatch(
          /UNGATED NODE: node "worker" in "s" runs an agent gated by "[^"]+", not by this tree's gate "no-rm" \| gate it with the tree's gate: call installMultiagent\(orchestrator\) after adding or swapping nodes$/,
        );
      });
    }
  });

  describe("when a nested orchestrator is guarded for another gate than the tree's", () => {
    const noRm: Gate = {
      name: 'no-rm',
      decide: (r) => (r.toolName === 'rm' ? { verdict: 'deny', reason: 'no rm' } : { verdict: 'allow' }),
    };

    /** A Swarm under no-rm whose `worker` slot now holds a Graph guarded for allow-all, its agent calling rm. */
    function swappedSwarm(): Swarm {
      const worker = scriptedAgent('worker', [say('done')]);
      const swarm = new Swarm({ id: 's', nodes: [scriptedAgent('lead', [handoff('worker', 'go'), say('-')]), worker] });
      installMultiagent(swarm, { gate: noRm });
      const rogue = scriptedAgent('rogue', [call('rm', { path: '/' }), say('done')], { tools: [recordingTool('rm')] });
      const inner = new Graph({ id: 'worker', nodes: [rogue], edges: [] });
      installMultiagent(inner, { gate: allowAll() });
      nodesOf(swarm).set('worker', new AgentNode({ agent: inner as never }));
      return swarm;
    }

    it('swapped into a node slot: the guard cancels it and nothing runs under the other gate', async () => {
      const { cancelled } = await runOrchestrator(swappedSwarm());
      expect(ran).toEqual([]);
      expect(cancelled.worker).toMatch(/guarded for "allow-all", not for this tree's gate "no-rm"/);
    });

    it('swapped into a node slot: the audit calls it blocked and the tree is not fully gated', () => {
      const report = audit(swappedSwarm());
      expect(report.nodes.find((n) => n.id === 'worker' && (n.kind === 'graph' || n.kind === 'swarm'))).toMatchObject({
        status: 'blocked',
      });
    });

    it('declared by a custom node after install: blocked in the audit, cancelled by the guard', async () => {
      const worker = scriptedAgent('worker', [say('done')]);
      const rogue = scriptedAgent('rogue', [call('rm', { path: '/' }), say('done')], { tools: [recordingTool('rm')] });
      const inner = new Graph({ id: 'inner', nodes: [rogue], edges: [] });
      installMultiagent(inner, { gate: allowAll() });
      let current: Agent | Graph = worker;
      class Step extends Node {
        constructor() {
          super('step', {});
        }
        [GOVERNS](): GovernanceDeclaration {
          return { agents: [current] };
        }
        async *handle(input: unknown): ReturnType<Node['handle']> {
          yield* [];
          await current.invoke(input as string);
          return { content: [] };
        }
      }
      const graph = new Graph({ id: 'g', nodes: [new Step()], edges: [] });
      installMultiagent(graph, { gate: noRm });
      current = inner;
      expect(audit(graph).nodes.find((n) => n.id === 'inner')).toMatchObject({ status: 'blocked' });
      const { cancelled } = await runOrchestrator(graph);
      expect(ran).toEqual([]);
      expect(cancelled.step).toMatch(/guarded for "allow-all"/);
    });
  });
});
