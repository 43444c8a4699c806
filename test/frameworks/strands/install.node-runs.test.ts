/**
 * Which custom nodes install runs in the run context (their `stream` wrapped, marked): one that declares what it
 * runs, and one accepted as opaque; never a remote node accepted (it runs nothing here). (An object met at two
 * places is listed once; listing it twice would change nothing, as the wrap of a marked node is a no-op.) A node
 * that declares what it runs but whose run cannot be wrapped is refused before anything is gated.
 *
 * Surviving mutants of `src/frameworks/strands/install.ts` (Stryker, the enforce and walker sets; the score is in
 * CONTRIBUTING.md), each unreachable or equivalent:
 * - Unreachable once the preflight passed (it read every orchestrator and node map, or refused): the
 *   `orchestrator === undefined` and `typeof nodes === 'string'` guards of `acceptedByOrchestrator`, `nodeRunsOf`
 *   and `lockTree` (7).
 * - `existingHandle`'s fallbacks (2 survived, 3 no coverage): it is reached only for an agent this copy's hooks gate,
 *   which always has a mark, and a GatePlugin's mark path is the agent's id, as the fallback is.
 * - Equivalent: `wrapsLocal`'s early return for a remote entry (3: nothing local is behind an A2A agent);
 *   `acceptedEntries`' entry-kind test (1: only remote and custom entries have an acceptable problem) and its
 *   `parent === undefined` (1: a root is never accepted, and every other entry's parent is an entry);
 *   `acceptedByOrchestrator`'s executor test made true and its `node === entry.target` (2: an accepted entry's target
 *   is the executor behind an `AgentNode`/`MultiAgentNode`, else the node itself); `nodeRunsOf`'s list seeded with a
 *   string (1: the filter after it drops what is not an object) and its object and `seen` guards (6: a node is an
 *   object, and the wrap of a marked node is a no-op); `pendingGatePluginSource` asked of every agent (1: an agent
 *   gated by another copy promises the gate a conflict check already matched, and a plugin of its own ends the
 *   lookup first) and the pending source set when there is none (1: read back as `?? source`).
 */
import { A2AAgent } from '@strands-agents/sdk/a2a';
import { AgentNode, Graph, MultiAgentNode, Node } from '@strands-agents/sdk/multiagent';
import type { Agent, AgentResult } from '@strands-agents/sdk';
import { describe, expect, it } from 'vitest';
import {
  allowAll,
  type Gate,
  GOVERNS,
  type GovernanceDeclaration,
  installMultiagent,
  isGated,
  UngateableError,
} from '../../../src/index.js';
import { nodeRunMark } from '../../../src/walker/marks.js';
import { isolateEachTest, ran, rmAgent, say, scriptedAgent } from '../../helpers/sdk.js';

isolateEachTest();

/** An opaque custom node: it runs nothing gate-audit can see. */
class Opaque extends Node {
  constructor(id: string) {
    super(id, {});
  }
  // eslint-disable-next-line require-yield, @typescript-eslint/require-await
  async *handle(): ReturnType<Node['handle']> {
    return { content: [] };
  }
}

/** A custom node that declares the agent it runs. */
class Declaring extends Opaque {
  constructor(
    id: string,
    private readonly _agent: Agent,
  ) {
    super(id);
  }
  [GOVERNS](): GovernanceDeclaration {
    return { agents: [this._agent] };
  }
}

/**
 * A custom executor (not a Node) that runs its agents one after another: behind an `AgentNode` it is called as an
 * agent (`stream(input, options)`), behind a `MultiAgentNode` as an orchestrator (the same signature). It declares
 * its agents when asked to.
 */
class Crew {
  constructor(
    readonly id: string,
    private readonly _agents: Agent[],
    private readonly _declares: boolean,
  ) {}
  [GOVERNS](): GovernanceDeclaration {
    return this._declares ? { agents: this._agents } : { agents: [] };
  }
  async *stream(input: unknown, options?: unknown): AsyncGenerator<unknown, AgentResult> {
    let last: AgentResult | undefined;
    for (const agent of this._agents) last = yield* agent.stream(input as string, options as never);
    return last!;
  }
}

/** A gate that allows every call and notes every place it was told the call runs at. */
function placesGate(): Gate & { readonly places: string[] } {
  const places: string[] = [];
  return {
    name: 'places',
    places,
    decide: (request) => {
      places.push(request.paths.map((path) => path.join('/')).join(' | '));
      return { verdict: 'allow' };
    },
  };
}

const wrapped = (node: object): boolean => nodeRunMark(node) !== undefined && Object.hasOwn(node, 'stream');

describe('installMultiagent, the runs of custom nodes', () => {
  describe('when a node is accepted as opaque', () => {
    it('runs it in the run context (its stream wrapped and marked)', () => {
      const legacy = new Opaque('legacy');
      const graph = new Graph({ id: 'app', nodes: [scriptedAgent('a', [say('x')]), legacy], edges: [] });
      expect(wrapped(legacy)).toBe(false);
      installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'app/legacy', reason: 'reviewed' }] });
      expect(wrapped(legacy)).toBe(true);
    });
  });

  describe('when a custom node declares the agent it runs', () => {
    it("runs the node's agents at their places: its run context is the graph run's", async () => {
      /** A custom node that runs its declared agent, handing it nothing of the run. */
      class Running extends Node {
        constructor(private readonly _runs: Agent) {
          super('step', {});
        }
        [GOVERNS](): GovernanceDeclaration {
          return { agents: [this._runs] };
        }
        // eslint-disable-next-line require-yield
        async *handle(...[input]: Parameters<Node['handle']>): ReturnType<Node['handle']> {
          await this._runs.invoke(input);
          return { content: [] };
        }
      }
      const step = new Running(rmAgent('inner'));
      const graph = new Graph({ id: 'g', nodes: [step], edges: [], maxSteps: 3 });
      const gate = placesGate();
      installMultiagent(graph, { gate });
      expect(wrapped(step)).toBe(true);
      await graph.invoke('go');
      expect(ran).toEqual(['rm({"path":"/inner"})@inner']);
      expect(gate.places).toEqual(['g/step/inner']);
    });
  });

  describe('when nodes are plain agents and orchestrators', () => {
    it('wraps no run: their stream stays the class member', () => {
      const inner = new Graph({ id: 'inner', nodes: [scriptedAgent('b', [say('x')])], edges: [] });
      const agent = scriptedAgent('a', [say('x')]);
      const graph = new Graph({ id: 'g', nodes: [agent, inner], edges: [] });
      installMultiagent(graph, { gate: allowAll() });
      const nodes = [...graph.nodes.values()];
      expect([agent, inner, ...nodes].map((value) => wrapped(value) || Object.hasOwn(value, 'stream'))).toEqual(
        [agent, inner, ...nodes].map(() => false),
      );
    });
  });

  describe('when a custom executor declares what it runs', () => {
    it.each([
      ['an AgentNode', (crew: Crew): Node => new AgentNode({ agent: crew as never })],
      ['a MultiAgentNode', (crew: Crew): Node => new MultiAgentNode({ orchestrator: crew as never })],
    ])('behind %s: wraps the executor (not the node), whose agents then run at their places', async (_, nodeOf) => {
      const crew = new Crew('crew', [rmAgent('first'), rmAgent('second')], true);
      const node = nodeOf(crew);
      const graph = new Graph({ id: 'g', nodes: [node], edges: [], maxSteps: 3 });
      const gate = placesGate();
      installMultiagent(graph, { gate });
      expect({ executor: wrapped(crew), node: wrapped(node) }).toEqual({ executor: true, node: false });
      await graph.invoke('go');
      expect(ran).toEqual(['rm({"path":"/first"})@first', 'rm({"path":"/second"})@second']);
      // The run context the executor's wrapper opens is the graph run's: each agent's one place is known.
      expect(gate.places).toEqual(['g/crew/first', 'g/crew/second']);
    });
  });

  describe('when a custom executor is accepted as opaque', () => {
    it('wraps it in the run context, behind its AgentNode', () => {
      const crew = new Crew('crew', [], false);
      const node = new AgentNode({ agent: crew as never });
      const graph = new Graph({ id: 'g', nodes: [scriptedAgent('a', [say('x')]), node], edges: [] });
      installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'g/crew', reason: 'reviewed' }] });
      expect({ executor: wrapped(crew), node: wrapped(node) }).toEqual({ executor: true, node: false });
    });
  });

  describe('when wrapping a run fails midway', () => {
    it('undoes everything install did, the half-made wrapper of that run included, and names the step', () => {
      const inner = scriptedAgent('inner', [say('x')]);
      const step = new Declaring('step', inner);
      // The mark's key held by something else, fixed in place: the preflight sees no wrapper, and marking the
      // wrapper fails after the node's stream was replaced.
      Object.defineProperty(step, Symbol.for('gate-audit.node-run.v1'), { value: undefined });
      const graph = new Graph({ id: 'g', nodes: [scriptedAgent('a', [say('x')]), step], edges: [] });
      expect(() => installMultiagent(graph, { gate: allowAll() })).toThrow(
        expect.objectContaining({
          code: 'INSTALL_FAILED',
          message: expect.stringMatching(
            /^orchestrator=<g> \| install failed midway \(run of node "g\/step"\) and was rolled back: \S/,
          ) as string,
        }),
      );
      expect(Object.hasOwn(step, 'stream')).toBe(false);
      expect(isGated(inner)).toBe(false);
    });
  });

  describe('when a node is accepted as remote', () => {
    it('leaves it as it is: it runs nothing in this process', () => {
      const remote = new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' });
      const graph = new Graph({ id: 'g', nodes: [scriptedAgent('a', [say('x')]), remote], edges: [] });
      installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'g/remote', reason: 'gated on its server' }] });
      expect(nodeRunMark(remote)).toBeUndefined();
      expect(Object.hasOwn(remote, 'stream')).toBe(false);
    });
  });

  describe('when a node declares what it runs and its run cannot be wrapped', () => {
    it.each([
      ['frozen', (node: object): unknown => Object.freeze(node), 'is frozen or sealed, so its run cannot be wrapped'],
      [
        'given a fixed own stream',
        (node: object): unknown =>
          Object.defineProperty(node, 'stream', { value: () => undefined, configurable: false }),
        'has a stream that cannot be redefined, so its run cannot be wrapped',
      ],
    ])('%s: refuses before gating anything, naming the node and the fix', (_how, fix, reason) => {
      const inner = scriptedAgent('inner', [say('x')]);
      const step = new Declaring('step', inner);
      fix(step);
      const graph = new Graph({ id: 'g', nodes: [scriptedAgent('a', [say('x')]), step], edges: [] });
      // A refused install changes nothing, so it can be tried twice: once for the class, once for the message.
      const attempt = (): unknown => installMultiagent(graph, { gate: allowAll() });
      expect(attempt).toThrow(UngateableError);
      expect(attempt).toThrow(
        `"g › step" ${reason} | keep the node extensible, with a stream method that is plain data (no getter, no fixed own stream)`,
      );
      expect(isGated(inner)).toBe(false);
    });
  });
});
