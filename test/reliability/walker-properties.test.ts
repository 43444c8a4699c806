/**
 * Property-based tests of the walk and the install on random trees: agents, nested Graphs and Swarms,
 * agents used as tools, remote (`A2AAgent`, never contacted) and custom nodes, shared agents and nesting
 * cycles, depth ≤ 6. On a failure fast-check prints the seed and the shrunk tree; replay it with
 * `FC_SEED=<seed> npx vitest run test/reliability/walker-properties.test.ts`.
 */
import { Agent } from '@strands-agents/sdk';
import { A2AAgent } from '@strands-agents/sdk/a2a';
import { Graph, MultiAgentNode, Node, Swarm } from '@strands-agents/sdk/multiagent';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { allowAll, audit, hasNodeGuard, installMultiagent, isGated, UngateableError } from '../../src/index.js';
import { agentGateMark, nodeGuardMark } from '../../src/walker/marks.js';
import { walk } from '../../src/walker/walk.js';
import { nodesOf, say, ScriptedModel } from '../helpers/sdk.js';

/** A tree to build. `shared` reuses an agent built earlier; `cycle` nests an enclosing orchestrator again. */
type Spec =
  | { readonly t: 'agent'; readonly tools: readonly Spec[] }
  | { readonly t: 'shared'; readonly pick: number }
  | { readonly t: 'graph' | 'swarm'; readonly nodes: readonly Spec[] }
  | { readonly t: 'remote' }
  | { readonly t: 'custom' }
  | { readonly t: 'cycle'; readonly up: number };

/** The deepest place, the root being 0: trees have at most 6 levels. */
const MAX_DEPTH = 5;

/** Agents (fresh or shared) for an agent's tools, `depth` being the depth of the tool place. */
function toolArb(depth: number): fc.Arbitrary<Spec> {
  const shared = fc.record({ t: fc.constant('shared' as const), pick: fc.nat(50) });
  if (depth >= MAX_DEPTH) return fc.oneof(fc.constant<Spec>({ t: 'agent', tools: [] }), shared);
  return fc.oneof({ weight: 3, arbitrary: agentArb(depth) }, { weight: 1, arbitrary: shared });
}

function agentArb(depth: number): fc.Arbitrary<Spec> {
  const tools = depth >= MAX_DEPTH ? fc.constant([]) : fc.array(toolArb(depth + 1), { maxLength: 2 });
  return fc.record({ t: fc.constant('agent' as const), tools });
}

/** What can sit at a node place of depth `depth`. */
function nodeArb(depth: number, problems: boolean): fc.Arbitrary<Spec> {
  const options: fc.WeightedArbitrary<Spec>[] = [
    { weight: 4, arbitrary: agentArb(depth) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('shared' as const), pick: fc.nat(50) }) },
  ];
  if (depth < MAX_DEPTH) options.push({ weight: 2, arbitrary: orchestratorArb(depth, problems) });
  if (problems) {
    options.push(
      { weight: 1, arbitrary: fc.constant<Spec>({ t: 'remote' }) },
      { weight: 1, arbitrary: fc.constant<Spec>({ t: 'custom' }) },
      { weight: 1, arbitrary: fc.record({ t: fc.constant('cycle' as const), up: fc.nat(6) }) },
    );
  }
  return fc.oneof(...options);
}

function orchestratorArb(depth: number, problems: boolean): fc.Arbitrary<Spec> {
  return fc.record({
    t: fc.constantFrom('graph' as const, 'swarm' as const),
    nodes: fc.array(
      fc.constant(null).chain(() => nodeArb(depth + 1, problems)),
      { minLength: 1, maxLength: 3 },
    ),
  });
}

/** An opaque node: nothing outside can see what it runs. */
class ScriptNode extends Node {
  // eslint-disable-next-line require-yield, @typescript-eslint/require-await
  async *handle(): AsyncGenerator<never, never> {
    throw new Error('never run');
  }
}

/** The built tree and what the walk must find in it. */
interface Built {
  readonly root: Graph | Swarm;
  readonly agents: Set<Agent>;
  readonly orchestrators: Orchestrator[];
  /** Paths of the places that cannot be gated, joined with `/`. */
  readonly refusals: string[];
  /** Number of places (each one entry of the walk). */
  places: number;
}
type Orchestrator = Graph | Swarm;

/** Builds a spec into real SDK objects. Ids are unique; shared agents come from the agents built so far. */
function build(spec: Spec & { t: 'graph' | 'swarm' }): Built {
  let counter = 0;
  const pool: Agent[] = [];
  const cycles: { in: Orchestrator; key: string; up: number }[] = [];
  const built: Omit<Built, 'root'> & { root?: Orchestrator } = {
    agents: new Set(),
    orchestrators: [],
    refusals: [],
    places: 0,
  };
  const newAgent = (tools: Agent[]): Agent => {
    const id = `a${counter++}`;
    const agent = new Agent({ id, name: id, model: new ScriptedModel([say('x')]), printer: false, tools });
    built.agents.add(agent);
    pool.push(agent);
    return agent;
  };
  /** An agent for a place; `taken` holds the ids already used by its siblings. */
  const agentFor = (s: Spec, path: string[], taken: Set<string>): Agent => {
    built.places += 1;
    if (s.t === 'shared' && pool.length > 0) {
      const candidate = pool[s.pick % pool.length]!;
      if (!taken.has(candidate.id)) return candidate;
    }
    const id = `a${counter}`;
    const toolSpecs = s.t === 'agent' ? s.tools : [];
    const names = new Set<string>();
    const tools = toolSpecs.map((t) => {
      const tool = agentFor(t, [...path.slice(0, -1), id, '?'], names);
      names.add(tool.id);
      return tool;
    });
    return newAgent(tools);
  };
  const orchestrator = (s: Spec & { t: 'graph' | 'swarm' }, parentPath: string[]): Orchestrator => {
    const id = `${s.t === 'graph' ? 'g' : 's'}${counter++}`;
    const path = [...parentPath, id];
    built.places += 1;
    const taken = new Set<string>();
    const nodes: unknown[] = [];
    const pendingCycles: { up: number; key: string }[] = [];
    for (const n of s.nodes) {
      if (n.t === 'remote') {
        const rid = `r${counter++}`;
        built.places += 1;
        built.refusals.push([...path, rid].join('/'));
        nodes.push(new A2AAgent({ id: rid, url: 'http://127.0.0.1:9/never' }));
        taken.add(rid);
      } else if (n.t === 'custom') {
        const cid = `c${counter++}`;
        built.places += 1;
        built.refusals.push([...path, cid].join('/'));
        // A Graph takes a Node subclass as is; a Swarm wraps anything in an AgentNode, so there it is an
        // opaque executor instead.
        nodes.push(
          s.t === 'graph' ? new ScriptNode(cid, {}) : { id: cid, invoke: () => undefined, stream: () => undefined },
        );
        taken.add(cid);
      } else if (n.t === 'cycle') {
        const key = `loop${counter++}`;
        built.places += 1;
        built.refusals.push([...path, key].join('/'));
        pendingCycles.push({ up: n.up, key });
      } else if (n.t === 'graph' || n.t === 'swarm') {
        const inner = orchestrator(n, path);
        nodes.push(s.t === 'graph' ? inner : { agent: inner });
        taken.add(inner.id);
      } else {
        const agent = agentFor(n, [...path, '?'], taken);
        nodes.push(agent);
        taken.add(agent.id);
      }
    }
    // An orchestrator needs a node at construction; cycles are nested in only afterwards.
    if (nodes.length === 0) nodes.push(agentFor({ t: 'agent', tools: [] }, [...path, '?'], taken));
    const made =
      s.t === 'graph' ? new Graph({ id, nodes: nodes as never, edges: [] }) : new Swarm({ id, nodes: nodes as never });
    built.orchestrators.push(made);
    for (const c of pendingCycles) cycles.push({ in: made, key: c.key, up: c.up });
    // A cycle is nested in under a key that is not its node's id: the orchestrator's topology is inconsistent too.
    if (pendingCycles.length > 0) built.refusals.push(path.join('/'));
    return made;
  };
  // Built bottom-up, so a cycle can only be closed once the whole tree exists.
  const root = orchestrator(spec, []);
  // The enclosing chain of every orchestrator, found from the root (orchestrators are never shared).
  const enclosing = new Map<Orchestrator, Orchestrator[]>();
  const visit = (o: Orchestrator, chain: Orchestrator[]): void => {
    enclosing.set(o, [...chain, o]);
    for (const node of o.nodes.values()) {
      const inner =
        (node as { orchestrator?: unknown }).orchestrator ?? (node as { _agent?: unknown })._agent ?? undefined;
      if (inner instanceof Graph || inner instanceof Swarm) visit(inner, [...chain, o]);
    }
  };
  visit(root, []);
  for (const c of cycles) {
    const chain = enclosing.get(c.in)!;
    const target = chain[c.up % chain.length]!;
    nodesOf(c.in).set(c.key, new MultiAgentNode({ orchestrator: target }));
  }
  return { ...built, root };
}

/** Every hook, middleware and mark on every object of the tree, to prove nothing was added. */
function footprint(built: Built): string {
  const count = (registry: unknown): number => {
    const map = (registry as { _callbacks?: Map<unknown, unknown[]> } | undefined)?._callbacks;
    return map === undefined ? -1 : [...map.values()].reduce((n, list) => n + list.length, 0);
  };
  const parts: string[] = [];
  for (const agent of built.agents) {
    const middleware = (agent as unknown as { _middlewareRegistry: { _handlers: Map<unknown, unknown[]> } })
      ._middlewareRegistry._handlers;
    parts.push(
      `${agent.id}:${count((agent as unknown as { _hooksRegistry: unknown })._hooksRegistry)}:` +
        `${[...middleware.values()].reduce((n, l) => n + l.length, 0)}:${agentGateMark(agent) === undefined}`,
    );
  }
  for (const o of built.orchestrators) {
    parts.push(
      `${o.id}:${count((o as unknown as { _hookRegistry: unknown })._hookRegistry)}:${nodeGuardMark(o) === undefined}`,
    );
  }
  return parts.join(' ');
}

const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
const params = (numRuns: number): fc.Parameters<[Spec & { t: 'graph' | 'swarm' }]> => ({
  numRuns,
  ...(seed === undefined ? {} : { seed }),
});

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

const rootArb = (problems: boolean) => orchestratorArb(0, problems) as fc.Arbitrary<Spec & { t: 'graph' | 'swarm' }>;

/** Depth of a spec: 1 for the root orchestrator. */
function depthOf(spec: Spec): number {
  const children = 'nodes' in spec ? spec.nodes : 'tools' in spec ? spec.tools : [];
  return 1 + Math.max(0, ...children.map(depthOf));
}

describe('walker properties on random trees', () => {
  describe('when trees are generated', () => {
    it('generates trees up to depth 6, some of them deep', () => {
      const depths = fc.sample(rootArb(true), { numRuns: 300, seed: 42 }).map(depthOf);
      expect(Math.max(...depths)).toBe(6);
      expect(depths.filter((d) => d >= 5).length).toBeGreaterThan(10);
    });
  });
  describe('when no place refuses a hook', () => {
    it('without refusals: the walk terminates, every agent ends gated, a second install adds nothing, audit says 100%', () => {
      fc.assert(
        fc.property(rootArb(false), (spec) => {
          const built = build(spec);
          const inventory = walk(built.root);
          expect(inventory.entries).toHaveLength(built.places);
          expect(inventory.findings).toEqual([]);
          expect(new Set(inventory.agents.map((a) => a.agent))).toEqual(built.agents);

          const gate = allowAll();
          const handles = installMultiagent(built.root, { gate });
          expect(handles).toHaveLength(built.agents.size);
          for (const agent of built.agents) expect(isGated(agent)).toBe(true);
          for (const o of built.orchestrators) expect(hasNodeGuard(o)).toBe(true);
          const after = footprint(built);
          expect(installMultiagent(built.root, { gate })).toEqual([]);
          expect(footprint(built)).toBe(after);

          const report = audit(built.root);
          expect(report.summary.coverage).toBe(1);
          expect(report.nodes.filter((n) => n.status !== 'gated')).toEqual([]);
        }),
        params(100),
      );
    });
  });
  describe('when some places refuse a hook', () => {
    it('with refusals: UngateableError lists exactly the offending paths and not a single hook was added', () => {
      let refused = 0;
      fc.assert(
        fc.property(rootArb(true), (spec) => {
          const built = build(spec);
          const inventory = walk(built.root);
          expect(inventory.entries).toHaveLength(built.places);
          const before = footprint(built);
          if (built.refusals.length === 0) {
            expect(installMultiagent(built.root, { gate: allowAll() })).toHaveLength(built.agents.size);
            expect(audit(built.root).summary.coverage).toBe(1);
            return;
          }
          refused += 1;
          let error: unknown;
          try {
            installMultiagent(built.root, { gate: allowAll() });
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(UngateableError);
          const paths = (error as UngateableError).findings.map((f) => f.path.join('/'));
          expect([...paths].sort()).toEqual([...built.refusals].sort());
          expect(footprint(built)).toBe(before);
          for (const agent of built.agents) expect(isGated(agent)).toBe(false);
          for (const o of built.orchestrators) expect(hasNodeGuard(o)).toBe(false);
        }),
        params(150),
      );
      // The generator must really produce refusals, or this property proves nothing.
      expect(refused).toBeGreaterThan(30);
    });
  });
});
