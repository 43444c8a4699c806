import { A2AAgent } from '@strands-agents/sdk/a2a';
import { AgentNode, Graph, MultiAgentNode, Node, Swarm } from '@strands-agents/sdk/multiagent';
import { GOVERNS, type GovernanceDeclaration } from '../../src/index.js';
import { describe, expect, it } from 'vitest';
import { walk } from '../../src/walker/walk.js';
import { buildResearchGraph } from '../../fixtures/graphs/research-graph.js';
import { buildSupportSwarm } from '../../fixtures/graphs/support-swarm.js';
import { say, scriptedAgent } from '../helpers/sdk.js';
import { nodesOf } from '../helpers/sdk.js';

/** A structural fingerprint of everything a walk could touch, to prove it touched nothing. */
function fingerprint(root: Graph | Swarm): string {
  const seen = new Set<unknown>();
  const parts: string[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (depth > 6 || typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (value instanceof Map) {
      parts.push(`map:${value.size}`);
      for (const [k, v] of value) {
        parts.push(String(k));
        if (Array.isArray(v)) parts.push(`arr:${v.length}`);
        visit(v, depth + 1);
      }
      return;
    }
    for (const key of Reflect.ownKeys(value)) {
      const v = (value as Record<PropertyKey, unknown>)[key];
      parts.push(`${String(key)}:${typeof v}${Array.isArray(v) ? v.length : ''}`);
      visit(v, depth + 1);
    }
  };
  visit(root, 0);
  return parts.join('|');
}

describe('walk', () => {
  describe('when a graph nests a swarm', () => {
    it('finds every agent once, with its path, and the edges', () => {
      const graph = buildResearchGraph();
      const inventory = walk(graph);
      expect(inventory.entries.map((e) => [e.path.join('/'), e.kind])).toEqual([
        ['research', 'graph'],
        ['research/planner', 'agent'],
        ['research/research-team', 'swarm'],
        ['research/research-team/searcher', 'agent'],
        ['research/research-team/summarizer', 'agent'],
        ['research/writer', 'agent'],
      ]);
      expect(inventory.agents.map((a) => a.agent.id)).toEqual(['planner', 'searcher', 'summarizer', 'writer']);
      expect(inventory.orchestrators.map((o) => o.path.join('/'))).toEqual(['research', 'research/research-team']);
      expect(inventory.edges.map((e) => `${e.from.join('/')}→${e.to.join('/')}`)).toEqual([
        'research/planner→research/research-team',
        'research/research-team→research/writer',
      ]);
      expect(inventory.findings).toEqual([]);
    });

    it('changes nothing on the objects it walks (no hook, no init, no run)', () => {
      const graph = buildResearchGraph();
      const before = fingerprint(graph);
      walk(graph);
      expect(fingerprint(graph)).toBe(before);
      for (const agent of walk(graph).agents)
        expect((agent.agent as unknown as { _initialized: boolean })._initialized).toBe(false);
    });
  });

  describe('when agents and orchestrators nest inside each other', () => {
    it('walks into agents used as tools, recursively', () => {
      const inventory = walk(buildSupportSwarm());
      expect(inventory.entries.map((e) => [e.path.join('/'), e.kind])).toEqual([
        ['support', 'swarm'],
        ['support/triage', 'agent'],
        ['support/billing', 'agent'],
        ['support/billing/refund_checker', 'agent-tool'],
      ]);
    });

    it('walks an AgentNode holding a Graph, and a Graph inside a Swarm', () => {
      const inner = new Graph({ id: 'inner', nodes: [scriptedAgent('deep', [say('x')])], edges: [] });
      const middle = new Swarm({ id: 'middle', nodes: [scriptedAgent('m1', [say('x')]), inner as never] });
      const outer = new Graph({ id: 'outer', nodes: [{ agent: middle } as never], edges: [] });
      expect(walk(outer).entries.map((e) => `${e.path.join('/')}:${e.kind}`)).toEqual([
        'outer:graph',
        'outer/middle:swarm',
        'outer/middle/m1:agent',
        'outer/middle/inner:graph',
        'outer/middle/inner/deep:agent',
      ]);
    });
  });

  describe('when the walk meets an object again', () => {
    it('visits a shared agent once and points later places at the first', () => {
      const shared = scriptedAgent('shared', [say('x')]);
      const user = scriptedAgent('user', [say('x')], { tools: [shared] });
      const graph = new Graph({ id: 'g', nodes: [shared, user], edges: [] });
      const inventory = walk(graph);
      expect(inventory.agents.map((a) => a.agent.id)).toEqual(['shared', 'user']);
      expect(inventory.entries.find((e) => e.path.join('/') === 'g/user/shared')?.sameAs).toEqual(['g', 'shared']);
    });

    it('terminates on an orchestrator nested in itself and reports the cycle', () => {
      const inner = new Swarm({ id: 'loop', nodes: [scriptedAgent('a', [say('x')])] });
      const outer = new Graph({ id: 'outer', nodes: [inner], edges: [] });
      nodesOf(inner).set('back', new MultiAgentNode({ orchestrator: outer }));
      const inventory = walk(outer);
      // Nested under a key that is not its id, the back edge also makes the inner topology inconsistent.
      expect(inventory.findings.map((f) => [f.path.join('/'), f.kind])).toEqual([
        ['outer/loop', 'topology'],
        ['outer/loop/back', 'cycle'],
      ]);
    });

    it('terminates on agents that use each other as tools', () => {
      const a = scriptedAgent('a', [say('x')]);
      const b = scriptedAgent('b', [say('x')], { tools: [a] });
      a.toolRegistry.add(b.asTool());
      const inventory = walk(new Graph({ id: 'g', nodes: [a], edges: [] }));
      expect(inventory.agents.map((x) => x.agent.id)).toEqual(['a', 'b']);
    });
  });

  describe('when an executor is remote, custom or patched', () => {
    it('classifies remote, custom and patched executors as problems, with a reason and a fix each', () => {
      class ScriptNode extends Node {
        override readonly type = 'scriptNode';
        // eslint-disable-next-line require-yield, @typescript-eslint/require-await
        async *handle(): AsyncGenerator<never, never> {
          throw new Error('not run in this test');
        }
      }
      const patched = scriptedAgent('patched', [say('x')]);
      patched.stream = patched.stream.bind(patched);
      const graph = new Graph({
        id: 'g',
        nodes: [
          new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/a2a' }),
          new ScriptNode('script', {}),
          { id: 'plain', invoke: () => undefined, stream: () => undefined } as never,
          patched,
        ],
        edges: [],
      });
      const findings = walk(graph).findings;
      expect(findings.map((f) => [f.path.join('/'), f.kind])).toEqual([
        ['g/remote', 'remote'],
        ['g/script', 'custom-node'],
        ['g/plain', 'foreign-executor'],
        ['g/patched', 'agent-override'],
      ]);
      for (const f of findings) {
        expect(f.reason.length).toBeGreaterThan(10);
        expect(f.fix.length).toBeGreaterThan(10);
      }
      expect(findings[3]?.reason).toContain('"stream"');
    });
  });

  describe('when the Strands views are read from the shared walk', () => {
    const edgesOf = (root: Graph): string[] =>
      walk(root).edges.map((e) => `${e.from.join('/')}→${e.to.join('/')}${e.conditional ? ' (if)' : ''}`);

    it("names a graph's edges by where their nodes sit, a node keyed apart from its id included", () => {
      const inner = new Graph({ id: 'inner', nodes: [scriptedAgent('i', [say('x')])], edges: [] });
      const graph = new Graph({ id: 'g', nodes: [scriptedAgent('a', [say('x')]), inner], edges: [['a', 'inner']] });
      for (const [id, key] of [
        ['a', 'first'],
        ['inner', 'sub'],
      ] as const) {
        const node = nodesOf(graph).get(id)!;
        nodesOf(graph).delete(id);
        nodesOf(graph).set(key, node);
      }
      // The edge's ends are the node objects now keyed `first` and `sub`: their places, not their ids.
      expect(edgesOf(graph)).toEqual(['g/first→g/sub']);
    });

    it('names an edge whose node was swapped out of the map by the id it had', () => {
      const graph = new Graph({
        id: 'g',
        nodes: [scriptedAgent('a', [say('x')]), scriptedAgent('b', [say('x')])],
        edges: [['a', 'b']],
      });
      nodesOf(graph).set('b', new AgentNode({ agent: scriptedAgent('b', [say('x')]) }));
      expect(edgesOf(graph)).toEqual(['g/a→g/b']);
    });

    it('lists the edges of a graph met twice once, at its first place', () => {
      const inner = new Graph({
        id: 'inner',
        nodes: [scriptedAgent('x', [say('x')]), scriptedAgent('y', [say('x')])],
        edges: [['x', 'y']],
      });
      const graph = new Graph({ id: 'g', nodes: [new Graph({ id: 'mid', nodes: [inner], edges: [] })], edges: [] });
      nodesOf(graph).set('again', new MultiAgentNode({ orchestrator: inner }));
      expect(edgesOf(graph)).toEqual(['g/mid/inner/x→g/mid/inner/y']);
    });

    it('hands a declaring node its declaration, and only there', () => {
      const agents = [scriptedAgent('d', [say('x')])];
      class Step extends Node {
        constructor() {
          super('step', {});
        }
        [GOVERNS](): GovernanceDeclaration {
          return { agents: agents };
        }
        // eslint-disable-next-line require-yield, @typescript-eslint/require-await
        async *handle(): ReturnType<Node['handle']> {
          return { content: [] };
        }
      }
      const entries = walk(new Graph({ id: 'g', nodes: [new Step()], edges: [] })).entries;
      expect(entries.map((e) => [e.path.join('/'), e.declared?.agents.map((a) => (a as { id: string }).id)])).toEqual([
        ['g', undefined],
        ['g/step', ['d']],
        ['g/step/d', undefined],
      ]);
    });
  });
});
