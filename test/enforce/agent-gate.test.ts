import {
  BeforeModelCallEvent,
  BeforeToolCallEvent,
  ExecuteToolStage,
  HookOrder,
  InterventionHandler,
} from '@strands-agents/sdk';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import {
  allowAll,
  configureGate,
  type Decision,
  type Gate,
  GateFailedError,
  install,
  isGated,
  type ToolCallRequest,
} from '../../src/index.js';
import { call, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';

function recordingGate(decide: (request: ToolCallRequest) => Decision | Promise<Decision>): Gate & {
  seen: ToolCallRequest[];
} {
  const seen: ToolCallRequest[] = [];
  return {
    name: 'recording',
    seen,
    decide: (request) => {
      seen.push(request);
      return decide(request);
    },
  };
}

const denyRm = (): ReturnType<typeof recordingGate> =>
  recordingGate((r) =>
    r.toolName === 'rm' ? { verdict: 'deny', reason: 'rm is not allowed', rule: 'no-rm' } : { verdict: 'allow' },
  );

let errors: MockInstance<typeof console.error>;
beforeEach(() => {
  ran.length = 0;
  errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  configureGate(undefined);
  errors.mockRestore();
});

describe('install(agent)', () => {
  describe('when the gate denies', () => {
    it('never runs the tool and tells the model why, then the run goes on', async () => {
      const agent = scriptedAgent('a', [call('rm', { path: '/x' }), say('done')], { tools: [recordingTool('rm')] });
      install(agent, { gate: denyRm() });
      const result = await agent.invoke('go');
      expect(ran).toEqual([]);
      expect(toolResults(agent)).toEqual([
        'error:[gate] BLOCKED: rm is not allowed | tool=<rm>, agent=<a>, rule=<no-rm>',
      ]);
      expect(result.stopReason).toBe('endTurn');
      expect(agent.model.calls).toBe(2);
    });

    it('refuses an ask like a deny while no approval path exists', async () => {
      const agent = scriptedAgent('a', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
      install(agent, { gate: recordingGate(() => ({ verdict: 'ask', reason: 'risky' })) });
      await agent.invoke('go');
      expect(ran).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(
        /^error:\[gate\] BLOCKED: approval required \(risky\) but no approval path/,
      );
    });
  });

  describe('when the gate allows', () => {
    it('runs the tool unchanged and gives the gate the whole request', async () => {
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }, 'use-1'), say('done')], {
        tools: [recordingTool('ls')],
      });
      const gate = recordingGate(() => ({ verdict: 'allow' }));
      install(agent, { gate });
      await agent.invoke('go');
      expect(ran).toEqual(['ls({"path":"/tmp"})@a']);
      expect(gate.seen).toEqual([
        {
          toolUseId: 'use-1',
          toolName: 'ls',
          input: { path: '/tmp' },
          agentId: 'a',
          agentName: 'a',
          // An agent gated on its own sits in no known tree: its place is unknown, never made up.
          path: [],
          paths: [],
          toolKind: 'function',
          framework: 'strands',
        },
      ]);
    });

    it('hands the gate a frozen copy: a gate that mutates the input fails closed and nothing runs', async () => {
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), say('done')], { tools: [recordingTool('ls')] });
      install(agent, {
        gate: recordingGate((r) => {
          (r.input as { path: string }).path = '/etc';
          return { verdict: 'allow' };
        }),
      });
      await expect(agent.invoke('go')).rejects.toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
    });
  });

  describe('when the gate fails', () => {
    const failures: [string, Gate][] = [
      [
        'throws',
        {
          name: 'throws',
          decide: () => {
            throw new Error('gate crashed');
          },
        },
      ],
      ['rejects', { name: 'rejects', decide: () => Promise.reject(new Error('gate crashed')) }],
      ['answers garbage', { name: 'garbage', decide: () => ({ verdict: 'maybe' }) as unknown as Decision }],
      ['answers nothing', { name: 'nothing', decide: () => undefined as unknown as Decision }],
      ['denies without a reason', { name: 'no-reason', decide: () => ({ verdict: 'deny' }) as unknown as Decision }],
    ];
    for (const [what, gate] of failures) {
      it(`${what}: refuses with [gate] ERROR:, runs no later tool and does not call the model again`, async () => {
        // Without the fail-closed stop, the SDK's drain calls the model again and runs /2 and /3.
        for (const executor of ['sequential', 'concurrent'] as const) {
          ran.length = 0;
          const agent = scriptedAgent(
            `a-${executor}`,
            [call('rm', { path: '/1' }), call('rm', { path: '/2' }), call('rm', { path: '/3' }), say('done')],
            { tools: [recordingTool('rm')], toolExecutor: executor },
          );
          install(agent, { gate });
          const error = await agent.invoke('go').then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(GateFailedError);
          expect((error as GateFailedError).code).toBe('GATE_FAILED');
          expect(ran).toEqual([]);
          expect(toolResults(agent)).toHaveLength(1);
          expect(toolResults(agent)[0]).toMatch(/^error:\[gate\] ERROR: /);
          expect(agent.model.calls).toBe(1);
        }
        expect(errors).toHaveBeenCalled();
      });
    }

    it('stops every sibling of a concurrent batch once the gate failed', async () => {
      let n = 0;
      const agent = scriptedAgent(
        'batch',
        [
          {
            tools: [
              { name: 'rm', input: { path: '/1' } },
              { name: 'rm', input: { path: '/2' } },
            ],
          },
          say('done'),
        ],
        { tools: [recordingTool('rm')] },
      );
      install(agent, {
        gate: {
          name: 'first-call-crashes',
          decide: () => {
            n += 1;
            if (n === 1) throw new Error('boom');
            return { verdict: 'allow' };
          },
        },
      });
      await expect(agent.invoke('go')).rejects.toBeInstanceOf(GateFailedError);
      // The allowed sibling is refused too: its decision, or its execution check, sees the stopped run.
      expect(ran).toEqual([]);
      expect(agent.model.calls).toBe(1);
    });

    it('starts the next invocation clean', async () => {
      let crash = true;
      // The first invocation uses one model turn (the crash stops it), the second runs the next two.
      const agent = scriptedAgent('a', [call('ls'), call('ls'), say('two')], { tools: [recordingTool('ls')] });
      install(agent, {
        gate: {
          name: 'flaky',
          decide: () => {
            if (crash) throw new Error('x');
            return { verdict: 'allow' };
          },
        },
      });
      await expect(agent.invoke('first')).rejects.toBeInstanceOf(GateFailedError);
      crash = false;
      await agent.invoke('second');
      expect(ran).toEqual(['ls({})@a']);
    });

    it('refuses every call once the configured gate is unset (configured gates resolve at each call)', async () => {
      configureGate(allowAll());
      const agent = scriptedAgent('a', [call('ls'), call('ls'), say('done')], { tools: [recordingTool('ls')] });
      install(agent);
      configureGate(undefined);
      await expect(agent.invoke('go')).rejects.toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(/^error:\[gate\] ERROR: no gate is configured/);
      expect(agent.model.calls).toBe(1);
    });

    it('is not skipped by an earlier hook that throws (the gate is registered first)', async () => {
      const agent = scriptedAgent('a', [call('rm', { path: '/1' }), call('rm', { path: '/2' }), say('done')], {
        tools: [recordingTool('rm')],
      });
      agent.addHook(
        BeforeToolCallEvent,
        () => {
          throw new Error('telemetry bug');
        },
        { order: -Infinity },
      );
      const gate = recordingGate(() => ({ verdict: 'deny', reason: 'no' }));
      install(agent, { gate });
      await agent.invoke('go').catch(() => undefined);
      expect(gate.seen.map((r) => r.input)).toContainEqual({ path: '/1' });
      expect(ran).toEqual([]);
    });
  });

  describe('when hooks or middleware act on a call after its decision (what runs is what was judged)', () => {
    function tamperedAgent(
      tamper: (agent: ReturnType<typeof scriptedAgent>) => void,
      first = call('ls', { path: '/tmp' }),
    ) {
      const agent = scriptedAgent('t', [first, say('done')], { tools: [recordingTool('ls'), recordingTool('rm')] });
      install(agent, {
        gate: recordingGate((r) =>
          r.toolName === 'rm' || (r.input as { path?: string }).path === '/etc'
            ? { verdict: 'deny', reason: 'no' }
            : { verdict: 'allow' },
        ),
      });
      tamper(agent);
      return agent;
    }

    const cases: [string, (agent: ReturnType<typeof scriptedAgent>) => void, ReturnType<typeof call>?][] = [
      [
        'a later hook mutates the input',
        (a) =>
          a.addHook(
            BeforeToolCallEvent,
            (e) => {
              (e.toolUse.input as { path: string }).path = '/etc';
            },
            { order: HookOrder.SDK_LAST },
          ),
      ],
      [
        'a later hook renames the tool',
        (a) =>
          a.addHook(
            BeforeToolCallEvent,
            (e) => {
              e.toolUse.name = 'rm';
            },
            { order: HookOrder.SDK_LAST },
          ),
      ],
      [
        'a later hook sets selectedTool',
        (a) =>
          a.addHook(
            BeforeToolCallEvent,
            (e) => {
              e.selectedTool = a.toolRegistry.get('rm');
            },
            { order: Infinity },
          ),
      ],
      [
        'a later hook clears cancel',
        (a) =>
          a.addHook(
            BeforeToolCallEvent,
            (e) => {
              e.cancel = false;
            },
            { order: Infinity },
          ),
        call('rm', { path: '/' }),
      ],
      [
        'middleware swaps the tool',
        (a) =>
          a.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
            return yield* next({ ...ctx, tool: a.toolRegistry.get('rm') });
          }),
      ],
      [
        'input-phase middleware rewrites the input',
        (a) =>
          a.addMiddleware(ExecuteToolStage.Input, (ctx) => ({
            ...ctx,
            toolUse: { ...ctx.toolUse, input: { path: '/etc' } },
          })),
      ],
      [
        'a deny intervention is undone by a later hook',
        (a) =>
          a.addHook(
            BeforeToolCallEvent,
            (e) => {
              e.cancel = false;
            },
            { order: 100 },
          ),
        call('rm', { path: '/' }),
      ],
    ];
    for (const [what, tamper, first] of cases) {
      it(`refuses the call and stops the run when ${what}`, async () => {
        const agent = tamperedAgent(tamper, first);
        await expect(agent.invoke('go')).rejects.toBeInstanceOf(GateFailedError);
        expect(ran).toEqual([]);
        expect(toolResults(agent)[0]).toMatch(/^error:\[gate\] BLOCKED: /);
        expect(agent.model.calls).toBe(1);
      });
    }

    it('withholds the result and stops the run when a middleware runs a tool without calling next', async () => {
      const agent = scriptedAgent('self', [call('ls', { path: '/tmp' }), call('ls'), say('done')], {
        tools: [recordingTool('ls'), recordingTool('rm')],
      });
      install(agent, { gate: allowAll() });
      const rm = agent.toolRegistry.get('rm');
      agent.addMiddleware(ExecuteToolStage, async function* (ctx) {
        const gen = rm!.stream({
          ...ctx,
          toolUse: { name: 'rm', toolUseId: ctx.toolUse.toolUseId, input: { path: '/mw' } },
        } as never);
        let n = await gen.next();
        while (!n.done) n = await gen.next();
        yield* [];
        return { result: n.value };
      });
      await expect(agent.invoke('go')).rejects.toBeInstanceOf(GateFailedError);
      // This is detection after the fact: the body ran (it cannot be prevented from outside), but the model
      // never sees its output and the run stops before the next model call.
      expect(ran).toEqual(['rm({"path":"/mw"})@self']);
      expect(toolResults(agent)[0]).toMatch(/^error:\[gate\] ERROR: tool call "ls" skipped the gate check/);
      expect(agent.model.calls).toBe(1);
    });

    it('passes calls through other middleware that leaves them alone', async () => {
      const agent = scriptedAgent('mw', [call('ls', { path: '/tmp' }), say('done')], { tools: [recordingTool('ls')] });
      install(agent, { gate: allowAll() });
      const seen: string[] = [];
      agent.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
        seen.push(ctx.toolUse.name);
        return yield* next(ctx);
      });
      await agent.invoke('go');
      expect(seen).toEqual(['ls']);
      expect(ran).toEqual(['ls({"path":"/tmp"})@mw']);
    });

    it('keeps a deny intervention working alongside the gate', async () => {
      class NoLs extends InterventionHandler {
        readonly name = 'no-ls';
        override beforeToolCall(): ReturnType<InterventionHandler['beforeToolCall']> {
          return { type: 'deny', reason: 'nope' } as never;
        }
      }
      const agent = scriptedAgent('iv', [call('ls'), say('done')], {
        tools: [recordingTool('ls')],
        interventions: [new NoLs()],
      });
      install(agent, { gate: allowAll() });
      await agent.invoke('go');
      expect(ran).toEqual([]);
    });
  });

  describe('when it builds the request the gate judges (tool kind, input)', () => {
    it("names a user tool called strands_structured_output an ordinary 'function' tool", async () => {
      const agent = scriptedAgent('so', [call('strands_structured_output', { path: '/x' }), say('done')], {
        tools: [recordingTool('strands_structured_output')],
      });
      const gate = recordingGate(() => ({ verdict: 'allow' }));
      install(agent, { gate });
      await agent.invoke('go');
      expect(gate.seen.map((r) => r.toolKind)).toEqual(['function']);
    });

    it("names the SDK's own structured-output tool 'structured-output'", async () => {
      const { z } = await import('zod');
      const agent = scriptedAgent('so2', [call('strands_structured_output', { answer: 'x' })], {
        structuredOutputSchema: z.object({ answer: z.string() }),
      });
      const gate = recordingGate(() => ({ verdict: 'allow' }));
      install(agent, { gate });
      const result = await agent.invoke('go');
      expect(gate.seen.map((r) => r.toolKind)).toEqual(['structured-output']);
      expect(result.structuredOutput).toEqual({ answer: 'x' });
    });

    it('drops the background-task marker from the input before judging', async () => {
      const agent = scriptedAgent('bg', [call('ls', { path: '/a', _background_execution: false }), say('done')], {
        tools: [recordingTool('ls')],
      });
      const gate = recordingGate(() => ({ verdict: 'allow' }));
      install(agent, { gate });
      await agent.invoke('go');
      expect(gate.seen[0]?.input).toEqual({ path: '/a' });
    });
  });

  describe('when the agent runs the concurrent executor', () => {
    it('decides each call of one turn for its own toolUseId; allowed siblings run, denied ones do not', async () => {
      const agent = scriptedAgent(
        'c',
        [
          {
            tools: [
              { name: 'ls', input: { path: '/1' }, id: 'u1' },
              { name: 'rm', input: { path: '/2' }, id: 'u2' },
              { name: 'ls', input: { path: '/3' }, id: 'u3' },
              { name: 'rm', input: { path: '/4' }, id: 'u4' },
            ],
          },
          say('done'),
        ],
        { tools: [recordingTool('ls'), recordingTool('rm')], toolExecutor: 'concurrent' },
      );
      const gate = recordingGate(async (r) => {
        await new Promise((resolve) => setTimeout(resolve, r.toolUseId === 'u1' ? 20 : 1));
        return r.toolName === 'rm' ? { verdict: 'deny', reason: 'no rm' } : { verdict: 'allow' };
      });
      install(agent, { gate });
      await agent.invoke('go');
      expect(gate.seen.map((r) => r.toolUseId).sort()).toEqual(['u1', 'u2', 'u3', 'u4']);
      expect([...ran].sort()).toEqual(['ls({"path":"/1"})@c', 'ls({"path":"/3"})@c']);
      expect(toolResults(agent).filter((r) => r.startsWith('error:[gate] BLOCKED: no rm'))).toHaveLength(2);
    });
  });

  describe('when install is called again or the gate is removed', () => {
    it('gates an agent once however often install is called', async () => {
      const agent = scriptedAgent('a', [call('ls'), say('done')], { tools: [recordingTool('ls')] });
      const gate = recordingGate(() => ({ verdict: 'allow' }));
      const first = install(agent, { gate });
      const second = install(agent, { gate });
      expect(second).toBe(first);
      await agent.invoke('go');
      expect(gate.seen).toHaveLength(1);
      expect(isGated(agent)).toBe(true);
    });

    it('reports the gate gone when its hook is removed, and the handle can uninstall it', () => {
      const agent = scriptedAgent('a', [say('x')]);
      const handle = install(agent, { gate: allowAll() });
      expect(handle.isActive()).toBe(true);
      handle.uninstall();
      expect(handle.isActive()).toBe(false);
      expect(isGated(agent)).toBe(false);
    });
  });

  describe('when the gate failed and a later hook clears the model-call cancel', () => {
    it('keeps the model stopped after a gate error even when a later hook clears the model-call cancel', async () => {
      const agent = scriptedAgent('m', [call('rm'), call('rm'), say('done')], { tools: [recordingTool('rm')] });
      install(agent, {
        gate: {
          name: 'x',
          decide: () => {
            throw new Error('x');
          },
        },
      });
      agent.addHook(
        BeforeModelCallEvent,
        (e) => {
          e.cancel = false;
        },
        { order: 1000 },
      );
      await expect(agent.invoke('go')).rejects.toBeInstanceOf(GateFailedError);
      expect(agent.model.calls).toBe(1);
      expect(ran).toEqual([]);
    });
  });
});
