/**
 * What gate-audit knows about a run while it runs (`src/enforce/run-state.ts`): a gate failure stops every agent of
 * the run that shares its `invocationState`, including ones that join while another still runs; a run whose
 * `invocationState` is a primitive is refused from the start (the model is not called again after a gate failure);
 * an agent gated in the middle of its own run has its calls decided and its failures stop it; an agent invoked from
 * inside an agent-as-tool call is never given the caller's place (the run context, custom nodes and places outside
 * a known run, is pinned in `run-state.run-context.test.ts`). Each test fails when the line it names is changed.
 *
 * Surviving mutants of run-state.ts (CONTRIBUTING.md, "Mutation testing"), each equivalent:
 * - `runFailure`'s `key === undefined` (→ `false`): `WeakMap.get` of a non-object answers undefined.
 * - `stopRun`'s `key === undefined` (→ `false`): a run whose state is a primitive is refused before anything can
 *   fail in it (its first model call and every node are cancelled), so nothing stops it again.
 * - `keyOf`'s `invocationState !== null` (→ `true`) and `untrackable`'s `invocationState !== undefined` (→ `true`):
 *   the SDK hands every hook an object, replacing a null or missing `invocationState` with `{}`.
 * - `joinRun`'s `key === undefined ||` dropped: only an invocation given a primitive has no key, and it ends with
 *   `GateFailedError` whatever its loop did.
 */
import { type Agent, BeforeInvocationEvent, tool } from '@strands-agents/sdk';
import { Graph } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UNTRACKABLE_RUN } from '../../src/enforce/run-state.js';
import { type Gate, GateFailedError, install, installMultiagent, type ToolCallRequest } from '../../src/index.js';
import {
  call,
  isolateEachTest,
  ran,
  recordingTool,
  runOrchestrator,
  say,
  scriptedAgent,
  throwsOnRm as throwsOnRmGate,
  toolResults,
} from '../helpers/sdk.js';
import { deferred } from '../helpers/deferred.js';

isolateEachTest();

/** The graph, gated as a tree with `gate`. */
function installed(graph: Graph, gate: Gate): Graph {
  installMultiagent(graph, { gate });
  return graph;
}

// Not settle() of helpers/runs.ts: a run that ended reads as 'ended', which the tests expect, not as undefined.
async function outcome(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => 'ended',
    (error: unknown) => error,
  );
}

/** Allows every call but `rm`, on which it throws (a gate failure). */
const throwsOnRm: Gate = throwsOnRmGate();

describe('run-state', () => {
  describe('when a gate failure stops a run shared through its invocationState', () => {
    it('while one agent of the run still runs, an agent that joins after the failure is stopped too', async () => {
      const { promise: held, resolve: release } = deferred();
      const wait = tool({
        name: 'wait',
        description: 'waits until the test releases it',
        inputSchema: z.object({}),
        callback: async () => {
          ran.push('wait');
          await held;
          return 'released';
        },
      });
      const invocationState = {};
      // The first agent keeps the run open, waiting inside its tool.
      const holder = scriptedAgent('holder', [call('wait'), call('ls'), say('done')], {
        tools: [wait, recordingTool('ls')],
      });
      install(holder, { gate: throwsOnRm });
      const holding = outcome(holder.invoke('go', { invocationState }));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(ran).toEqual(['wait']);
      // A second agent of the same run fails.
      const failing = scriptedAgent('failing', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
      install(failing, { gate: throwsOnRm });
      expect(await outcome(failing.invoke('go', { invocationState }))).toBeInstanceOf(GateFailedError);
      // A third joins while the first still runs: the run is still stopped, for it and for the first.
      const joining = scriptedAgent('joining', [call('ls'), say('done')], { tools: [recordingTool('ls')] });
      install(joining, { gate: throwsOnRm });
      expect(await outcome(joining.invoke('go', { invocationState }))).toBeInstanceOf(GateFailedError);
      release();
      expect(await holding).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual(['wait']);
      expect(joining.model.calls).toBe(0);
    });
  });

  describe('when an agent is gated in the middle of its own run', () => {
    it('an agent gated by one of its own tools stops there: that tool ran without a decision', async () => {
      const late: { agent?: Agent } = {};
      const installer = tool({
        name: 'installer',
        description: 'gates the agent running it',
        inputSchema: z.object({}),
        callback: () => {
          ran.push('installer');
          install(late.agent!, { gate: throwsOnRm });
          return 'gated';
        },
      });
      const scripted = scriptedAgent('late', [call('installer'), call('ls'), say('done')], {
        tools: [installer, recordingTool('ls')],
      });
      late.agent = scripted;
      // The run was entered before the gate existed: the stop is the first thing the gate knows of it.
      const error = await outcome(scripted.invoke('go'));
      expect(error).toBeInstanceOf(GateFailedError);
      expect((error as GateFailedError).failure).toContain('"installer" bypassed the gate');
      expect(ran).toEqual(['installer']);
      expect(scripted.model.calls).toBe(1);
    });

    it('an agent gated from a hook as its run starts has its calls decided, and the run ends normally', async () => {
      const agent = scriptedAgent('late', [call('ls'), call('rm'), say('done')], {
        tools: [recordingTool('ls'), recordingTool('rm')],
      });
      const gate: Gate = {
        name: 'no-rm',
        decide: (r) => (r.toolName === 'rm' ? { verdict: 'deny', reason: 'no rm' } : { verdict: 'allow' }),
      };
      let installed = false;
      // Added during the dispatch of the run's first event: the gate's own run-entry hook is not called for it.
      agent.addHook(BeforeInvocationEvent, () => {
        if (installed) return;
        installed = true;
        install(agent, { gate });
      });
      const result = await agent.invoke('go');
      expect(result.stopReason).toBe('endTurn');
      expect(ran).toEqual(['ls({})@late']);
      expect(toolResults(agent)).toEqual(['success:ok ls', 'error:[gate] BLOCKED: no rm | tool=<rm>, agent=<late>']);
    });
  });

  describe('when the invocationState is a primitive or a function', () => {
    for (const state of ['run-1', 7, false]) {
      it(`${JSON.stringify(state)}: the run is refused from the start, naming why, and nothing runs`, async () => {
        const agent = scriptedAgent('a', [call('ls'), call('rm'), call('ls'), say('done')], {
          tools: [recordingTool('ls'), recordingTool('rm')],
        });
        install(agent, { gate: throwsOnRm });
        const error = await outcome(agent.invoke('go', { invocationState: state as never }));
        expect(error).toBeInstanceOf(GateFailedError);
        expect((error as GateFailedError).failure).toBe(UNTRACKABLE_RUN);
        expect(UNTRACKABLE_RUN).toMatch(/^the run was given an invocationState that is not an object \(pass an object/);
        expect(ran).toEqual([]);
        expect(agent.model.calls).toBe(0);
      });
    }

    it('a function is an object: a run given one goes on, and a gate failure in it stops it', async () => {
      const state = Object.assign(() => undefined, { user: 'u1' });
      const agent = scriptedAgent('a', [call('ls'), call('rm'), call('ls'), say('done')], {
        tools: [recordingTool('ls'), recordingTool('rm')],
      });
      install(agent, { gate: throwsOnRm });
      const error = await outcome(agent.invoke('go', { invocationState: state as never }));
      expect((error as GateFailedError).failure).toContain('gate down');
      expect(ran).toEqual(['ls({})@a']);
      expect(agent.model.calls).toBe(2);
    });

    it('a Graph invoked with one cancels every node', async () => {
      const worker = scriptedAgent('w', [call('ls'), say('done')], { tools: [recordingTool('ls')] });
      const graph = new Graph({ id: 'g', nodes: [worker], edges: [], maxSteps: 4 });
      installMultiagent(graph, { gate: throwsOnRm });
      const gen = graph.stream('go', { invocationState: 'shared' as never });
      const cancelled: string[] = [];
      let next = await gen.next();
      while (!next.done) {
        const event = next.value as { type?: string; message?: string };
        if (event.type === 'nodeCancelEvent') cancelled.push(event.message ?? '');
        next = await gen.next();
      }
      expect(cancelled).toEqual([expect.stringContaining(UNTRACKABLE_RUN)]);
      expect(ran).toEqual([]);
      expect(worker.model.calls).toBe(0);
    });
  });

  describe('when an agent is invoked from inside an agent-as-tool call', () => {
    it('is judged at its own places, not at the caller’s', async () => {
      const seen: [string, ToolCallRequest['paths']][] = [];
      const gate: Gate = {
        name: 'where',
        decide: (r) => {
          seen.push([r.agentId, r.paths]);
          return { verdict: 'allow' };
        },
      };
      const bystander = scriptedAgent('bystander', [call('ls'), say('done')], { tools: [recordingTool('ls')] });
      install(bystander, { gate });
      const spawn = tool({
        name: 'spawn',
        description: 'runs another agent directly',
        inputSchema: z.object({}),
        callback: async () => {
          await bystander.invoke('go');
          return 'spawned';
        },
      });
      const helper = scriptedAgent('helper', [call('spawn'), say('helped')], { tools: [spawn] });
      const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')], { tools: [helper.asTool()] });
      await runOrchestrator(installed(new Graph({ id: 'g', nodes: [lead], edges: [], maxSteps: 4 }), gate));
      expect(seen).toEqual([
        ['lead', [['g', 'lead']]],
        ['helper', [['g', 'lead', 'helper']]],
        // Gated on its own: no known place, never the helper's.
        ['bystander', []],
      ]);
      expect(ran).toEqual(['ls({})@bystander']);
    });
  });
});
