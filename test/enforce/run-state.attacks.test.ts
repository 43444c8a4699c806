/**
 * Attacks on the run state (`src/enforce/run-state.ts`): a gate failure that must stop the whole run and no
 * other, the place a call runs at, a stop other code tries to lift, a loop run under another invocationState.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  AfterInvocationEvent,
  AfterToolCallEvent,
  type Agent,
  BeforeInvocationEvent,
  BeforeModelCallEvent,
  FunctionTool,
} from '@strands-agents/sdk';
import { Graph } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { allowAll, type Gate, GateFailedError, type GateRecord, install, installMultiagent } from '../../src/index.js';
import { agentGateMark } from '../../src/walker/marks.js';
import {
  call,
  isolateEachTest,
  ran,
  recordingTool,
  runOrchestrator,
  say,
  scriptedAgent,
  toolResults,
} from '../helpers/sdk.js';
import { deferred } from '../helpers/deferred.js';
import { recordingGate, failsOnBoom } from '../helpers/attacks.js';

isolateEachTest();

describe('the run state (run-state.ts)', () => {
  describe('when a gate fails', () => {
    it('in a fan-out Graph, a sibling already running makes no further call, and no later node runs [B]', async () => {
      const failed = deferred();
      const bRanOnce = deferred();
      const gate: Gate = {
        name: 'fails-on-a',
        decide: async (request) => {
          if (request.agentId === 'a') {
            // a fails once b is well under way: b's first call ran, its second waits on the gate.
            await bRanOnce.promise;
            setTimeout(failed.resolve, 0);
            throw new Error('policy service down');
          }
          if ((request.input as { path?: string }).path === '/2') await failed.promise;
          return { verdict: 'allow' };
        },
      };
      const start = scriptedAgent('start', [say('go')]);
      const a = scriptedAgent('a', [call('ls'), say('-')], { tools: [recordingTool('ls')] });
      const rmThenSignal = new FunctionTool({
        name: 'rm',
        description: 'records, and tells the test the first call ran',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
        callback: (input: unknown) => {
          ran.push(`rm(${JSON.stringify(input)})@b`);
          bRanOnce.resolve();
          return 'ok';
        },
      });
      const b = scriptedAgent(
        'b',
        [call('rm', { path: '/1' }), call('rm', { path: '/2' }), call('rm', { path: '/3' }), say('-')],
        { tools: [rmThenSignal] },
      );
      const after = scriptedAgent('after', [call('rm', { path: '/after' }), say('-')], {
        tools: [recordingTool('rm')],
      });
      const graph = new Graph({
        id: 'g',
        nodes: [start, a, b, after],
        edges: [
          ['start', 'a'],
          ['start', 'b'],
          ['b', 'after'],
        ],
        maxSteps: 10,
      });
      installMultiagent(graph, { gate });
      const { status } = await runOrchestrator(graph);
      expect(status).toBe('FAILED');
      expect(ran).toEqual(['rm({"path":"/1"})@b']);
    });

    it('the agent that called an agent-as-tool is stopped too [B]', async () => {
      const inner = scriptedAgent('helper', [call('rm'), say('-')], { tools: [recordingTool('rm')] });
      const lead = scriptedAgent('lead', [call('helper', { input: 'x' }), call('ls'), say('done')], {
        tools: [inner, recordingTool('ls')],
      });
      const gate: Gate = {
        name: 'fails-on-rm',
        decide: (r) => {
          if (r.toolName === 'rm') throw new Error('boom');
          return { verdict: 'allow' };
        },
      };
      const graph = new Graph({ id: 'g', nodes: [lead], edges: [] });
      installMultiagent(graph, { gate });
      const { status } = await runOrchestrator(graph);
      expect(status).toBe('FAILED');
      expect(ran).toEqual([]);
    });

    it('no other run, concurrent or later, sees the stop [B]', async () => {
      let fail = true;
      const gate: Gate = {
        name: 'flaky',
        decide: async (r) => {
          await new Promise((resolve) => setTimeout(resolve, r.agentId === 'x' ? 1 : 15));
          if (fail && r.agentId === 'x') throw new Error('x fails');
          return { verdict: 'allow' };
        },
      };
      const failing = new Graph({
        id: 'one',
        nodes: [scriptedAgent('x', [call('ls'), call('ls'), say('-')], { tools: [recordingTool('ls')] })],
        edges: [],
      });
      const healthy = new Graph({
        id: 'two',
        nodes: [scriptedAgent('y', [call('ls'), say('-')], { tools: [recordingTool('ls')] })],
        edges: [],
      });
      installMultiagent(failing, { gate });
      installMultiagent(healthy, { gate });
      const [one, two] = await Promise.all([runOrchestrator(failing), runOrchestrator(healthy)]);
      expect(one.status).toBe('FAILED');
      expect(two.status).toBe('COMPLETED');
      expect(ran).toEqual(['ls({})@y']);
      fail = false;
      ran.length = 0;
      expect((await runOrchestrator(failing)).status).toBe('COMPLETED');
      expect(ran).toEqual(['ls({})@x']);
    });

    it('a plain deny is not a failure: the model is told and goes on [B]', async () => {
      const agent = scriptedAgent('a', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
      install(agent, { gate: { name: 'deny', decide: () => ({ verdict: 'deny', reason: 'no' }) } });
      const result = await agent.invoke('go');
      expect(result.stopReason).toBe('endTurn');
      expect(agent.model.calls).toBe(2);
    });
  });

  describe('when one agent sits at several places', () => {
    function app() {
      const cat = call('cat', { path: '/srv/secrets' });
      const writer = scriptedAgent('writer', [cat, say('-'), cat, say('-')], { tools: [recordingTool('cat')] });
      const research = new Graph({ id: 'research', nodes: [writer], edges: [] });
      const desk = scriptedAgent('public-desk', [call('writer', { input: 'read it' }), say('done')], {
        tools: [writer],
      });
      const graph = new Graph({
        id: 'app',
        nodes: [research, desk],
        edges: [['research', 'public-desk']],
        maxSteps: 4,
      });
      return { writer, desk, graph };
    }

    it('a shared agent is judged where it runs: at its node as a node, at the caller’s place as a tool [A7]', async () => {
      const { graph } = app();
      const gate = recordingGate();
      installMultiagent(graph, { gate });
      await runOrchestrator(graph);
      const cats = gate.seen.filter((r) => r.toolName === 'cat');
      expect(cats.map((r) => r.paths)).toEqual([[['app', 'research', 'writer']], [['app', 'public-desk', 'writer']]]);
      expect(cats.map((r) => r.path)).toEqual([
        ['app', 'research', 'writer'],
        ['app', 'public-desk', 'writer'],
      ]);
    });

    it('invoked by app code, outside any run of its tree, an agent that sits at several places has none [A7]', async () => {
      const { writer, desk, graph } = app();
      const gate = recordingGate();
      installMultiagent(graph, { gate });
      await writer.invoke('go');
      // The desk too, and the writer it calls as a tool: no run of the tree, no place.
      await desk.invoke('go');
      const cats = gate.seen.filter((r) => r.toolName === 'cat');
      expect(cats.map((r) => [r.path, r.paths])).toEqual([
        [[], []],
        [[], []],
      ]);
    });

    it('concurrent Graph siblings never see each other’s place [A7]', async () => {
      const inner = scriptedAgent('inner', [call('slow'), say('-')], {
        tools: [
          new FunctionTool({
            name: 'slow',
            description: 'takes a while',
            callback: async () => {
              await new Promise((resolve) => setTimeout(resolve, 30));
              return 'ok';
            },
          }),
        ],
      });
      const left = scriptedAgent('left', [call('inner', { input: 'x' }), say('-')], { tools: [inner] });
      const right = scriptedAgent('right', [call('ls'), say('-')], { tools: [recordingTool('ls')] });
      const graph = new Graph({ id: 'root', nodes: [left, right], edges: [] });
      const gate = recordingGate(async (r) => {
        if (r.agentId === 'right') await new Promise((resolve) => setTimeout(resolve, 10));
        return { verdict: 'allow' };
      });
      installMultiagent(graph, { gate });
      await runOrchestrator(graph);
      const byAgent = Object.fromEntries(gate.seen.map((r) => [`${r.agentId}:${r.toolName}`, r.paths]));
      expect(byAgent['right:ls']).toEqual([['root', 'right']]);
      expect(byAgent['inner:slow']).toEqual([['root', 'left', 'inner']]);
    });

    it('an agent gated on its own has no known place: it claims none [A7]', async () => {
      const agent = scriptedAgent('a', [call('ls'), say('-')], { tools: [recordingTool('ls')] });
      const gate = recordingGate();
      install(agent, { gate });
      await agent.invoke('go');
      expect(gate.seen[0]).toMatchObject({ path: [], paths: [] });
    });
  });

  describe("when other code drives the gate's run-entry and run-exit hooks", () => {
    it("the gate's own enter/leave hooks, driven by other code, cannot lift a stop", async () => {
      const agent = scriptedAgent('victim', [call('boom', {}), call('after', { path: '/x' }), say('done')], {
        tools: [recordingTool('boom'), recordingTool('after')],
      });
      install(agent, { gate: failsOnBoom });
      const hooks = agentGateMark(agent)!.hooks as { event: unknown; callback: (e: unknown) => void }[];
      const leave = hooks.find((h) => h.event === AfterInvocationEvent)!.callback;
      const enter = hooks.find((h) => h.event === BeforeInvocationEvent)!.callback;
      agent.addHook(AfterToolCallEvent, (event) => {
        if (event.toolUse.name !== 'boom') return;
        for (let i = 0; i < 16; i += 1) leave(event);
        enter(event);
      });
      expect(await agent.invoke('go').catch((error: unknown) => error)).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
    });
  });

  describe("when an agent's loop runs under another invocationState than its invocation", () => {
    /** The SDK's agent-stream stage token (not exported by the package root; any code in the process can load it). */
    async function agentStreamStage(): Promise<Parameters<Agent['addMiddleware']>[0]> {
      const sdkEntry = createRequire(import.meta.url).resolve('@strands-agents/sdk');
      const stages = (await import(pathToFileURL(join(dirname(sdkEntry), 'middleware/stages.js')).href)) as {
        AgentStreamStage: Parameters<Agent['addMiddleware']>[0];
      };
      return stages.AgentStreamStage;
    }

    /** An agent-stream middleware that runs the agent's whole loop under a fresh `invocationState`. */
    async function freshRunFor(agent: Agent): Promise<void> {
      const stage = await agentStreamStage();
      agent.addMiddleware(stage, async function* (ctx: { options?: object }, next: (c: object) => AsyncGenerator) {
        return (yield* next({ ...ctx, options: { ...ctx.options, invocationState: {} } })) as unknown;
      } as never);
    }

    it("a gate failure under the fresh object stops the invocation's run: the agent ends with GateFailedError", async () => {
      const agent = scriptedAgent('victim', [call('boom', {}), call('after', { path: '/x' }), say('done')], {
        tools: [recordingTool('boom'), recordingTool('after')],
      });
      install(agent, { gate: failsOnBoom });
      await freshRunFor(agent);
      const error = await agent.invoke('go').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GateFailedError);
      expect(String(error)).toMatch(/policy service down/);
      expect(ran).toEqual([]);
    });

    it('a middleware that copies invocationState (adding a key) runs as before: the copy joins the run', async () => {
      const agent = scriptedAgent('victim', [call('after', { path: '/x' }), say('done')], {
        tools: [recordingTool('after')],
      });
      install(agent, { gate: allowAll() });
      const stage = await agentStreamStage();
      agent.addMiddleware(stage, async function* (
        ctx: { options?: { invocationState?: object } },
        next: (c: object) => AsyncGenerator,
      ) {
        const invocationState = { ...ctx.options?.invocationState, traceId: 't-1' };
        return (yield* next({ ...ctx, options: { ...ctx.options, invocationState } })) as unknown;
      } as never);
      const result = await agent.invoke('go');
      expect(result.stopReason).toBe('endTurn');
      expect(ran).toEqual(['after({"path":"/x"})@victim']);
    });

    it('a loop driven again after its invocation ended is refused, and its gate failure is one', async () => {
      const agent = scriptedAgent('victim', [say('done'), call('after', { path: '/x' }), say('-')], {
        tools: [recordingTool('after')],
      });
      const records: GateRecord[] = [];
      install(agent, {
        gate: { name: 'all', decide: () => ({ verdict: 'allow' }), record: (r) => void records.push(r) },
      });
      const stage = await agentStreamStage();
      let again: (() => Promise<void>) | undefined;
      agent.addMiddleware(stage, async function* (ctx: { options?: object }, next: (c: object) => AsyncGenerator) {
        const result: unknown = yield* next(ctx);
        again = async (): Promise<void> => {
          const gen = next({ ...ctx, options: { ...ctx.options, invocationState: {} } });
          for (let step = await gen.next(); !step.done; step = await gen.next()) {
            // drained
          }
        };
        return result;
      } as never);
      await agent.invoke('go');
      // The model hooks taken out too: the tool call is refused at its decision.
      const registry = agent as unknown as { _hooksRegistry: { _callbacks: Map<unknown, unknown[]> } };
      registry._hooksRegistry._callbacks.get(BeforeModelCallEvent)!.splice(0);
      await again!().catch(() => undefined);
      expect(ran).toEqual([]);
      const why =
        'agent "victim" runs a model or tool call outside any invocation of its own ' +
        '(its loop was driven without the SDK starting an invocation)';
      expect(toolResults(agent)).toContain(`error:[gate] ERROR: ${why}; the run stops`);
      // Refused at the decision as tampering, before the gate is asked.
      expect(records.map((r) => [r.event, r.reason])).toEqual([['tampering', why]]);
    });

    it('in a Graph, a loop driven again after its node ended stops the Graph: the next node is cancelled', async () => {
      const first = scriptedAgent('first', [say('done'), call('after', { path: '/x' }), say('-')], {
        tools: [recordingTool('after')],
      });
      const second = scriptedAgent('second', [call('after', { path: '/y' }), say('done')], {
        tools: [recordingTool('after')],
      });
      const graph = new Graph({ id: 'g', nodes: [first, second], edges: [['first', 'second']] });
      installMultiagent(graph, { gate: allowAll() });
      const stage = await agentStreamStage();
      let detached: Promise<void> | undefined;
      first.addMiddleware(stage, async function* (ctx: { options?: object }, next: (c: object) => AsyncGenerator) {
        const result: unknown = yield* next(ctx);
        detached = (async (): Promise<void> => {
          const gen = next({ ...ctx, options: { ...ctx.options, invocationState: {} } });
          for (let step = await gen.next(); !step.done; step = await gen.next()) {
            // drained
          }
        })().catch(() => undefined);
        return result;
      } as never);
      const gen = graph.stream('go');
      let step = await gen.next();
      while (step.done !== true) {
        const event = step.value as { type?: string; nodeId?: string };
        // The Graph waits between its nodes until the detached loop of `first` has run.
        if (event.type === 'afterNodeCallEvent' && event.nodeId === 'first') await detached;
        step = await gen.next();
      }
      // The node that ran is done; the guard cancels the next one, so the Graph ends cancelled, not completed.
      expect(step.value.status).toBe('CANCELLED');
      expect(ran).toEqual([]);
    });

    it('a loop moved to a primitive invocationState is refused as untrackable and stops the invocation', async () => {
      const agent = scriptedAgent('victim', [call('after', { path: '/x' }), say('done')], {
        tools: [recordingTool('after')],
      });
      install(agent, { gate: allowAll() });
      const stage = await agentStreamStage();
      agent.addMiddleware(stage, async function* (ctx: { options?: object }, next: (c: object) => AsyncGenerator) {
        return (yield* next({ ...ctx, options: { ...ctx.options, invocationState: 'x' } })) as unknown;
      } as never);
      const error = await agent.invoke('go').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GateFailedError);
      expect(String(error)).toContain('is not an object');
      expect(ran).toEqual([]);
    });

    it('an invocation given a primitive invocationState whose loop a middleware moves to an object is refused too', async () => {
      const agent = scriptedAgent('victim', [call('after', { path: '/x' }), say('done')], {
        tools: [recordingTool('after')],
      });
      install(agent, { gate: allowAll() });
      await freshRunFor(agent);
      const error = await agent
        .invoke('go', { invocationState: 'x' as unknown as Record<string, unknown> })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GateFailedError);
      expect(String(error)).toContain('is not an object');
      expect(ran).toEqual([]);
    });

    it('in a fan-out Graph, a sibling whose loop moves to a fresh object after the root run stopped stays stopped', async () => {
      const crash = scriptedAgent('crash', [call('boom', {}), say('done')], { tools: [recordingTool('boom')] });
      const late = scriptedAgent('late', [call('after', { path: '/y' }), say('done')], {
        tools: [recordingTool('after')],
      });
      const graph = new Graph({ id: 'g', nodes: [crash, late], edges: [] });
      installMultiagent(graph, { gate: failsOnBoom });
      const { promise: stopped, resolve: crashed } = deferred();
      crash.addHook(AfterToolCallEvent, () => crashed());
      const stage = await agentStreamStage();
      // The sibling's loop starts only once the root run is stopped, under an object that joins the run then.
      late.addMiddleware(stage, async function* (ctx: { options?: object }, next: (c: object) => AsyncGenerator) {
        await stopped;
        return (yield* next({ ...ctx, options: { ...ctx.options, invocationState: {} } })) as unknown;
      } as never);
      await runOrchestrator(graph).catch(() => undefined);
      expect(ran).toEqual([]);
      // Its model is not called either: the model hook joins the fresh object to the stopped run first.
      expect((late as unknown as { model: { calls: number } }).model.calls).toBe(0);
    });

    it('in a Graph: the node fails, the Graph fails, and the next node does not run', async () => {
      const first = scriptedAgent('first', [call('boom', {}), call('after', { path: '/x' }), say('done')], {
        tools: [recordingTool('boom'), recordingTool('after')],
      });
      const second = scriptedAgent('second', [call('after', { path: '/y' }), say('done')], {
        tools: [recordingTool('after')],
      });
      const graph = new Graph({ id: 'g', nodes: [first, second], edges: [['first', 'second']] });
      installMultiagent(graph, { gate: failsOnBoom });
      await freshRunFor(first);
      const { status } = await runOrchestrator(graph);
      expect(status).toBe('FAILED');
      expect(ran).toEqual([]);
    });
  });
});
