/**
 * The node guard (`src/enforce/node-guard.ts`): which node may run, the exact cancel and tampering record for each
 * way the node about to run can differ from the one the orchestrator chose, the order of the hooks around the
 * guard, and what a cancel tells the gate, the observer and stderr. Each test from "when hooks are moved around the
 * guard" on fails when the line it names is changed.
 *
 * Surviving mutants of node-guard.ts (CONTRIBUTING.md, "Mutation testing"), each equivalent or not reachable:
 * - an accepted node's `via === 'agent-node' || via === 'multi-agent-node'` (→ `true`) and `object !== node`: for a
 *   custom or declared node the executor is the node itself, and an AgentNode is accepted by its executor.
 * - `callbackAt`'s `hooks.length === 0` (→ `false`) and `?.callback`: an empty list's entry is undefined either way.
 * - `callbackAt`'s `'last'` (→ `""`): it reads the last entry for anything but `'first'`.
 * - `choicesOf`'s `[readData(orchestrator, 'start')]` (→ `[]`, `""`): a Swarm fires its start node's call with no
 *   code running in between, and the witness requires `start` to be `nodes.get(its id)`.
 * - `typeof nodes !== 'string'` / `=== 'string'` (each place, and the literal): `topologyProblems` answers the same
 *   string as its one problem, so the check beside it refuses or poisons anyway.
 * - `chosen === POISONED` (→ `false`): `current` comes from `nodes`, never the private symbol, so `current !==
 *   chosen` holds whenever `chosen` is poisoned.
 * - `cleanups.splice(0).reverse()` (→ no reverse): each cleanup removes its own callback by identity.
 * - `Array.isArray(event.targets) ? … : []`: not reachable, the SDK's `MultiAgentHandoffEvent` carries an array.
 * - `handoffs.get(event.state) ?? choicesOf(event.state)` (→ `&&`): not reachable, a handoff follows a node call
 *   of the same invocation, whose witness made the map.
 * - `'(unknown)'` (→ `""`): not reachable, `String(event.nodeId)` of an SDK event (a string) never throws.
 * - `treeGate === undefined` returning early: not reachable through the public API, only a guard installed
 *   without a tree gate (direct `installNodeGuard` calls) takes it.
 */
import { type Agent, SequentialToolExecutor, tool } from '@strands-agents/sdk';
import { A2AAgent } from '@strands-agents/sdk/a2a';
import {
  AgentNode,
  BeforeNodeCallEvent,
  Edge,
  Graph,
  type MultiAgent,
  MultiAgentHandoffEvent,
  type MultiAgentInput,
  MultiAgentNode,
  MultiAgentResult,
  type MultiAgentStreamEvent,
  Node,
  Swarm,
} from '@strands-agents/sdk/multiagent';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { installNodeGuard } from '../../src/enforce/node-guard.js';
import { type NodeCancel, setDecisionObserver } from '../../src/enforce/observe.js';
import { runFailure } from '../../src/enforce/run-state.js';
import { GateAuditError } from '../../src/errors.js';
import {
  allowAll,
  type Gate,
  GatePlugin,
  type GateRecord,
  GOVERNS,
  type GovernanceDeclaration,
  hasNodeGuard,
  install,
  installMultiagent,
} from '../../src/index.js';
import { nodeGuardMark } from '../../src/walker/marks.js';
import {
  liveCallbackArray,
  orchestratorHookRegistry,
  orchestratorHooks,
} from '../../src/frameworks/strands/sdk-internals.js';
import {
  call,
  handoff,
  isolateEachTest,
  ran,
  recordingTool,
  rmAgent,
  runOrchestrator,
  say,
  scriptedAgent,
} from '../helpers/sdk.js';
import { deferred } from '../helpers/deferred.js';
import { edgesOf, nodesOf } from '../helpers/sdk.js';

const UNGATED = /^\[gate\] UNGATED NODE: node "/;

function pipeline(): Graph {
  const graph = new Graph({ id: 'g', nodes: [rmAgent('c'), rmAgent('d')], edges: [['c', 'd']], maxSteps: 5 });
  installMultiagent(graph, { gate: allowAll() });
  return graph;
}

isolateEachTest();

describe('installNodeGuard (the node guard)', () => {
  describe('when every node is gated', () => {
    it('lets gated nodes run', async () => {
      const result = await runOrchestrator(pipeline());
      expect(result).toEqual({ status: 'COMPLETED', cancelled: {} });
      expect(ran).toEqual(['rm({"path":"/c"})@c', 'rm({"path":"/d"})@d']);
    });
  });

  describe('when the node about to run has an executor that carries no gate: it is cancelled', () => {
    it('a map entry swapped after install', async () => {
      const graph = pipeline();
      nodesOf(graph).set('d', new AgentNode({ agent: rmAgent('d') }));
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.d).toMatch(UNGATED);
      expect(ran).toEqual(['rm({"path":"/c"})@c']);
    });

    it("an AgentNode's _agent cannot be swapped in place: the write throws and the gated agent runs", async () => {
      const graph = pipeline();
      expect(() => {
        (graph.nodes.get('d') as unknown as { _agent: unknown })._agent = rmAgent('d');
      }).toThrow(TypeError);
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled).toEqual({});
      expect(ran).toEqual(['rm({"path":"/c"})@c', 'rm({"path":"/d"})@d']);
    });

    it('a shadow node reached through an edge (same id, other object)', async () => {
      const graph = pipeline();
      const shadow = new AgentNode({ agent: rmAgent('d') });
      edgesOf(graph).length = 0;
      edgesOf(graph).push(new Edge({ source: graph.nodes.get('c')!, target: shadow }));
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.d).toMatch(/edge target node "d" is not the object in nodes/);
      expect(ran).toEqual(['rm({"path":"/c"})@c']);
    });

    it('a shadow entry node in the private _sources', async () => {
      const graph = new Graph({ id: 'g', nodes: [rmAgent('c')], edges: [], maxSteps: 3 });
      installMultiagent(graph, { gate: allowAll() });
      (graph as unknown as { _sources: unknown[] })._sources[0] = new AgentNode({ agent: rmAgent('c') });
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.c).toMatch(/an entry node "c" is not the object in nodes/);
      expect(ran).toEqual([]);
    });

    it('a node and edge added after install', async () => {
      const graph = pipeline();
      const late = new AgentNode({ agent: rmAgent('late') });
      nodesOf(graph).set('late', late);
      edgesOf(graph).push(new Edge({ source: graph.nodes.get('d')!, target: late }));
      const { cancelled } = await runOrchestrator(graph);
      expect(Object.keys(cancelled)).toEqual(['late']);
      expect(ran).not.toContain('rm({"path":"/late"})@late');
    });

    it('a gated agent whose tool executor was replaced after install', async () => {
      const graph = pipeline();
      const d = (graph.nodes.get('d') as AgentNode).agent as unknown as { toolExecutor: unknown };
      d.toolExecutor = new (class extends SequentialToolExecutor {})();
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.d).toMatch(/custom tool executor/);
    });

    it('a gated agent whose gate hook was removed', async () => {
      const graph = new Graph({ id: 'g', nodes: [rmAgent('c'), rmAgent('d')], edges: [['c', 'd']], maxSteps: 5 });
      const handles = installMultiagent(graph, { gate: allowAll() });
      handles.find((h) => h.agent.id === 'd')!.uninstall();
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.d).toMatch(/carries no gate/);
      expect(ran).toEqual(['rm({"path":"/c"})@c']);
    });

    it('a remote A2A node added after install, before it touches the network', async () => {
      const graph = pipeline();
      const remote = new AgentNode({ agent: new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' }) });
      nodesOf(graph).set('remote', remote);
      edgesOf(graph).push(new Edge({ source: graph.nodes.get('d')!, target: remote }));
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.remote).toMatch(/A2AAgent/);
    });
  });

  describe('when the orchestrator is a swarm', () => {
    function swarm(): Swarm {
      const s1 = scriptedAgent('s1', [handoff('s2', 'go on'), say('-')]);
      const s2 = rmAgent('s2');
      const built = new Swarm({ id: 'sw', nodes: [s1, s2], maxSteps: 4 });
      installMultiagent(built, { gate: allowAll() });
      return built;
    }

    it('cancels a handoff target swapped in the map', async () => {
      const sw = swarm();
      nodesOf(sw).set('s2', new AgentNode({ agent: rmAgent('s2') }));
      const { cancelled } = await runOrchestrator(sw);
      expect(cancelled.s2).toMatch(UNGATED);
      expect(ran).toEqual([]);
    });

    it('a start node cannot be replaced by a shadow: the field is read-only after install', () => {
      const sw = swarm();
      expect(() => {
        (sw as { start: unknown }).start = new AgentNode({ agent: rmAgent('s1') });
      }).toThrow(TypeError);
    });
  });

  describe('when orchestrators are nested', () => {
    function nested(): { graph: Graph; team: Swarm } {
      const s1 = scriptedAgent('s1', [handoff('s2', 'go'), say('-')]);
      const team = new Swarm({ id: 'team', nodes: [s1, rmAgent('s2')], maxSteps: 5 });
      const graph = new Graph({
        id: 'outer',
        nodes: [rmAgent('first'), team],
        edges: [['first', 'team']],
        maxSteps: 5,
      });
      installMultiagent(graph, { gate: allowAll() });
      return { graph, team };
    }

    it('guards the inner orchestrator too, which fires its own node events', async () => {
      const { graph, team } = nested();
      expect(hasNodeGuard(team)).toBe(true);
      nodesOf(team).set('s2', new AgentNode({ agent: rmAgent('s2') }));
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.s2).toMatch(UNGATED);
      expect(ran).toEqual(['rm({"path":"/first"})@first']);
    });

    it('cancels a nested orchestrator added later without a guard', async () => {
      const { graph } = nested();
      const lateSwarm = new Swarm({ id: 'late', nodes: [rmAgent('l1')], maxSteps: 3 });
      const node = new MultiAgentNode({ orchestrator: lateSwarm });
      nodesOf(graph).set('late', node);
      edgesOf(graph).push(new Edge({ source: graph.nodes.get('first')!, target: node }));
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.late).toMatch(/nested swarm without a node guard/);
      expect(ran).not.toContain('rm({"path":"/l1"})@l1');
    });
  });

  describe('when the graph has node hooks of its own', () => {
    it('runs after the hooks of the graph, even those added after it, so none can clear its cancel', async () => {
      const graph = new Graph({ id: 'g', nodes: [rmAgent('c')], edges: [], maxSteps: 3 });
      graph.addHook(BeforeNodeCallEvent, (e) => {
        e.cancel = false;
      });
      installMultiagent(graph, { gate: allowAll() });
      graph.addHook(BeforeNodeCallEvent, (e) => {
        e.cancel = false;
      });
      nodesOf(graph).set('c', new AgentNode({ agent: rmAgent('c') }));
      (graph as unknown as { _sources: unknown[] })._sources[0] = graph.nodes.get('c');
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.c).toMatch(UNGATED);
      expect(ran).toEqual([]);
    });
  });

  /** Puts the entry of `callback` at the front (or the end) of the orchestrator's callbacks for one event. */
  function reorder(orchestrator: Graph | Swarm, eventClass: unknown, callback: unknown, to: 'first' | 'last'): void {
    const entries = liveCallbackArray(orchestratorHookRegistry(orchestrator), eventClass)!;
    const index = entries.findIndex((e) => (e as { callback?: unknown }).callback === callback);
    expect(index).toBeGreaterThanOrEqual(0);
    const [entry] = entries.splice(index, 1);
    if (to === 'first') entries.unshift(entry);
    else entries.push(entry);
  }

  describe('when hooks are moved around the guard', () => {
    function swarm(): Swarm {
      const s1 = scriptedAgent('s1', [handoff('s2', 'go on'), say('-')]);
      const built = new Swarm({ id: 'sw', nodes: [s1, rmAgent('s2')], maxSteps: 4 });
      installMultiagent(built, { gate: allowAll() });
      return built;
    }

    it('a handoff hook moved before the handoff record stops the run and cancels the target', async () => {
      const sw = swarm();
      const seen: string[] = [];
      const first = (e: MultiAgentHandoffEvent): void => void seen.push(e.targets.join(','));
      sw.addHook(MultiAgentHandoffEvent, first);
      reorder(sw, MultiAgentHandoffEvent, first, 'first');
      const { cancelled } = await runOrchestrator(sw);
      expect(seen).toEqual(['s2']);
      expect(cancelled).toEqual({
        s2:
          '[gate] UNGATED NODE: node "s2" in "sw" was not run: orchestrator "sw" was tampered with while it ran: ' +
          'another hook ran before the handoff record',
      });
      expect(ran).toEqual([]);
    });

    it('a node hook moved before the witness stops the run and cancels the node', async () => {
      const sw = swarm();
      const first = (): void => undefined;
      sw.addHook(BeforeNodeCallEvent, first);
      reorder(sw, BeforeNodeCallEvent, first, 'first');
      const { cancelled } = await runOrchestrator(sw);
      expect(cancelled).toEqual({
        s1:
          '[gate] UNGATED NODE: node "s1" in "sw" was not run: orchestrator "sw" was tampered with while it ran: ' +
          'another hook ran before the node witness',
      });
      expect(ran).toEqual([]);
    });

    it('a node hook moved after the guard: the node is cancelled and the guard throws', async () => {
      const sw = swarm();
      const events: BeforeNodeCallEvent[] = [];
      const middle = (e: BeforeNodeCallEvent): void => void events.push(e);
      const after = (e: BeforeNodeCallEvent): void => {
        e.cancel = false;
      };
      sw.addHook(BeforeNodeCallEvent, middle);
      sw.addHook(BeforeNodeCallEvent, after);
      reorder(sw, BeforeNodeCallEvent, after, 'last');
      const failure = await runOrchestrator(sw).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(GateAuditError);
      expect((failure as GateAuditError).code).toBe('GATE_FAILED');
      expect((failure as Error).message).toBe(
        `[gate] ERROR: orchestrator "sw" has a node hook after gate-audit's guard; the run was stopped | ` +
          "do not reorder the orchestrator's hook registry",
      );
      expect(events.map((e) => e.cancel)).toEqual([
        '[gate] UNGATED NODE: node "s1" in "sw" has a node hook registered after the guard, which could clear its cancel',
      ]);
      expect(runFailure(events[0]!.invocationState)).toBe(
        'orchestrator "sw" was tampered with while it ran: a node hook was registered after the guard',
      );
      expect(ran).toEqual([]);
    });
  });

  describe('when code that kept the event clears the cancel later', () => {
    it('the cancel stands and the attempt stops the run, naming the node', async () => {
      const graph = new Graph({ id: 'g', nodes: [rmAgent('c')], edges: [], maxSteps: 3 });
      installMultiagent(graph, { gate: allowAll() });
      const states: unknown[] = [];
      const { promise: attempted, resolve: cleared } = deferred();
      // A hook keeps the event and tries to clear its cancel once the guard has set it.
      const keeper = (e: BeforeNodeCallEvent): void => {
        states.push(e.invocationState);
        setTimeout(() => {
          e.cancel = false;
          cleared();
        }, 0);
      };
      // Added after install, it still runs between the node witness (first) and the guard (last).
      graph.addHook(BeforeNodeCallEvent, keeper);
      nodesOf(graph).set('c', new AgentNode({ agent: rmAgent('c') }));
      (graph as unknown as { _sources: unknown[] })._sources[0] = graph.nodes.get('c');
      const { cancelled } = await runOrchestrator(graph);
      await attempted;
      expect(cancelled.c).toMatch(UNGATED);
      expect(ran).toEqual([]);
      expect(runFailure(states[0])).toBe(
        'orchestrator "g" was tampered with while it ran: something tried to clear the cancel of node "c"',
      );
    });
  });

  describe('when a node is cancelled (what a cancel tells)', () => {
    const SWAPPED =
      '[gate] UNGATED NODE: node "s2" in "sw" was swapped after the orchestrator chose it: the object about to run ' +
      'is not the one in nodes now';

    /** A swarm s1 → s2 whose s2 is swapped by a node hook, after the SDK chose it. */
    function swappedSwarm(gate: Gate): Swarm {
      const s1 = scriptedAgent('s1', [call('rm', { path: '/s1' }), handoff('s2', 'go on'), say('-')], {
        tools: [recordingTool('rm')],
      });
      const sw = new Swarm({ id: 'sw', nodes: [s1, rmAgent('s2')], maxSteps: 4 });
      installMultiagent(sw, { gate });
      const rogue = new AgentNode({ agent: rmAgent('s2') });
      sw.addHook(BeforeNodeCallEvent, (e) => {
        if (e.nodeId === 's2') nodesOf(sw).set('s2', rogue);
      });
      return sw;
    }

    function recordingGate(
      record: (r: GateRecord) => void | Promise<void>,
    ): Gate & { records: GateRecord[]; name: string } {
      const records: GateRecord[] = [];
      return {
        name: 'recorder',
        records,
        decide: () => ({ verdict: 'allow' }),
        record: (r) => {
          records.push(r);
          return record(r);
        },
      };
    }

    it("the gate's record, the observer and stderr each get the cancel", async () => {
      const gate = recordingGate(() => undefined);
      const observed: NodeCancel[] = [];
      setDecisionObserver({ tool: () => undefined, node: (c) => void observed.push(c) });
      try {
        const sw = swappedSwarm(gate);
        const { cancelled } = await runOrchestrator(sw);
        expect(cancelled).toEqual({ s2: SWAPPED });
        expect(observed).toEqual([{ orchestrator: sw, nodeId: 's2', reason: SWAPPED, gate: 'recorder' }]);
      } finally {
        setDecisionObserver(undefined);
      }
      expect(vi.mocked(console.error).mock.calls.some(([line]) => String(line).includes('could not record'))).toBe(
        false,
      );
      expect(gate.records.filter((r) => r.event === 'node-cancelled')).toEqual([
        { event: 'node-cancelled', verdict: 'deny', reason: SWAPPED, nodeId: 's2', path: ['sw'] },
      ]);
      expect(vi.mocked(console.error).mock.calls.map(([line]) => String(line))).toContain(
        '[gate-audit] ERROR orchestrator=<sw>, node=<s2> | node cancelled by the guard',
      );
      expect(ran).toEqual(['rm({"path":"/s1"})@s1']);
    });

    it('a record that throws is logged and the node stays cancelled', async () => {
      const gate = recordingGate((r) => {
        if (r.event === 'node-cancelled') throw new Error('disk full');
      });
      const { cancelled } = await runOrchestrator(swappedSwarm(gate));
      expect(cancelled).toEqual({ s2: SWAPPED });
      expect(vi.mocked(console.error).mock.calls.map(([line]) => String(line))).toContain(
        '[gate-audit] ERROR orchestrator=<sw>, node=<s2> | could not record the cancel: disk full',
      );
      expect(ran).toEqual(['rm({"path":"/s1"})@s1']);
    });

    it('a record that rejects leaves no unhandled rejection and the node stays cancelled', async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        const gate = recordingGate((r) =>
          r.event === 'node-cancelled' ? Promise.reject(new Error('db down')) : undefined,
        );
        const { cancelled } = await runOrchestrator(swappedSwarm(gate));
        expect(cancelled).toEqual({ s2: SWAPPED });
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(unhandled).toEqual([]);
        expect(gate.records.some((r) => r.event === 'node-cancelled')).toBe(true);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    });
  });

  describe('when a hook changes the entry nodes after the graph chose them at the start of the invocation', () => {
    it('an entry node put back by a hook on another entry node runs as chosen: it is cancelled', async () => {
      const graph = new Graph({ id: 'g', nodes: [rmAgent('a'), rmAgent('b')], edges: [], maxSteps: 5 });
      installMultiagent(graph, { gate: allowAll() });
      const gatedB = graph.nodes.get('b')!;
      const rogue = new AgentNode({ agent: rmAgent('b') });
      const sources = (graph as unknown as { _sources: unknown[] })._sources;
      const at = sources.indexOf(gatedB);
      expect(at).toBeGreaterThanOrEqual(0);
      // The rogue is consistently in nodes and the entry nodes when the graph copies its entry nodes; the hook
      // on a's node call puts the gated node back before b's node call, so the guard sees a consistent graph.
      nodesOf(graph).set('b', rogue);
      sources[at] = rogue;
      graph.addHook(BeforeNodeCallEvent, (e) => {
        if (e.nodeId !== 'a') return;
        nodesOf(graph).set('b', gatedB);
        sources[at] = gatedB;
      });
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled).toEqual({
        b:
          '[gate] UNGATED NODE: node "b" in "g" was swapped after the orchestrator chose it: the object about to ' +
          'run is not the one in nodes now',
      });
      // b's node call comes before a's tools run, and the swap stops the whole run: a's rm is refused too.
      expect(ran).toEqual([]);
    });
  });

  describe('when the topology is inconsistent as the choice is recorded, and fixed before the guard', () => {
    const SWAPPED = (id: string): string =>
      `[gate] UNGATED NODE: node "${id}" in "sw" was swapped after the orchestrator chose it: the object about to ` +
      'run is not the one in nodes now';

    it('a handoff target chosen under another key is cancelled although a later handoff hook removed that key', async () => {
      const s1 = scriptedAgent('s1', [handoff('helper', 'go on'), say('-')]);
      const sw = new Swarm({ id: 'sw', nodes: [s1, rmAgent('s2')], maxSteps: 4 });
      installMultiagent(sw, { gate: allowAll() });
      // The SDK runs nodes.get('helper') and names it by its id, 's2': the map is inconsistent at the handoff.
      const rogue = scriptedAgent('s2', [call('rm', { path: '/rogue' }), say('-')], { tools: [recordingTool('rm')] });
      nodesOf(sw).set('helper', new AgentNode({ agent: rogue }));
      sw.addHook(MultiAgentHandoffEvent, () => void nodesOf(sw).delete('helper'));
      const states: unknown[] = [];
      sw.addHook(BeforeNodeCallEvent, (e) => void states.push(e.invocationState));
      const { cancelled } = await runOrchestrator(sw);
      expect(cancelled).toEqual({ s2: SWAPPED('s2') });
      expect(ran).toEqual([]);
      expect(runFailure(states[0])).toBe(
        'orchestrator "sw" was tampered with while it ran: node "s2" was swapped after the orchestrator chose it',
      );
    });

    it('a start node that shares its id with another node when it is witnessed is cancelled although a hook removed the other', async () => {
      const sw = new Swarm({ id: 'sw', nodes: [rmAgent('s1'), rmAgent('s2')], maxSteps: 4 });
      installMultiagent(sw, { gate: allowAll() });
      nodesOf(sw).set('helper', new AgentNode({ agent: rmAgent('s1') }));
      sw.addHook(BeforeNodeCallEvent, () => void nodesOf(sw).delete('helper'));
      const { cancelled } = await runOrchestrator(sw);
      expect(cancelled).toEqual({ s1: SWAPPED('s1') });
      expect(ran).toEqual([]);
    });

    it('a handoff target removed from the map by a node hook is cancelled as not in the nodes', async () => {
      const s1 = scriptedAgent('s1', [handoff('s2', 'go on'), say('-')]);
      const sw = new Swarm({ id: 'sw', nodes: [s1, rmAgent('s2')], maxSteps: 4 });
      installMultiagent(sw, { gate: allowAll() });
      sw.addHook(BeforeNodeCallEvent, (e) => {
        if (e.nodeId === 's2') nodesOf(sw).delete('s2');
      });
      const { cancelled } = await runOrchestrator(sw);
      expect(cancelled).toEqual({ s2: `[gate] UNGATED NODE: node "s2" in "sw" is not in the orchestrator's nodes` });
      expect(ran).toEqual([]);
    });
  });

  describe('when one invocationState is reused', () => {
    it('a run stopped by tampering stops a later invocation with the same invocationState too, not one with a fresh one', async () => {
      const s1 = scriptedAgent('s1', [handoff('s2', 'go on'), handoff('s2', 'go on'), say('-')]);
      const s2 = scriptedAgent('s2', [call('rm', { path: '/s2' }), handoff(undefined, 'done'), say('-')], {
        tools: [recordingTool('rm')],
      });
      const sw = new Swarm({ id: 'sw', nodes: [s1, s2], maxSteps: 4 });
      installMultiagent(sw, { gate: allowAll() });
      const gated = sw.nodes.get('s2')!;
      let swap = true;
      sw.addHook(BeforeNodeCallEvent, (e) => {
        if (swap && e.nodeId === 's2') nodesOf(sw).set('s2', new AgentNode({ agent: rmAgent('s2') }));
      });
      const invocationState: Record<string, unknown> = {};
      await sw.invoke('go', { invocationState });
      expect(runFailure(invocationState)).toMatch(/node "s2" was swapped after the orchestrator chose it/);
      expect(ran).toEqual([]);
      swap = false;
      nodesOf(sw).set('s2', gated);
      await sw.invoke('go', { invocationState }).catch(() => undefined);
      expect(ran).toEqual([]);
      expect(runFailure(invocationState)).toMatch(/node "s2" was swapped/);
      const fresh = await sw.invoke('go', { invocationState: {} });
      expect(fresh.status).toBe('COMPLETED');
      expect(ran).toEqual(['rm({"path":"/s2"})@s2']);
    });
  });

  /** A multi-agent executor gate-audit cannot see into: it records that it ran. */
  class OpaqueTeam implements MultiAgent {
    readonly id = 'team';
    async invoke(input: MultiAgentInput): Promise<MultiAgentResult> {
      const gen = this.stream(input);
      let next = await gen.next();
      while (!next.done) next = await gen.next();
      return next.value;
    }
    addHook(): () => void {
      return () => undefined;
    }
    // eslint-disable-next-line require-yield, @typescript-eslint/require-await
    async *stream(_input: MultiAgentInput): AsyncGenerator<MultiAgentStreamEvent, MultiAgentResult> {
      ran.push('opaque-team');
      return new MultiAgentResult({ results: [], content: [], duration: 0 });
    }
  }

  describe('when a node was accepted at install: the executor found at install is let through', () => {
    it('a MultiAgentNode whose opaque orchestrator was accepted runs', async () => {
      const team = new MultiAgentNode({ orchestrator: new OpaqueTeam() });
      const graph = new Graph({ id: 'g', nodes: [rmAgent('c'), team], edges: [['c', 'team']], maxSteps: 5 });
      installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'g/team', reason: 'reviewed' }] });
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled).toEqual({});
      expect(ran).toEqual(['rm({"path":"/c"})@c', 'opaque-team']);
    });

    it('an AgentNode whose remote agent was accepted is not cancelled (it fails on the network instead)', async () => {
      const remote = new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' });
      const graph = new Graph({ id: 'g', nodes: [rmAgent('c'), remote], edges: [['c', 'remote']], maxSteps: 5 });
      installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'g/remote', reason: 'gated on its server' }] });
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled).toEqual({});
      expect(ran).toEqual(['rm({"path":"/c"})@c']);
    });

    it('another orchestrator swapped into the accepted MultiAgentNode is cancelled', async () => {
      const team = new MultiAgentNode({ orchestrator: new OpaqueTeam() });
      const graph = new Graph({ id: 'g', nodes: [rmAgent('c'), team], edges: [['c', 'team']], maxSteps: 5 });
      installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'g/team', reason: 'reviewed' }] });
      expect(() => {
        (team as unknown as { _orchestrator: unknown })._orchestrator = new OpaqueTeam();
      }).toThrow(TypeError);
      // The orchestrator is read-only in its node; another node carrying another one takes its place in nodes.
      const swapped = new MultiAgentNode({ orchestrator: new OpaqueTeam() });
      nodesOf(graph).set('team', swapped);
      edgesOf(graph)[0] = new Edge({ source: graph.nodes.get('c')!, target: swapped });
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled).toEqual({
        team:
          '[gate] UNGATED NODE: node "team" in "g" is not the object accepted at install (it was swapped) | accept ' +
          'entries cover the executor found at install only',
      });
      expect(ran).toEqual(['rm({"path":"/c"})@c']);
    });
  });

  describe('when it is installed and cleaned up', () => {
    const EVENTS = [BeforeNodeCallEvent, MultiAgentHandoffEvent];
    const hookCounts = (graph: Graph): number[] => EVENTS.map((e) => orchestratorHooks(graph, e)?.length ?? 0);

    function bare(): Graph {
      return new Graph({ id: 'g', nodes: [rmAgent('c')], edges: [], maxSteps: 3 });
    }

    it('installs once, and the cleanup removes every hook and the mark', () => {
      const graph = bare();
      const cleanup = installNodeGuard(graph, ['g'])!;
      expect(hookCounts(graph)).toEqual([2, 1]);
      expect(hasNodeGuard(graph)).toBe(true);
      expect(installNodeGuard(graph, ['g'])).toBeUndefined();
      expect(hookCounts(graph)).toEqual([2, 1]);
      cleanup();
      expect(hookCounts(graph)).toEqual([0, 0]);
      expect(nodeGuardMark(graph)).toBeUndefined();
      expect(hasNodeGuard(graph)).toBe(false);
    });

    it('the mark is not copied by a spread, so a copy of an orchestrator never claims its guard', () => {
      const graph = bare();
      installNodeGuard(graph, ['g']);
      expect(nodeGuardMark({ ...graph })).toBeUndefined();
      expect(nodeGuardMark(graph)).toBeDefined();
    });

    it("an old cleanup called again does not remove a newer guard's mark", () => {
      const graph = bare();
      const first = installNodeGuard(graph, ['g'])!;
      first();
      installNodeGuard(graph, ['g']);
      first();
      expect(hasNodeGuard(graph)).toBe(true);
      expect(hookCounts(graph)).toEqual([2, 1]);
    });

    it('an orchestrator that cannot take the mark gets no hook left behind', () => {
      const graph = bare();
      Object.preventExtensions(graph);
      expect(() => installNodeGuard(graph, ['g'])).toThrow(TypeError);
      expect(hookCounts(graph)).toEqual([0, 0]);
      expect(hasNodeGuard(graph)).toBe(false);
    });
  });

  describe('when a node is not an AgentNode or a MultiAgentNode (what the node runs)', () => {
    /** A custom node that declares the agent it runs. */
    class Step extends Node {
      constructor(private readonly _worker: Agent) {
        super('step', {});
      }
      [GOVERNS](): GovernanceDeclaration {
        return { agents: [this._worker] };
      }
      async *handle(input: unknown): ReturnType<Node['handle']> {
        yield* [];
        const result = await this._worker.invoke(input as string);
        return { content: result.lastMessage.content };
      }
    }

    /** A custom node gate-audit cannot see into. */
    class Opaque extends Node {
      constructor(id: string) {
        super(id, {});
      }
      // eslint-disable-next-line require-yield, @typescript-eslint/require-await
      async *handle(): ReturnType<Node['handle']> {
        ran.push(`opaque:${this.id}`);
        return { content: [] };
      }
    }

    it('a declared node whose declared agent is gated runs', async () => {
      const graph = new Graph({ id: 'g', nodes: [new Step(rmAgent('worker'))], edges: [], maxSteps: 3 });
      installMultiagent(graph, { gate: allowAll() });
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled).toEqual({});
      expect(ran).toEqual(['rm({"path":"/worker"})@worker']);
    });

    it('a declared node whose declared agent lost its gate is cancelled, naming the executor', async () => {
      const graph = new Graph({ id: 'g', nodes: [new Step(rmAgent('worker'))], edges: [], maxSteps: 3 });
      const handles = installMultiagent(graph, { gate: allowAll() });
      handles.find((h) => h.agent.id === 'worker')!.uninstall();
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.step).toMatch(/^\[gate\] UNGATED NODE: node "step" in "g" has a declared executor that /);
      expect(ran).toEqual([]);
    });

    it('a declared node swapped in whose agent only promises a gate it cannot have is cancelled, naming the promise', async () => {
      const graph = new Graph({ id: 'g', nodes: [new Step(rmAgent('worker'))], edges: [], maxSteps: 3 });
      installMultiagent(graph, { gate: allowAll() });
      const rogue = scriptedAgent('rogue', [call('rm', { path: '/rogue' }), say('done')], {
        tools: [recordingTool('rm')],
        plugins: [new GatePlugin()],
      });
      const swapped = new Step(rogue);
      nodesOf(graph).set('step', swapped);
      (graph as unknown as { _sources: unknown[] })._sources[0] = swapped;
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.step).toBe(
        '[gate] UNGATED NODE: node "step" in "g" has a declared executor that is an agent whose promised gate cannot ' +
          'be installed: subject=<the gate promised to agent "rogue"> | no gate given and none configured | ' +
          'pass { gate } or call configureGate(gate) before installing | gate it with installMultiagent or install',
      );
      expect(ran).toEqual([]);
    });

    it("a declared node swapped in whose second agent carries another gate than the tree's is cancelled", async () => {
      const tree = allowAll();
      const graph = new Graph({ id: 'g', nodes: [new Step(rmAgent('worker'))], edges: [], maxSteps: 3 });
      installMultiagent(graph, { gate: tree });
      const first = rmAgent('first');
      install(first, { gate: tree });
      const second = rmAgent('second');
      install(second, { gate: { name: 'other', decide: () => ({ verdict: 'allow' }) } });
      /** Declares two agents; runs the second. */
      class Pair extends Node {
        constructor() {
          super('step', {});
        }
        [GOVERNS](): GovernanceDeclaration {
          return { agents: [first, second] };
        }
        async *handle(input: unknown): ReturnType<Node['handle']> {
          yield* [];
          const result = await second.invoke(input as string);
          return { content: result.lastMessage.content };
        }
      }
      const swapped = new Pair();
      nodesOf(graph).set('step', swapped);
      (graph as unknown as { _sources: unknown[] })._sources[0] = swapped;
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.step).toMatch(/runs an agent gated by "other", not by this tree's gate "allow-all"/);
      expect(ran).toEqual([]);
    });

    it('an opaque custom node added after install is cancelled with its reason and fix', async () => {
      const graph = pipeline();
      const late = new Opaque('late');
      nodesOf(graph).set('late', late);
      edgesOf(graph).push(new Edge({ source: graph.nodes.get('d')!, target: late }));
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled).toEqual({
        late: expect.stringMatching(
          /^\[gate\] UNGATED NODE: node "late" in "g" is a custom node \(Opaque\) whose handle\(\) this process cannot see into \| build the node from an Agent, Graph or Swarm, or /,
        ) as string,
      });
      expect(ran).toEqual(['rm({"path":"/c"})@c', 'rm({"path":"/d"})@d']);
    });
  });

  describe('when hooks or a topology cannot be read', () => {
    it('a node hook registry it cannot read as plain data stops the run: the witness and the guard cannot place themselves', async () => {
      const sw = new Swarm({ id: 'sw', nodes: [rmAgent('s1')], maxSteps: 3 });
      installMultiagent(sw, { gate: allowAll() });
      const events: BeforeNodeCallEvent[] = [];
      const middle = (e: BeforeNodeCallEvent): void => void events.push(e);
      sw.addHook(BeforeNodeCallEvent, middle);
      const entries = liveCallbackArray(orchestratorHookRegistry(sw), BeforeNodeCallEvent)!;
      const entry = entries.find((e) => (e as { callback?: unknown }).callback === middle) as { order: number };
      const order = entry.order;
      // The SDK still runs the callbacks; gate-audit's reading of them fails (an entry field is a getter).
      Object.defineProperty(entry, 'order', { get: () => order, configurable: true });
      const failure = await runOrchestrator(sw).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(GateAuditError);
      expect((failure as Error).message).toBe(
        `[gate] ERROR: orchestrator "sw" has a node hook after gate-audit's guard; the run was stopped | ` +
          "do not reorder the orchestrator's hook registry",
      );
      expect(runFailure(events[0]!.invocationState)).toBe(
        'orchestrator "sw" was tampered with while it ran: another hook ran before the node witness',
      );
      expect(events.map((e) => e.cancel)).toEqual([
        '[gate] UNGATED NODE: node "s1" in "sw" was not run: orchestrator "sw" was tampered with while it ran: ' +
          'another hook ran before the node witness',
      ]);
      expect(ran).toEqual([]);
    });

    it('every topology problem of the node is named, joined by "; "', async () => {
      const sw = new Swarm({ id: 'sw', nodes: [rmAgent('s1'), rmAgent('s2')], maxSteps: 3 });
      installMultiagent(sw, { gate: allowAll() });
      nodesOf(sw).set('helper', new AgentNode({ agent: rmAgent('s1') }));
      const { cancelled } = await runOrchestrator(sw);
      expect(cancelled).toEqual({
        s1:
          '[gate] UNGATED NODE: node "s1" in "sw" has an inconsistent topology: the node under key "helper" has id ' +
          '"s1": the event names the id, the map the key; 2 nodes share the id "s1"',
      });
      expect(ran).toEqual([]);
    });
  });

  describe('when a record or witness fails while reading the topology', () => {
    /** An edge whose ends have an id that throws when it is turned into a string. */
    function brokenEdge(graph: Graph): Edge {
      const edge = new Edge({ source: graph.nodes.get('c')!, target: graph.nodes.get('d')! });
      const broken = {
        id: {
          toString(): string {
            throw new Error('id unreadable');
          },
        },
      };
      Object.assign(edge, { source: broken, target: broken });
      return edge;
    }
    const notRun = (id: string, why: string): string =>
      `[gate] UNGATED NODE: node "${id}" in "g" was not run: orchestrator "g" was tampered with while it ran: ${why}`;

    it('a witness that throws stops the run and cancels the node', async () => {
      const graph = pipeline();
      edgesOf(graph).push(brokenEdge(graph));
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled).toEqual({ c: notRun('c', 'the node call could not be witnessed: id unreadable') });
      expect(ran).toEqual([]);
    });

    it('a handoff record that throws stops the run and cancels the target', async () => {
      const box: { graph?: Graph } = {};
      // c's own tool breaks the edge list while c runs: after c's node call, before the handoff to d.
      const breaker = tool({
        name: 'breaker',
        description: 'adds an edge that cannot be read',
        inputSchema: z.object({}),
        callback: () => {
          edgesOf(box.graph!).push(brokenEdge(box.graph!));
          return 'done';
        },
      });
      const c = scriptedAgent('c', [call('breaker', {}), say('c')], { tools: [breaker] });
      const graph = new Graph({ id: 'g', nodes: [c, rmAgent('d')], edges: [['c', 'd']], maxSteps: 5 });
      box.graph = graph;
      installMultiagent(graph, { gate: allowAll() });
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled).toEqual({ d: notRun('d', 'the handoff could not be recorded: id unreadable') });
      expect(ran).toEqual([]);
    });
  });

  describe('when a cancel has no gate to tell', () => {
    it('a guard with no gate, or a gate without record, cancels and logs without a record failure', async () => {
      const noRecord: Gate = { name: 'no-record', decide: () => ({ verdict: 'allow' }) };
      for (const gate of [undefined, noRecord]) {
        vi.mocked(console.error).mockClear();
        const observed: NodeCancel[] = [];
        setDecisionObserver({ tool: () => undefined, node: (c) => void observed.push(c) });
        try {
          // The agent is not gated: the guard alone is installed, so the node is refused as carrying no gate.
          const graph = new Graph({ id: 'g', nodes: [rmAgent('c')], edges: [], maxSteps: 3 });
          installNodeGuard(graph, ['g'], () => gate);
          const { cancelled } = await runOrchestrator(graph);
          expect(cancelled.c).toMatch(/^\[gate\] UNGATED NODE: node "c" in "g" /);
          expect(observed).toEqual([
            {
              orchestrator: graph,
              nodeId: 'c',
              reason: cancelled.c,
              ...(gate === undefined ? {} : { gate: 'no-record' }),
            },
          ]);
        } finally {
          setDecisionObserver(undefined);
        }
        const lines = vi.mocked(console.error).mock.calls.map(([line]) => String(line));
        expect(lines).toEqual(['[gate-audit] ERROR orchestrator=<g>, node=<c> | node cancelled by the guard']);
        expect(ran).toEqual([]);
      }
    });
  });
});
