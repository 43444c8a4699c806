/**
 * The node guard and the audit judge the agents a node declares alike, wherever the declaration sits: on a custom
 * `Node`, on a custom executor behind an `AgentNode`, on a node accepted at install as opaque, and in declarations
 * nested in declarations. Where the audit says `blocked` ("the node guard cancels it at run time"), the guard
 * cancels the node and no tool body runs.
 *
 * Mutated by hand (each killed here): the accepted branch's declaration check (both the node's own and an
 * executor's), the declaring-executor branch, the tree-gate check and the recursion into nested declarations of
 * `declaredAgentsRefusal` in `node-guard.ts`, and the walk up through nested declarations of
 * `guardingOrchestrator` in `src/report/strands.ts`.
 */
import { AfterToolCallEvent, type Agent, type AgentResult } from '@strands-agents/sdk';
import {
  AgentNode,
  BeforeNodeCallEvent,
  Graph,
  Node,
  type NodeResultUpdate,
  Swarm,
} from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import {
  allowAll,
  audit,
  GatePlugin,
  GOVERNS,
  type GovernanceDeclaration,
  install,
  installMultiagent,
} from '../../src/index.js';
import { liveCallbackArray, orchestratorHookRegistry } from '../../src/frameworks/strands/sdk-internals.js';
import {
  call,
  handoff,
  isolateEachTest,
  nodesOf,
  ran,
  recordingTool,
  rmAgent,
  runOrchestrator,
  say,
  scriptedAgent,
} from '../helpers/sdk.js';

isolateEachTest();

const other = { name: 'other', decide: () => ({ verdict: 'allow' as const }) };

const statusOf = (graph: Graph | Swarm, id: string): string | undefined =>
  audit(graph).nodes.find((n) => n.id === id)?.status;

/** A custom executor (not a Node) behind a plain AgentNode, declaring the agents it runs one after another. */
class Team {
  readonly id = 'team';
  constructor(readonly agents: unknown[]) {}
  [GOVERNS](): GovernanceDeclaration {
    return { agents: this.agents };
  }
  async *stream(input: unknown, options?: unknown): AsyncGenerator<unknown, AgentResult> {
    let last: AgentResult | undefined;
    for (const agent of this.agents as Agent[]) last = yield* agent.stream(input as string, options as never);
    return last!;
  }
}

/** A custom node declaring what it is given, running every agent it reaches. */
class Step extends Node {
  constructor(
    private readonly _declared: () => unknown[],
    private readonly _runs: () => Agent[],
  ) {
    super('step', {});
  }
  [GOVERNS](): GovernanceDeclaration {
    return { agents: this._declared() };
  }
  async *handle(input: unknown): AsyncGenerator<never, NodeResultUpdate> {
    yield* [];
    let content: NodeResultUpdate['content'] = [];
    for (const agent of this._runs()) content = (await agent.invoke(input as string)).lastMessage.content;
    return { content };
  }
}

/** A Graph `g` whose one node is a Step declaring and running what it is given. */
const stepGraph = (declared: () => unknown[], runs: () => Agent[] = () => declared() as Agent[]): Graph =>
  new Graph({ id: 'g', nodes: [new Step(declared, runs)], edges: [], maxSteps: 3 });

/** A Graph `g` whose one node is an AgentNode around a Team. */
const teamGraph = (team: Team): Graph =>
  new Graph({ id: 'g', nodes: [new AgentNode({ agent: team as never })], edges: [], maxSteps: 3 });

describe('installNodeGuard and the audit, on declared agents', () => {
  describe('when a custom executor behind an AgentNode declares its agents', () => {
    it("an agent declared after install, gated by another gate than the tree's: blocked, and cancelled", async () => {
      const team = new Team([rmAgent('first')]);
      const graph = teamGraph(team);
      installMultiagent(graph, { gate: allowAll() });
      const late = rmAgent('late');
      install(late, { gate: other });
      team.agents.push(late);
      expect(statusOf(graph, 'late')).toBe('blocked');
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.team).toMatch(/runs an agent gated by "other", not by this tree's gate "allow-all"/);
      expect(ran).toEqual([]);
    });

    it('an agent declared after install with a GatePlugin of another gate: its promise is kept, and it is cancelled', async () => {
      const team = new Team([rmAgent('first')]);
      const graph = teamGraph(team);
      installMultiagent(graph, { gate: allowAll() });
      const late = scriptedAgent('late', [call('rm', { path: '/late' }), say('x')], {
        tools: [recordingTool('rm')],
        plugins: [new GatePlugin({ gate: other })],
      });
      team.agents.push(late);
      expect(statusOf(graph, 'late')).toBe('blocked');
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.team).toMatch(/runs an agent gated by "other", not by this tree's gate "allow-all"/);
      expect(ran).toEqual([]);
    });

    it("an agent declared after install and gated by the tree's gate runs", async () => {
      const team = new Team([rmAgent('first')]);
      const tree = allowAll();
      const graph = teamGraph(team);
      installMultiagent(graph, { gate: tree });
      const late = rmAgent('late');
      install(late, { gate: tree });
      team.agents.push(late);
      expect(statusOf(graph, 'late')).toBe('gated');
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled).toEqual({});
      expect(ran).toEqual(['rm({"path":"/first"})@first', 'rm({"path":"/late"})@late']);
    });
  });

  describe('when a node accepted at install as opaque declares its agents later', () => {
    it('declaring an agent with no gate: the audit says blocked and the guard cancels it', async () => {
      const slot: { worker?: Agent } = {};
      const lazy = new Step(
        () => {
          if (slot.worker === undefined) throw new Error('not configured yet');
          return [slot.worker];
        },
        () => [slot.worker!],
      );
      const graph = new Graph({ id: 'g', nodes: [lazy], edges: [], maxSteps: 3 });
      installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'g/step', reason: 'reviewed: runs no tools' }] });
      slot.worker = rmAgent('worker');
      expect(statusOf(graph, 'worker')).toBe('blocked');
      expect(statusOf(graph, 'step')).toBe('blocked');
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.step).toMatch(/has a declared executor that is an agent that carries no gate/);
      expect(ran).toEqual([]);
    });

    it('an accepted executor behind an AgentNode that declares an agent with no gate later: cancelled', async () => {
      const team = new Team([]);
      let ready = false;
      Object.defineProperty(team, GOVERNS, {
        value: (): GovernanceDeclaration => {
          if (!ready) throw new Error('not configured yet');
          return { agents: team.agents };
        },
      });
      const graph = teamGraph(team);
      installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'g/team', reason: 'reviewed: runs no tools' }] });
      team.agents.push(rmAgent('worker'));
      ready = true;
      expect(statusOf(graph, 'worker')).toBe('blocked');
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.team).toMatch(/has a declared executor that is an agent that carries no gate/);
      expect(ran).toEqual([]);
    });

    it('while it declares nothing it runs as accepted', async () => {
      const opaque = new Step(
        () => {
          throw new Error('not configured yet');
        },
        () => [],
      );
      const graph = new Graph({ id: 'g', nodes: [opaque], edges: [], maxSteps: 3 });
      installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'g/step', reason: 'reviewed: runs no tools' }] });
      expect(statusOf(graph, 'step')).toBe('accepted');
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled).toEqual({});
    });
  });

  describe('when declarations are nested in declarations', () => {
    it('an agent of another gate two declarations deep: blocked, and cancelled (one gate per tree)', async () => {
      const inner = new Team([rmAgent('first')]);
      const graph = stepGraph(
        () => [inner],
        () => inner.agents as Agent[],
      );
      installMultiagent(graph, { gate: allowAll() });
      const late = rmAgent('late');
      install(late, { gate: other });
      inner.agents.push(late);
      expect(statusOf(graph, 'late')).toBe('blocked');
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.step).toMatch(/runs an agent gated by "other", not by this tree's gate "allow-all"/);
      expect(ran).toEqual([]);
    });

    it('an agent with no gate two declarations deep: blocked (not ungated), and cancelled', async () => {
      const inner = new Team([rmAgent('first')]);
      const graph = stepGraph(
        () => [inner],
        () => inner.agents as Agent[],
      );
      installMultiagent(graph, { gate: allowAll() });
      inner.agents.push(rmAgent('late'));
      expect(statusOf(graph, 'late')).toBe('blocked');
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.step).toMatch(/UNGATED NODE: node "step" in "g" has a declared executor that /);
      expect(ran).toEqual([]);
    });

    it('a declaration that names itself after install: cancelled, nothing runs', async () => {
      const team = new Team([rmAgent('first')]);
      const graph = teamGraph(team);
      installMultiagent(graph, { gate: allowAll() });
      team.agents.push(team);
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.team).toMatch(/^\[gate\] UNGATED NODE: node "team" in "g" /);
      expect(ran).toEqual([]);
    });
  });

  describe('when a node hook before the guard tries to trap the cancel (the witness keeps it from the first hook on)', () => {
    /** Tries to make the event's cancel an accessor that answers the SDK `false`; reports whether it could. */
    const trap =
      (taken: boolean[]) =>
      (event: BeforeNodeCallEvent): void => {
        try {
          Object.defineProperty(event, 'cancel', { configurable: false, get: () => false, set: () => undefined });
          taken.push(true);
        } catch {
          taken.push(false);
        }
      };

    it('in a Graph: the trap cannot be set, the node the audit calls blocked is cancelled', async () => {
      const holder = { agents: [scriptedAgent('seed', [say('seed')])] as unknown[] };
      const graph = stepGraph(
        () => holder.agents,
        () => holder.agents as Agent[],
      );
      const taken: boolean[] = [];
      graph.addHook(BeforeNodeCallEvent, trap(taken));
      installMultiagent(graph, { gate: allowAll() });
      holder.agents = [rmAgent('rogue')];
      expect(statusOf(graph, 'step')).toBe('blocked');
      const { cancelled } = await runOrchestrator(graph);
      expect(taken).toEqual([false]);
      expect(cancelled.step).toMatch(/has a declared executor that is an agent that carries no gate/);
      expect(ran).toEqual([]);
    });

    it('in a Swarm handoff: the same', async () => {
      const a = scriptedAgent('a', [handoff('b', 'to b')]);
      const swarm = new Swarm({ id: 'sw', nodes: [a, scriptedAgent('b', [say('b')])], maxSteps: 4 });
      const taken: boolean[] = [];
      swarm.addHook(BeforeNodeCallEvent, trap(taken));
      installMultiagent(swarm, { gate: allowAll() });
      nodesOf(swarm).set('b', new AgentNode({ agent: rmAgent('b') }));
      expect(statusOf(swarm, 'b')).toBe('blocked');
      await swarm.invoke('go').catch(() => undefined);
      expect(taken.length).toBeGreaterThan(0);
      expect(taken.every((t) => !t)).toBe(true);
      expect(ran).toEqual([]);
    });
  });

  describe('when a cancel is trapped before the witness', () => {
    /**
     * A gated Graph whose one node will run an agent with no gate, with a node hook that redefines the event's
     * cancel by `define` moved in front of the witness, as code with the registry in reach could.
     */
    function trappedGraph(define: (event: BeforeNodeCallEvent) => void): Graph {
      const holder = { agents: [scriptedAgent('seed', [say('seed')])] as unknown[] };
      const graph = stepGraph(
        () => holder.agents,
        () => holder.agents as Agent[],
      );
      installMultiagent(graph, { gate: allowAll() });
      graph.addHook(BeforeNodeCallEvent, define);
      const hooks = liveCallbackArray(orchestratorHookRegistry(graph), BeforeNodeCallEvent)!;
      const at = hooks.findIndex((entry) => (entry as { callback?: unknown }).callback === define);
      hooks.unshift(...hooks.splice(at, 1));
      holder.agents = [rmAgent('rogue')];
      return graph;
    }

    it('made unchangeable but still writable: the guard sets its refusal there and reads it back; the node is cancelled, no throw', async () => {
      const graph = trappedGraph((event) => {
        Object.defineProperty(event, 'cancel', { value: false, writable: true, configurable: false });
      });
      // The hook before the witness is itself tampering: the guard cancels the node for it, in the pinned field.
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.step).toMatch(
        /^\[gate\] UNGATED NODE: node "step" in "g" .*another hook ran before the node witness/,
      );
      expect(ran).toEqual([]);
    });

    it('the guard cannot set it: the run stops and the guard throws, naming why; nothing runs', async () => {
      const graph = trappedGraph((event) => {
        Object.defineProperty(event, 'cancel', { configurable: false, get: () => false, set: () => undefined });
      });
      await expect(graph.invoke('go')).rejects.toThrow(
        /node "step" must not run \(.*\), and a node hook made its cancel unchangeable; the run was stopped/,
      );
      expect(ran).toEqual([]);
    });

    it('the same with a setter that throws: the guard cannot set it, the run stops and the guard throws', async () => {
      const graph = trappedGraph((event) => {
        Object.defineProperty(event, 'cancel', {
          configurable: false,
          get: () => false,
          set: () => {
            throw new Error('no');
          },
        });
      });
      await expect(graph.invoke('go')).rejects.toThrow(/a node hook made its cancel unchangeable; the run was stopped/);
      expect(ran).toEqual([]);
    });
  });

  describe('when one agent is declared by a node and used as a tool: each row says what happens at its place', () => {
    /** X, gated by another gate than the tree's, declared by `step` and a tool of `lead`, both after install. */
    function setup(order: 'step-first' | 'lead-first'): Graph {
      const holder = { agents: [scriptedAgent('seed', [say('seed')])] as unknown[] };
      const step = new Step(
        () => holder.agents,
        () => holder.agents as Agent[],
      );
      const lead = scriptedAgent('lead', [call('x', { input: 'go' }), say('done')]);
      const graph = new Graph({ id: 'g', nodes: order === 'step-first' ? [step, lead] : [lead, step], edges: [] });
      installMultiagent(graph, { gate: allowAll() });
      const x = rmAgent('x');
      install(x, { gate: other });
      holder.agents = [x];
      lead.toolRegistry.add(x.asTool());
      return graph;
    }
    const rows = (graph: Graph): string[] => audit(graph).nodes.map((n) => `${n.path.join('/')}=${n.status}`);

    for (const order of ['step-first', 'lead-first'] as const) {
      it(`${order}: both rows are blocked: the guard cancels step, lead's gate refuses its call of x (one gate per tree)`, async () => {
        const graph = setup(order);
        const lead = (graph.nodes.get('lead') as AgentNode).agent as Agent;
        const results: string[] = [];
        lead.addHook(AfterToolCallEvent, (e) => {
          for (const block of e.result.content) if ('text' in block) results.push(String(block.text));
        });
        expect(rows(graph)).toEqual(
          expect.arrayContaining(['g/step=blocked', 'g/step/x=blocked', 'g/lead=gated', 'g/lead/x=blocked']),
        );
        const toolRow = audit(graph).nodes.find((n) => n.path.join('/') === 'g/lead/x');
        expect(toolRow?.reason).toMatch(
          /gated by "other", not by its tree's gate "allow-all": its caller's gate refuses/,
        );
        const { cancelled } = await runOrchestrator(graph);
        expect(cancelled.step).toMatch(/not by this tree's gate/);
        expect(results).toEqual([
          expect.stringMatching(
            /^\[gate\] BLOCKED: tool "x" runs an agent gated by "other", not by this tree's gate "allow-all"/,
          ),
        ]);
        expect(ran).toEqual([]);
      });
    }
  });
});
