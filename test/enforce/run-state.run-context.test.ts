/**
 * The run context (`src/enforce/run-state.ts`): every step of a governed custom node's run names the root run and
 * the node's place, so an agent the node runs (its declared agent invoked without the node's `invocationState`,
 * or one it builds per call with `gatedAgent()`) joins the root run, and a call's places are where it runs now.
 *
 * Found in an attack round (issue 37, items 1 and 2): a gate failure inside a custom node written as the README
 * showed (`this._agent.invoke(input)`) stopped only that inner run, a failure elsewhere did not stop the node's
 * agent, and an agent that is a node of a guarded Graph was judged at its node place when a gated-on-its-own
 * agent called it as a tool, or app code invoked it, so a `paths:` allow rule let `rm /home/user` run.
 */
import { type Agent, TextBlock } from '@strands-agents/sdk';
import { A2AAgent } from '@strands-agents/sdk/a2a';
import { Graph, type MultiAgentState, Node, type NodeResultUpdate, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import {
  type Gate,
  GateFailedError,
  GOVERNS,
  type GovernanceDeclaration,
  gatedAgent,
  install,
  installMultiagent,
  plan,
  policyGate,
  type ToolCallRequest,
} from '../../src/index.js';
import { deferred } from '../helpers/deferred.js';
import {
  call,
  handoff,
  isolateEachTest,
  ran,
  recordingTool,
  runOrchestrator,
  say,
  ScriptedModel,
  scriptedAgent,
  throwsOnRm,
  waitTool,
} from '../helpers/sdk.js';

isolateEachTest();

/** The custom node the README's "Patterns we handle" showed: it invokes its declared agent with no invocationState. */
class ReviewStep extends Node {
  constructor(
    id: string,
    private readonly _reviewer: Agent,
  ) {
    super(id, {});
  }
  [GOVERNS](): GovernanceDeclaration {
    return { agents: [this._reviewer] };
  }
  // eslint-disable-next-line require-yield
  async *handle(input: unknown): AsyncGenerator<never, NodeResultUpdate> {
    const result = await this._reviewer.invoke(String(input));
    return { content: result.lastMessage.content };
  }
}

/** A custom node that builds its agent per call with gatedAgent(), from a script chosen by the node's input. */
class DraftStep extends Node {
  constructor(
    id: string,
    private readonly _build: (input: string) => Agent,
  ) {
    super(id, {});
  }
  [GOVERNS](): GovernanceDeclaration {
    return { createsGatedAgents: true };
  }
  // eslint-disable-next-line require-yield
  async *handle(input: unknown, _state: MultiAgentState): AsyncGenerator<never, NodeResultUpdate> {
    const drafter = this._build(typeof input === 'string' ? input : JSON.stringify(input));
    const result = await drafter.invoke('draft');
    return { content: [new TextBlock(JSON.stringify(result.lastMessage.content))] };
  }
}

describe('run context (run-state.ts)', () => {
  describe('when a gate failure meets a governed custom node that passes no invocationState on (README pattern)', () => {
    it("a failure inside the node's agent stops a fan-out sibling and a downstream node", async () => {
      const failed = deferred();
      const waiting = deferred();
      const gate = throwsOnRm(failed.resolve);
      // The reviewer fails once the sibling is running.
      const reviewer = scriptedAgent('reviewer', [call('hold'), call('rm', { path: '/r' }), say('x')], {
        tools: [waitTool(waiting.promise, undefined, 'hold'), recordingTool('rm')],
      });
      const sibling = scriptedAgent('sibling', [call('wait'), call('ls'), say('done')], {
        tools: [waitTool(failed.promise, waiting.resolve), recordingTool('ls')],
      });
      const after = scriptedAgent('after', [call('ls'), say('done')], { tools: [recordingTool('ls')] });
      const graph = new Graph({
        id: 'g',
        nodes: [new ReviewStep('review', reviewer), sibling, after],
        edges: [['sibling', 'after']],
        maxSteps: 6,
      });
      installMultiagent(graph, { gate });
      const { status, cancelled } = await runOrchestrator(graph);
      expect(ran.sort()).toEqual(['hold@reviewer', 'wait@sibling']);
      expect(status).toBe('FAILED');
      expect(Object.keys(cancelled)).not.toContain('review');
      expect(after.model.calls).toBe(0);
    });

    it("a failure in a plain node stops the custom node's agent", async () => {
      const failed = deferred();
      const gate = throwsOnRm(failed.resolve);
      const failing = scriptedAgent('failing', [call('rm', { path: '/f' }), say('x')], {
        tools: [recordingTool('rm')],
      });
      const reviewer = scriptedAgent('reviewer', [call('wait'), call('ls'), say('done')], {
        tools: [waitTool(failed.promise), recordingTool('ls')],
      });
      const graph = new Graph({
        id: 'g',
        nodes: [failing, new ReviewStep('review', reviewer)],
        edges: [],
        maxSteps: 4,
      });
      installMultiagent(graph, { gate });
      const { status } = await runOrchestrator(graph);
      expect(ran).toEqual(['wait@reviewer']);
      expect(reviewer.model.calls).toBe(1);
      expect(status).toBe('FAILED');
    });

    it('an agent the node builds per call with gatedAgent() joins the root run both ways', async () => {
      const failed = deferred();
      const waiting = deferred();
      const gate = throwsOnRm(failed.resolve);
      const drafter = (): Agent =>
        gatedAgent(
          {
            id: 'drafter',
            model: new ScriptedModel([call('hold'), call('rm', { path: '/d' }), say('x')]),
            tools: [waitTool(waiting.promise, undefined, 'hold'), recordingTool('rm')],
            printer: false,
          },
          { gate },
        );
      const sibling = scriptedAgent('sibling', [call('wait'), call('ls'), say('done')], {
        tools: [waitTool(failed.promise, waiting.resolve), recordingTool('ls')],
      });
      const graph = new Graph({ id: 'g', nodes: [new DraftStep('draft', drafter), sibling], edges: [], maxSteps: 4 });
      installMultiagent(graph, { gate });
      await runOrchestrator(graph);
      expect(ran.sort()).toEqual(['hold@drafter', 'wait@sibling']);
      expect(sibling.model.calls).toBe(1);

      // And the other way: a failure in the plain node stops the per-call agent.
      ran.length = 0;
      const failedToo = deferred();
      const gate2 = throwsOnRm(failedToo.resolve);
      const waiter = (): Agent =>
        gatedAgent(
          {
            id: 'waiter',
            model: new ScriptedModel([call('wait'), call('ls'), say('x')]),
            tools: [waitTool(failedToo.promise), recordingTool('ls')],
            printer: false,
          },
          { gate: gate2 },
        );
      const failing = scriptedAgent('failing', [call('rm', { path: '/f' }), say('x')], {
        tools: [recordingTool('rm')],
      });
      const graph2 = new Graph({ id: 'g2', nodes: [new DraftStep('draft', waiter), failing], edges: [], maxSteps: 4 });
      installMultiagent(graph2, { gate: gate2 });
      await runOrchestrator(graph2);
      expect(ran).toEqual(['wait@waiter']);
    });

    it('two concurrent runs of one Graph stay apart: a failure in one stops only that one', async () => {
      const failed = deferred();
      const gate = throwsOnRm(failed.resolve);
      const build = (input: string): Agent =>
        gatedAgent(
          {
            id: `drafter-${input}`,
            model: new ScriptedModel(
              input === 'fail' ? [call('rm', { path: '/x' }), say('x')] : [call('wait'), call('ls'), say('done')],
            ),
            tools: [recordingTool('rm'), recordingTool('ls'), waitTool(failed.promise)],
            printer: false,
          },
          { gate },
        );
      const graph = new Graph({ id: 'g', nodes: [new DraftStep('draft', build)], edges: [], maxSteps: 3 });
      installMultiagent(graph, { gate });
      const working = graph.invoke('work');
      await new Promise((resolve) => setTimeout(resolve, 10));
      const failing = await graph.invoke('fail');
      const worked = await working;
      expect(failing.status).toBe('FAILED');
      expect(worked.status).toBe('COMPLETED');
      expect(ran).toEqual(['wait@drafter-work', 'ls({})@drafter-work']);
    });

    it('a GateFailedError from the custom node agent is what the node fails with', async () => {
      const reviewer = scriptedAgent('reviewer', [call('rm', { path: '/r' }), say('x')], {
        tools: [recordingTool('rm')],
      });
      const graph = new Graph({ id: 'g', nodes: [new ReviewStep('review', reviewer)], edges: [], maxSteps: 3 });
      installMultiagent(graph, { gate: throwsOnRm() });
      const result = await graph.invoke('go');
      expect(result.status).toBe('FAILED');
      expect(result.results[0]?.error).toBeInstanceOf(GateFailedError);
    });
  });

  describe("when an agent of a tree runs inside or outside its tree's run", () => {
    /** Allows `rm` only at the cleaner's node place; everything else is denied. */
    const sandboxOnly = (): Gate =>
      policyGate({
        version: 1,
        default: 'deny',
        rules: [
          { id: 'sandbox-rm', tools: ['rm'], paths: ['sandbox/cleaner'], verdict: 'allow' },
          { id: 'tools', tools: ['cleaner'], verdict: 'allow' },
        ],
      });

    const cleanerIn = (gate: Gate): { cleaner: Agent & { model: ScriptedModel }; graph: Graph } => {
      const cleaner = scriptedAgent('cleaner', [call('rm', { path: '/home/user' }), say('cleaned')], {
        tools: [recordingTool('rm')],
      });
      const graph = new Graph({ id: 'sandbox', nodes: [cleaner], edges: [], maxSteps: 3 });
      installMultiagent(graph, { gate });
      return { cleaner, graph };
    };

    it('at its node, inside its tree’s run, it has its node place', async () => {
      const seen: ToolCallRequest['paths'][] = [];
      const policy = sandboxOnly();
      const gate: Gate = { ...policy, decide: (r) => (seen.push(r.paths), policy.decide(r)) };
      const { graph } = cleanerIn(gate);
      await runOrchestrator(graph);
      expect(seen).toEqual([[['sandbox', 'cleaner']]]);
      expect(ran).toEqual(['rm({"path":"/home/user"})@cleaner']);
    });

    it('called as a tool by an agent gated on its own, it has no place: the paths allow does not hold', async () => {
      const gate = sandboxOnly();
      const { cleaner } = cleanerIn(gate);
      const helper = scriptedAgent('helper', [call('cleaner', { input: 'clean' }), say('done')], {
        tools: [cleaner.asTool()],
      });
      install(helper, { gate });
      await helper.invoke('go');
      expect(ran).toEqual([]);
      expect(cleaner.model.calls).toBe(2);
    });

    it('invoked directly by app code, it has no place: the paths allow does not hold', async () => {
      const seen: ToolCallRequest['paths'][] = [];
      const policy = sandboxOnly();
      const gate: Gate = { ...policy, decide: (r) => (seen.push(r.paths), policy.decide(r)) };
      const { cleaner } = cleanerIn(gate);
      await cleaner.invoke('go');
      expect(seen).toEqual([[]]);
      expect(ran).toEqual([]);
    });

    it("an agent run by a governed custom node has that node's place, not every place the walk found", async () => {
      const seen: [string, ToolCallRequest['paths']][] = [];
      const gate: Gate = {
        name: 'where',
        decide: (r) => {
          seen.push([r.agentId, r.paths]);
          return { verdict: 'allow' };
        },
      };
      const reviewer = scriptedAgent('reviewer', [call('ls'), say('x'), call('ls'), say('y')], {
        tools: [recordingTool('ls')],
      });
      const drafter = (): Agent =>
        gatedAgent(
          {
            id: 'drafter',
            model: new ScriptedModel([call('ls'), say('x')]),
            tools: [recordingTool('ls')],
            printer: false,
          },
          { gate },
        );
      const graph = new Graph({
        id: 'g',
        nodes: [new ReviewStep('review', reviewer), new DraftStep('draft', drafter)],
        edges: [['review', 'draft']],
        maxSteps: 3,
      });
      installMultiagent(graph, { gate });
      await runOrchestrator(graph);
      await reviewer.invoke('again');
      expect(seen).toEqual([
        // Declared: its place under the node, as the walk found it.
        ['reviewer', [['g', 'review', 'reviewer']]],
        // Built per call: the node's place.
        ['drafter', [['g', 'draft']]],
        // Outside any run of its tree: no place.
        ['reviewer', []],
      ]);
    });

    it('in a Swarm nested in a Graph, each agent has its node place, and the nested Swarm invoked alone has none', async () => {
      const seen: [string, ToolCallRequest['paths']][] = [];
      const gate: Gate = {
        name: 'where',
        decide: (r) => {
          if (r.toolName === 'ls') seen.push([r.agentId, r.paths]);
          return { verdict: 'allow' };
        },
      };
      const a = scriptedAgent('a', [call('ls'), handoff('b', 'to b'), call('ls'), handoff('b', 'to b')], {
        tools: [recordingTool('ls')],
      });
      const b = scriptedAgent('b', [call('ls'), say('done'), call('ls'), say('done')], {
        tools: [recordingTool('ls')],
      });
      const swarm = new Swarm({ id: 'team', nodes: [a, b], start: 'a' });
      const graph = new Graph({ id: 'g', nodes: [swarm], edges: [], maxSteps: 3 });
      installMultiagent(graph, { gate });
      await runOrchestrator(graph);
      const inTree = seen.splice(0);
      await runOrchestrator(swarm);
      const unique = (list: [string, ToolCallRequest['paths']][]): string[] => [
        ...new Set(list.map(([id, paths]) => `${id}@${JSON.stringify(paths)}`)),
      ];
      expect(unique(inTree)).toEqual(['a@[["g","team","a"]]', 'b@[["g","team","b"]]']);
      // The Swarm is no root of an install: a run it starts is no run of a known tree.
      expect(unique(seen)).toEqual(['a@[]']);
    });
  });
});

describe("the wrapper of a governed custom node's run", () => {
  const wrapperOf = (node: object): unknown => Object.getOwnPropertyDescriptor(node, 'stream')?.value;

  describe('when install wraps the node', () => {
    it('is installed as the node’s own stream, marked, and read-only once the tree is locked', () => {
      const step = new ReviewStep('review', scriptedAgent('reviewer', [say('x')]));
      installMultiagent(new Graph({ id: 'g', nodes: [step], edges: [], maxSteps: 3 }), { gate: throwsOnRm() });
      const wrapper = wrapperOf(step);
      expect(typeof wrapper).toBe('function');
      expect(Object.getOwnPropertyDescriptor(step, Symbol.for('gate-audit.node-run.v1'))?.value).toEqual({
        stream: wrapper,
      });
      const other = (): undefined => undefined;
      expect(() => {
        (step as unknown as { stream: unknown }).stream = other;
      }).toThrow(TypeError);
      expect(() => Object.defineProperty(step, 'stream', { value: other })).toThrow(TypeError);
    });
  });

  describe('when the install fails midway and rolls back', () => {
    it('is undone', () => {
      const step = new ReviewStep('review', scriptedAgent('reviewer', [say('x')]));
      const last = scriptedAgent('last', [say('x')]);
      // The mark key held by something else, fixed in place: gating the last agent fails after the node was wrapped.
      Object.defineProperty(last, Symbol.for('gate-audit.agent-gate.v1'), { value: undefined });
      const graph = new Graph({ id: 'g', nodes: [step, last], edges: [], maxSteps: 3 });
      expect(() => installMultiagent(graph, { gate: throwsOnRm() })).toThrow(
        expect.objectContaining({ code: 'INSTALL_FAILED' }),
      );
      expect(Object.getOwnPropertyDescriptor(step, 'stream')).toBeUndefined();
      expect(Object.getOwnPropertyDescriptor(step, Symbol.for('gate-audit.node-run.v1'))).toBeUndefined();
    });
  });

  describe('when a governed custom node is swapped in after install', () => {
    it('runs no agent: the node guard cancels it', async () => {
      const gate = throwsOnRm();
      const graph = new Graph({
        id: 'g',
        nodes: [new ReviewStep('review', scriptedAgent('reviewer', [say('x')]))],
        edges: [],
        maxSteps: 3,
      });
      installMultiagent(graph, { gate });
      const rogue = scriptedAgent('rogue', [call('ls'), say('x')], { tools: [recordingTool('ls')] });
      install(rogue, { gate });
      const swapped = new ReviewStep('review', rogue);
      (graph.nodes as Map<string, unknown>).set('review', swapped);
      (graph as unknown as { _sources: unknown[] })._sources[0] = swapped;
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.review).toMatch(/is a governed custom node whose run was not wrapped at install/);
      expect(ran).toEqual([]);
      expect(rogue.model.calls).toBe(0);
    });
  });

  describe('when the node cannot be wrapped', () => {
    it('a node whose stream is fixed in place (a look-alike wrapper and mark) is refused before anything changes', () => {
      const gate = throwsOnRm();
      const reviewer = scriptedAgent('reviewer', [call('ls'), say('x')], { tools: [recordingTool('ls')] });
      const step = new ReviewStep('review', reviewer);
      // A look-alike mark and wrapper written by other code: not this copy's, so not trusted.
      const fake = function stream(this: Node, ...args: Parameters<Node['stream']>): ReturnType<Node['stream']> {
        return Node.prototype.stream.apply(this, args);
      };
      Object.defineProperty(step, 'stream', { value: fake, configurable: false, writable: false });
      Object.defineProperty(step, Symbol.for('gate-audit.node-run.v1'), { value: { stream: fake } });
      const graph = new Graph({ id: 'g', nodes: [step], edges: [], maxSteps: 3 });
      expect(() => installMultiagent(graph, { gate })).toThrow(/has a stream that cannot be redefined/);
      expect(Object.getOwnPropertyDescriptor(reviewer, Symbol.for('gate-audit.agent-gate.v1'))).toBeUndefined();
    });

    it('a frozen governed custom node is refused before anything changes', () => {
      const reviewer = scriptedAgent('reviewer', [say('x')]);
      const step = Object.freeze(new ReviewStep('review', reviewer));
      const graph = new Graph({ id: 'g', nodes: [step], edges: [], maxSteps: 3 });
      let error: unknown;
      try {
        installMultiagent(graph, { gate: throwsOnRm() });
      } catch (e) {
        error = e;
      }
      const findings = (error as { findings?: { path: string[]; kind: string; reason: string }[] }).findings;
      expect(findings?.map((f) => [f.path, f.kind])).toEqual([[['g', 'review'], 'custom-node']]);
      expect(findings?.[0]?.reason).toMatch(/frozen/);
      expect(Object.getOwnPropertyDescriptor(reviewer, Symbol.for('gate-audit.agent-gate.v1'))).toBeUndefined();
    });

    it('plan reports the frozen node install would refuse, in the one list with every other problem', () => {
      const reviewer = scriptedAgent('reviewer', [say('x')]);
      const step = Object.freeze(new ReviewStep('review', reviewer));
      const remote = new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' });
      const graph = new Graph({ id: 'g', nodes: [step, remote], edges: [], maxSteps: 3 });
      let error: unknown;
      try {
        installMultiagent(graph, { gate: throwsOnRm() });
      } catch (e) {
        error = e;
      }
      const findings = (error as { findings?: { path: string[]; kind: string }[] }).findings;
      expect(findings?.map((f) => f.path.join('/')).sort()).toEqual(['g/remote', 'g/review']);
      const planned = plan(graph, { gate: throwsOnRm() });
      expect(planned.summary.coverage).toBeLessThan(1);
      expect(planned.refusals.map((r) => r.path.join('/')).sort()).toEqual(['g/remote', 'g/review']);
    });
  });

  describe("when the node is run by app code outside the tree's run", () => {
    it("the node's agent has no place", async () => {
      const seen: ToolCallRequest['paths'][] = [];
      const reviewer = scriptedAgent('reviewer', [call('ls'), say('x'), call('ls'), say('y')], {
        tools: [recordingTool('ls')],
      });
      const step = new ReviewStep('review', reviewer);
      const graph = new Graph({ id: 'g', nodes: [step], edges: [], maxSteps: 3 });
      installMultiagent(graph, {
        gate: { name: 'where', decide: (r) => (seen.push(r.paths), { verdict: 'allow' }) },
      });
      await runOrchestrator(graph);
      // The same node in a Graph that is no tree of gate-audit's: its run is no known run.
      await runOrchestrator(new Graph({ id: 'other', nodes: [step], edges: [], maxSteps: 3 }));
      expect(seen).toEqual([[['g', 'review', 'reviewer']], []]);
    });
  });
});
