/**
 * The neutral walk (`src/walker/seam-walk.ts`) both frameworks share, through the Strands adapter on real SDK
 * objects: every place a value can run at, the depth it refuses past, the names it gives siblings that collide,
 * what it says of a cycle, and that a part it cannot open is neither walked into nor counted as met before.
 */
import { Graph, MultiAgentNode, Node, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { GOVERNS, type GovernanceDeclaration } from '../../src/index.js';
import { strandsAdapter } from '../../src/frameworks/strands/adapter.js';
import { MAX_DEPTH } from '../../src/walker/limits.js';
import { MAX_PLACES, placesOf, seamWalk } from '../../src/walker/seam-walk.js';
import { walk } from '../../src/walker/walk.js';
import { nodesOf, say, scriptedAgent } from '../helpers/sdk.js';
import type { Agent } from '@strands-agents/sdk';

const joined = (paths: readonly (readonly string[])[] | undefined): string[] | undefined =>
  paths?.map((p) => p.join('/')).sort();

/** A node that declares the agents it runs. */
function declaring(id: string, agents: Agent[]): Node {
  class Step extends Node {
    constructor() {
      super(id, {});
    }
    [GOVERNS](): GovernanceDeclaration {
      return { agents };
    }
    // eslint-disable-next-line require-yield, @typescript-eslint/require-await
    async *handle(): ReturnType<Node['handle']> {
      return { content: [] };
    }
  }
  return new Step();
}

describe('seamWalk, the neutral walk', () => {
  describe('when a value can run at several places', () => {
    it('lists every place a value can run at, under every place of what holds it', () => {
      const helper = scriptedAgent('helper', [say('x')]);
      const a = scriptedAgent('a', [say('x')], { tools: [helper] });
      const b = scriptedAgent('b', [say('x')], { tools: [helper] });
      const inner = new Swarm({ id: 'inner', nodes: [b] });
      const graph = new Graph({ id: 'g', nodes: [a, inner], edges: [] });
      const inventory = seamWalk(strandsAdapter, graph);
      expect(inventory.containments.map((c) => [c.segment, c.child === helper])).toEqual([
        ['a', false],
        ['helper', true],
        ['inner', false],
        ['b', false],
        ['helper', true],
      ]);
      const places = placesOf(inventory);
      expect(joined(places.get(graph))).toEqual(['g']);
      expect(joined(places.get(a))).toEqual(['g/a']);
      expect(joined(places.get(b))).toEqual(['g/inner/b']);
      expect(joined(places.get(helper))).toEqual(['g/a/helper', 'g/inner/b/helper']);
      // The Strands walk hands the same places on (the gate reads them as the request's paths).
      expect(joined(walk(graph).places.get(helper))).toEqual(['g/a/helper', 'g/inner/b/helper']);
    });

    it('a value held by one object at two places runs under both of its places', () => {
      const helper = scriptedAgent('helper', [say('x')]);
      const a = scriptedAgent('a', [say('x')], { tools: [helper] });
      const graph = new Graph({
        id: 'g',
        nodes: [new Swarm({ id: 's1', nodes: [a] }), declaring('d', [a])],
        edges: [],
      });
      expect(joined(walk(graph).places.get(helper))).toEqual(['g/d/a/helper', 'g/s1/a/helper']);
    });

    it(`counts a value found at more than ${MAX_PLACES} places as placed nowhere known`, () => {
      const helper = scriptedAgent('helper', [say('x')]);
      const at = (n: number): Graph =>
        new Graph({
          id: 'g',
          nodes: Array.from({ length: n }, (_, i) => scriptedAgent(`a${i}`, [say('x')], { tools: [helper] })),
          edges: [],
        });
      expect(walk(at(MAX_PLACES)).places.get(helper)).toHaveLength(MAX_PLACES);
      expect(walk(at(MAX_PLACES + 1)).places.get(helper)).toEqual([]);
    });
  });

  describe('when a tree nests deep', () => {
    /** A tree whose deepest path (g<levels-1>/…/g0/leaf/a) is `levels + 2` long. */
    function nested(levels: number): Graph {
      let inner = new Graph({ id: 'leaf', nodes: [scriptedAgent('a', [say('x')])], edges: [] });
      for (let i = 0; i < levels; i += 1) inner = new Graph({ id: `g${i}`, nodes: [inner], edges: [] });
      return inner;
    }

    it(`walks a path of exactly ${MAX_DEPTH} segments and refuses one more, naming where it starts and the fix`, () => {
      const deepest = walk(nested(MAX_DEPTH - 2)).entries.at(-1)!;
      expect(deepest.path).toHaveLength(MAX_DEPTH);
      expect(() => walk(nested(MAX_DEPTH - 1))).toThrow(
        `path=<g${MAX_DEPTH - 2}/g${MAX_DEPTH - 3}/g${MAX_DEPTH - 4}/…> | the tree nests deeper than ${MAX_DEPTH} levels | ` +
          'flatten the nesting of orchestrators and agents used as tools',
      );
    });
  });

  describe('when siblings share an id', () => {
    it('names siblings that share an id with #2, #3… in walk order', () => {
      const agents = ['a', 'a', 'a'].map((id) => scriptedAgent(id, [say('x')]));
      const inventory = walk(new Graph({ id: 'g', nodes: [declaring('step', agents)], edges: [] }));
      expect(inventory.entries.map((e) => e.path.join('/'))).toEqual([
        'g',
        'g/step',
        'g/step/a',
        'g/step/a#2',
        'g/step/a#3',
      ]);
    });
  });

  describe('when a value is met again', () => {
    it('says a value met inside itself is a cycle, walks no further there, and names the fix', () => {
      const inner = new Swarm({ id: 'loop', nodes: [scriptedAgent('a', [say('x')])] });
      const outer = new Graph({ id: 'outer', nodes: [inner], edges: [] });
      nodesOf(inner).set('back', new MultiAgentNode({ orchestrator: outer }));
      const inventory = seamWalk(strandsAdapter, outer);
      const back = inventory.entries.find((e) => e.path.join('/') === 'outer/loop/back')!;
      expect(back.target).toBe(outer);
      expect(back).toMatchObject({
        opened: false,
        problem: {
          kind: 'cycle',
          reason: 'contains itself: this orchestrator is nested inside its own tree',
          fix: 'remove the nesting cycle; an orchestrator cannot run inside itself',
          acceptable: false,
        },
      });
      expect(back.sameAs).toBeUndefined();
      expect(inventory.entries.filter((e) => e.path.join('/').startsWith('outer/loop/back/'))).toEqual([]);
    });

    it('a value met again in another branch is the same object, not a cycle', () => {
      const shared = scriptedAgent('shared', [say('x')]);
      const graph = new Graph({
        id: 'g',
        nodes: [new Swarm({ id: 's1', nodes: [shared] }), new Swarm({ id: 's2', nodes: [shared] })],
        edges: [],
      });
      const inventory = walk(graph);
      expect(inventory.findings).toEqual([]);
      expect(inventory.entries.find((e) => e.path.join('/') === 'g/s2/shared')?.sameAs).toEqual(['g', 's1', 'shared']);
    });
  });

  describe('when a part cannot be gated', () => {
    it('does not open a part it cannot gate: each of its places is a finding, none is met before, nothing is gated there', () => {
      const broken = scriptedAgent('broken', [say('x')]);
      Object.freeze(broken);
      const graph = new Graph({
        id: 'g',
        nodes: [new Swarm({ id: 's1', nodes: [broken] }), new Swarm({ id: 's2', nodes: [broken] })],
        edges: [],
      });
      const inventory = walk(graph);
      expect(inventory.findings.map((f) => f.path.join('/'))).toEqual(['g/s1/broken', 'g/s2/broken']);
      expect(inventory.entries.filter((e) => e.sameAs !== undefined)).toEqual([]);
      expect(inventory.agents.map((a) => a.agent.id)).toEqual([]);
      expect(
        seamWalk(strandsAdapter, graph)
          .entries.filter((e) => e.opened)
          .map((e) => e.path.join('/')),
      ).toEqual(['g', 'g/s1', 'g/s2']);
    });
  });

  describe('when a graph is walked into', () => {
    it("lists a graph's edges after those of the graphs nested in it, and none where its node map cannot be read", () => {
      const inner = new Graph({
        id: 'inner',
        nodes: [scriptedAgent('c', [say('x')]), scriptedAgent('t', [say('x')])],
        edges: [['c', 't']],
      });
      const outer = new Graph({ id: 'outer', nodes: [inner, scriptedAgent('n', [say('x')])], edges: [['inner', 'n']] });
      expect(walk(outer).edges.map((e) => `${e.from.join('/')}→${e.to.join('/')}`)).toEqual([
        'outer/inner/c→outer/inner/t',
        'outer/inner→outer/n',
      ]);
      const unreadable = new Graph({
        id: 'g',
        nodes: ['a', 'b', 'c'].map((id) => scriptedAgent(id, [say('x')])),
        edges: [
          ['a', 'b'],
          ['b', 'c'],
        ],
      });
      (unreadable.nodes as unknown as Record<string, unknown>).extra = 1;
      expect(walk(unreadable).edges).toEqual([]);
    });

    it('walks into a graph with a problem once, and reports its problem at its first place only', () => {
      const frozen = Object.freeze(new Graph({ id: 'frozen', nodes: [scriptedAgent('a', [say('x')])], edges: [] }));
      const graph = new Graph({
        id: 'g',
        nodes: [new Swarm({ id: 's1', nodes: [scriptedAgent('x', [say('x')])] }), scriptedAgent('y', [say('x')])],
        edges: [],
      });
      nodesOf(graph).set('f1', new MultiAgentNode({ orchestrator: frozen }));
      nodesOf(graph).set('f2', new MultiAgentNode({ orchestrator: frozen }));
      const inventory = walk(graph);
      expect(inventory.findings.map((f) => [f.path.join('/'), f.kind])).toEqual(
        expect.arrayContaining([['g/f1', 'custom-orchestrator']]),
      );
      expect(inventory.findings.filter((f) => f.path.join('/') === 'g/f2')).toEqual([]);
      expect(inventory.entries.find((e) => e.path.join('/') === 'g/f2')).toMatchObject({ sameAs: ['g', 'f1'] });
      expect(inventory.entries.find((e) => e.path.join('/') === 'g/f2')?.problem).toBeUndefined();
      expect(inventory.entries.map((e) => e.path.join('/'))).toContain('g/f1/a');
    });
  });

  describe('when a node declares what it runs', () => {
    it('refuses a node that declares itself as too deep, as any tree nested past the limit (not a stack overflow)', () => {
      class SelfNode extends Node {
        constructor() {
          super('self', {});
        }
        [GOVERNS](): GovernanceDeclaration {
          return { agents: [this] };
        }
        // eslint-disable-next-line require-yield, @typescript-eslint/require-await
        async *handle(): ReturnType<Node['handle']> {
          return { content: [] };
        }
      }
      const graph = new Graph({ id: 'g', nodes: [new SelfNode()], edges: [] });
      expect(() => walk(graph)).toThrow(expect.objectContaining({ code: 'TOO_DEEP' }));
      expect(() => walk(graph)).toThrow(/^path=<g\/self\/self\/…> \| the tree nests deeper than/);
    });

    it('a declaring node tells how many it declares, and is not opened itself', () => {
      const agents = ['x', 'y'].map((id) => scriptedAgent(id, [say('x')]));
      const inventory = seamWalk(strandsAdapter, new Graph({ id: 'g', nodes: [declaring('step', agents)], edges: [] }));
      expect(inventory.entries.map((e) => [e.path.join('/'), e.declares, e.opened])).toEqual([
        ['g', undefined, true],
        ['g/step', 2, false],
        ['g/step/x', undefined, true],
        ['g/step/y', undefined, true],
      ]);
    });
  });
});
