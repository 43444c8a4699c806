/**
 * The error paths of the decision and the node guard: each must refuse (and, where something tampered or
 * failed, stop the run), never let a call or a node through.
 */
import { BeforeToolCallEvent, BeforeToolsEvent } from '@strands-agents/sdk';
import { AgentNode, BeforeNodeCallEvent, Graph, MultiAgentHandoffEvent, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { allowAll, configureGate, type Gate, GateFailedError, install, installMultiagent } from '../../src/index.js';
import {
  hiddenPrototypes,
  liveCallbackArray,
  orchestratorHookRegistry,
} from '../../src/frameworks/strands/sdk-internals.js';
import {
  call,
  handoff,
  isolateEachTest,
  ran,
  recordingTool,
  runOrchestrator,
  say,
  scriptedAgent,
  toolResults,
} from '../helpers/sdk.js';
import { settleRun } from '../helpers/runs.js';
import { deferred } from '../helpers/deferred.js';

isolateEachTest();

describe('decideCall, on its error paths', () => {
  describe("when the input or the gate's answer cannot be used, the decision refuses", () => {
    it('an input that cannot be copied (a BigInt slipped in before the gate)', async () => {
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), say('-')], { tools: [recordingTool('ls')] });
      agent.addHook(BeforeToolsEvent, (event) => {
        for (const block of event.message.content)
          if (block.type === 'toolUseBlock') (block.input as Record<string, unknown>).n = 10n;
      });
      install(agent, { gate: allowAll() });
      const error = await settleRun(agent);
      expect(ran).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(/ERROR: the input of tool "ls" cannot be copied/);
      expect(error).toBeInstanceOf(GateFailedError);
    });

    it('a configured gate that is not a gate at call time', async () => {
      configureGate(allowAll());
      const agent = scriptedAgent('a', [call('ls'), say('-')], { tools: [recordingTool('ls')] });
      install(agent);
      configureGate({ name: 'broken' } as unknown as Gate);
      const error = await settleRun(agent);
      expect(ran).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(/gate "broken" has no decide\(\) method/);
      expect(error).toBeInstanceOf(GateFailedError);
    });

    it('a decision whose rule is not a string', async () => {
      const agent = scriptedAgent('a', [call('ls'), say('-')], { tools: [recordingTool('ls')] });
      install(agent, { gate: { name: 'g', decide: () => ({ verdict: 'allow', rule: 7 }) as never } });
      await settleRun(agent);
      expect(ran).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(/answered garbage: decision rule is number/);
    });
  });

  describe('when the call changes while an asynchronous gate decides', () => {
    for (const change of ['name', 'tool', 'input'] as const) {
      it(`a call whose ${change} changes while an asynchronous gate decides (tampering, the run stops)`, async () => {
        const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), say('-')], {
          tools: [recordingTool('ls'), recordingTool('rm')],
        });
        let live: BeforeToolCallEvent | undefined;
        const records: string[] = [];
        install(agent, {
          gate: {
            name: 'slow',
            decide: async () => {
              if (change === 'name') live!.toolUse.name = 'rm';
              if (change === 'tool') live!.selectedTool = agent.toolRegistry.get('rm');
              if (change === 'input') (live!.toolUse.input as { path: string }).path = '/etc';
              await Promise.resolve();
              return { verdict: 'allow' };
            },
            record: (r) => void records.push(r.event),
          },
        });
        // Code that holds the live event (here: the registry class's dispatch patched around gate-audit's check; no
        // hook can run before the decision).
        const registry = hiddenPrototypes().hookRegistry as { invokeCallbacks: (e: unknown) => Promise<unknown> };
        const dispatch = registry.invokeCallbacks;
        registry.invokeCallbacks = function (this: unknown, event: unknown): Promise<unknown> {
          if (event instanceof BeforeToolCallEvent) live = event;
          return dispatch.call(this, event);
        };
        const error = await settleRun(agent).finally(() => void (registry.invokeCallbacks = dispatch));
        expect(ran).toEqual([]);
        expect(records).toEqual(['tampering']);
        expect(error).toBeInstanceOf(GateFailedError);
      });
    }
  });

  describe('when a record fails or settles late', () => {
    it('a call refused before the gate is asked still gets its refusal recorded; a failing record stops the run', async () => {
      const inner = scriptedAgent('helper', [say('-')]);
      const lead = scriptedAgent('lead', [call('helper', { input: 'x' }), say('done')], { tools: [inner] });
      installMultiagent(new Graph({ id: 'g', nodes: [lead], edges: [] }), {
        gate: {
          name: 'log-down',
          decide: () => ({ verdict: 'allow' }),
          record: () => {
            throw new Error('log down');
          },
        },
      });
      // The inner agent lost its gate after install: the call is refused before the gate is asked.
      inner.toolExecutor = 'concurrent';
      (inner as unknown as { stream: unknown }).stream = () => undefined;
      const error = await settleRun(lead);
      // The refusal of the call to an agent that lost its gate could not be recorded: the run stops.
      expect(toolResults(lead)[0]).toMatch(/ERROR: gate "log-down" could not record the decision: log down/);
      expect(error).toBeInstanceOf(GateFailedError);
    });

    it('an allowance whose record settles after the run was stopped elsewhere', async () => {
      const { promise: held, resolve: release } = deferred();
      const a = scriptedAgent('a', [call('ls'), say('-')], { tools: [recordingTool('ls')] });
      const b = scriptedAgent('b', [call('ls'), say('-')], { tools: [recordingTool('ls')] });
      const gate: Gate = {
        name: 'g',
        decide: (r) => {
          if (r.agentId === 'b') {
            setTimeout(release, 0);
            throw new Error('b fails');
          }
          return { verdict: 'allow' };
        },
        record: (r) => (r.agentId === 'a' && r.event === 'allow' ? held : undefined),
      };
      const graph = new Graph({ id: 'g', nodes: [a, b], edges: [] });
      installMultiagent(graph, { gate });
      const { status } = await runOrchestrator(graph);
      expect(status).toBe('FAILED');
      expect(ran).toEqual([]);
    });
  });
});

describe('the node guard, on its error paths', () => {
  function twoStep() {
    const c = scriptedAgent('c', [say('c')]);
    const d = scriptedAgent('d', [call('ls'), say('d')], { tools: [recordingTool('ls')] });
    const graph = new Graph({ id: 'g', nodes: [c, d], edges: [['c', 'd']], maxSteps: 5 });
    installMultiagent(graph, { gate: allowAll() });
    return graph;
  }

  describe('when a node hook is moved around the guard', () => {
    it('stops the orchestrator when a node hook is moved after it', async () => {
      const graph = twoStep();
      const hooks = liveCallbackArray(orchestratorHookRegistry(graph), BeforeNodeCallEvent)!;
      hooks.push({ callback: (event: BeforeNodeCallEvent) => void (event.cancel = false), order: Infinity });
      await expect(runOrchestrator(graph)).rejects.toThrow(/has a node hook after gate-audit's guard/);
      expect(ran).toEqual([]);
    });

    it('cancels and stops when a node hook is moved before its witness', async () => {
      const graph = twoStep();
      const hooks = liveCallbackArray(orchestratorHookRegistry(graph), BeforeNodeCallEvent)!;
      hooks.unshift({ callback: () => undefined, order: -Infinity });
      const { cancelled, status } = await runOrchestrator(graph);
      expect(cancelled.c).toMatch(/was swapped after the orchestrator chose it|was not run/);
      expect(status).not.toBe('COMPLETED');
      expect(ran).toEqual([]);
    });

    it('cancels a Swarm handoff target when a hook is moved before the handoff record', async () => {
      const lead = scriptedAgent('lead', [handoff('helper', 'go'), say('-')]);
      const helper = scriptedAgent('helper', [call('ls'), handoff(undefined, 'done'), say('-')], {
        tools: [recordingTool('ls')],
      });
      const swarm = new Swarm({ id: 's', nodes: [lead, helper], maxSteps: 4 });
      installMultiagent(swarm, { gate: allowAll() });
      const hooks = liveCallbackArray(orchestratorHookRegistry(swarm), MultiAgentHandoffEvent)!;
      hooks.unshift({ callback: () => undefined, order: -Infinity });
      const { cancelled } = await runOrchestrator(swarm);
      expect(cancelled.helper).toMatch(/was not run: orchestrator "s" was tampered with/);
      expect(ran).toEqual([]);
    });
  });

  describe("when the gate's record of a cancel throws", () => {
    it('still cancels when the gate’s record of the cancel throws', async () => {
      const c = scriptedAgent('c', [say('c')]);
      const d = scriptedAgent('d', [call('ls'), say('d')], { tools: [recordingTool('ls')] });
      const graph = new Graph({ id: 'g', nodes: [c, d], edges: [['c', 'd']], maxSteps: 5 });
      installMultiagent(graph, {
        gate: {
          name: 'g',
          decide: () => ({ verdict: 'allow' }),
          record: (r) => {
            if (r.event === 'node-cancelled') throw new Error('log down');
          },
        },
      });
      (graph.nodes as Map<string, unknown>).set(
        'd',
        new AgentNode({ agent: scriptedAgent('d', [call('ls'), say('x')], { tools: [recordingTool('ls')] }) }),
      );
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.d).toMatch(/UNGATED NODE: node "d"/);
      expect(ran).toEqual([]);
    });
  });
});
