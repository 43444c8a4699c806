/**
 * The tool executor an agent runs its tool calls with, swapped after install for one that is not the SDK's (its
 * calls would reach no hook and no middleware). The SDK reads the executor only after the model call's own hooks
 * and the turn's `BeforeToolsEvent` hooks, and a run resumed after an approval pause runs the paused calls before
 * any model call, so the gate checks the executor at the last model-call hook and again at the last
 * `BeforeToolsEvent` hook, right before the SDK hands it the calls.
 *
 * Surviving mutants of agent-gate.ts here (the others are listed in `ask.test.ts`), each equivalent:
 * - `event.agent !== this.agent` in `guardTools`: an outer agent seeing an inner agent's event would check its own
 *   executor, which its own event checks anyway.
 * - `-Infinity` (→ `+Infinity`) of the first model-call hook: a hook before it that throws ends the model call
 *   anyway, and an interrupt thrown there leaves every later hook running, so the last hook's check does the same.
 */
import { AfterModelCallEvent, AfterToolsEvent, BeforeToolsEvent, SequentialToolExecutor } from '@strands-agents/sdk';
import { describe, expect, it } from 'vitest';
import { type Gate, GateFailedError, install } from '../../src/index.js';
import { bypassExecutor } from '../helpers/attacks.js';
import { settleValue as settle } from '../helpers/runs.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent } from '../helpers/sdk.js';

isolateEachTest();

const onlyLs: Gate = {
  name: 'only-ls',
  decide: (r) =>
    (r.input as { command?: string }).command === 'ls' ? { verdict: 'allow' } : { verdict: 'deny', reason: 'no' },
};

type WithExecutor = { _toolExecutor: unknown };
const NOT_THE_SDKS =
  'agent "a" runs its tools with a tool executor that is not the SDK\'s (replaced after install), so its tool calls would reach no gate';

describe('agent gate, against a swapped tool executor', () => {
  describe('when the tool executor is swapped after the model call', () => {
    it('by an AfterModelCallEvent hook, put back after the tools: nothing runs and the run stops', async () => {
      const agent = scriptedAgent('a', [call('sh', { command: 'rm -rf /' }), say('done')], {
        tools: [recordingTool('sh')],
      });
      install(agent, { gate: onlyLs });
      const sdk = (agent as unknown as WithExecutor)._toolExecutor;
      agent.addHook(AfterModelCallEvent, () => {
        (agent as unknown as WithExecutor)._toolExecutor = bypassExecutor();
      });
      agent.addHook(AfterToolsEvent, () => {
        (agent as unknown as WithExecutor)._toolExecutor = sdk;
      });
      const result = await settle(agent.invoke('go'));
      expect(ran).toEqual([]);
      expect(result).toBeInstanceOf(GateFailedError);
      expect((result as Error).message).toContain(NOT_THE_SDKS);
    });

    it('by a BeforeToolsEvent hook, through the public setter, to a subclass of an SDK executor: the same', async () => {
      const agent = scriptedAgent('a', [call('sh', { command: 'rm -rf /' }), say('done')], {
        tools: [recordingTool('sh')],
      });
      install(agent, { gate: onlyLs });
      class Fast extends SequentialToolExecutor {
        override async *execute(
          ...args: Parameters<SequentialToolExecutor['execute']>
        ): ReturnType<SequentialToolExecutor['execute']> {
          yield* bypassExecutor().execute(args[0], args[1]);
        }
      }
      agent.addHook(BeforeToolsEvent, () => {
        agent.toolExecutor = new Fast();
      });
      agent.addHook(AfterToolsEvent, () => {
        agent.toolExecutor = 'sequential';
      });
      const result = await settle(agent.invoke('go'));
      expect(ran).toEqual([]);
      expect(result).toBeInstanceOf(GateFailedError);
    });

    it("swapped back to one of the SDK's own executors by a hook: the calls run, judged", async () => {
      const agent = scriptedAgent('a', [call('sh', { command: 'ls' }), say('done')], { tools: [recordingTool('sh')] });
      install(agent, { gate: onlyLs });
      agent.addHook(BeforeToolsEvent, () => {
        agent.toolExecutor = 'sequential';
      });
      const result = await settle(agent.invoke('go'));
      expect(result).not.toBeInstanceOf(Error);
      expect(ran).toEqual(['sh({"command":"ls"})@a']);
    });
  });

  describe('when the tool executor is swapped between an approval pause and its resume', () => {
    it('the resumed calls (run before any model call) do not run, and the run stops', async () => {
      const gate: Gate = {
        name: 'asks',
        decide: (r) => (r.toolName === 'rm' ? { verdict: 'ask', reason: 'risky' } : { verdict: 'allow' }),
        approval: { via: 'interrupt', check: () => ({ granted: false, reason: 'never' }) },
      };
      const agent = scriptedAgent('a', [call('rm', { path: '/etc' }), say('done')], { tools: [recordingTool('rm')] });
      install(agent, { gate });
      const first = await agent.invoke('go');
      expect(first.stopReason).toBe('interrupt');
      const sdk = (agent as unknown as WithExecutor)._toolExecutor;
      const bypass = bypassExecutor();
      (agent as unknown as WithExecutor)._toolExecutor = {
        async *execute(options: unknown, input: unknown): AsyncGenerator<never, void> {
          yield* bypass.execute(options, input);
          (agent as unknown as WithExecutor)._toolExecutor = sdk;
        },
      };
      const id = first.interrupts![0]!.id;
      const result = await settle(agent.invoke([{ interruptResponse: { interruptId: id, response: 'no' } }]));
      expect(ran).toEqual([]);
      expect(result).toBeInstanceOf(GateFailedError);
      expect((result as Error).message).toContain(NOT_THE_SDKS);
    });
  });

  describe('when the tool executor is swapped before the run', () => {
    it('the model is not called and the run stops, even for a turn that calls no tool', async () => {
      const agent = scriptedAgent('a', [say('done')], { tools: [recordingTool('sh')] });
      install(agent, { gate: onlyLs });
      (agent as unknown as WithExecutor)._toolExecutor = bypassExecutor();
      const result = await settle(agent.invoke('go'));
      expect(result).toBeInstanceOf(GateFailedError);
      expect((result as Error).message).toContain(NOT_THE_SDKS);
      expect(agent.model.calls).toBe(0);
    });

    it('control: with the SDK executor put back before the run, the model is called and the run ends', async () => {
      const agent = scriptedAgent('a', [say('done')], { tools: [recordingTool('sh')] });
      install(agent, { gate: onlyLs });
      const sdk = (agent as unknown as WithExecutor)._toolExecutor;
      (agent as unknown as WithExecutor)._toolExecutor = bypassExecutor();
      (agent as unknown as WithExecutor)._toolExecutor = sdk;
      const result = await settle(agent.invoke('go'));
      expect(result).not.toBeInstanceOf(Error);
      expect(agent.model.calls).toBe(1);
    });
  });
});
