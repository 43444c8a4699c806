/**
 * Attacks on approvals (`src/enforce/ask.ts`): outcomes that only resemble a grant, an approval answered in a
 * run that a gate failure stopped.
 */
import { type InterruptResponseContentData } from '@strands-agents/sdk';
import { describe, expect, it } from 'vitest';
import { type Gate, GateFailedError, install } from '../../src/index.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';

isolateEachTest();

describe('approvals (ask.ts)', () => {
  describe('when an approval outcome is not exactly granted: true', () => {
    for (const granted of ['yes', 1, 'true'] as const) {
      it(`an approval outcome { granted: ${JSON.stringify(granted)} } does not approve [A8]`, async () => {
        const agent = scriptedAgent('a', [call('rm'), say('-')], { tools: [recordingTool('rm')] });
        install(agent, {
          gate: {
            name: 'asks',
            decide: () => ({ verdict: 'ask', reason: 'needs a human' }),
            approval: { via: 'callback', ask: () => ({ granted }) as never },
          },
        });
        await agent.invoke('go');
        expect(ran).toEqual([]);
        expect(toolResults(agent)[0]).toMatch(/approval refused/);
      });
    }
  });

  describe('when an approval was asked in a run that a gate failure stopped', () => {
    it('is not answered in a new run: the resumed call is refused, nothing runs and the model is not called', async () => {
      const gate: Gate = {
        name: 'asks-rm-fails-on-boom',
        decide: (r) => {
          if (r.toolName === 'boom') throw new Error('policy service down');
          return r.toolName === 'rm' ? { verdict: 'ask', reason: 'risky' } : { verdict: 'allow' };
        },
        // A human who approves what is shown.
        approval: { via: 'interrupt', check: () => ({ granted: true }) },
      };
      const agent = scriptedAgent(
        'victim',
        [
          {
            tools: [
              { name: 'rm', input: { path: '/' } },
              { name: 'boom', input: {} },
            ],
          },
          say('model called after the stop'),
        ],
        { tools: [recordingTool('rm'), recordingTool('boom')] },
      );
      install(agent, { gate });
      expect(await agent.invoke('go').catch((error: unknown) => error)).toBeInstanceOf(GateFailedError);
      // The app shows the pending approval (the SDK keeps it) and resumes with the human's answer.
      const pending = (
        agent as unknown as { _interruptState: { getUnansweredInterrupts(): { id: string }[] } }
      )._interruptState.getUnansweredInterrupts();
      expect(pending).toHaveLength(1);
      const answers: InterruptResponseContentData[] = pending.map((i) => ({
        interruptResponse: { interruptId: i.id, response: { approved: true } },
      }));
      const second = await agent.invoke(answers).catch((error: unknown) => error);
      expect(second).toBeInstanceOf(GateFailedError);
      expect(String(second)).toMatch(/was asked in a run that was stopped/);
      expect(ran).toEqual([]);
      expect(JSON.stringify(agent.messages)).not.toContain('model called after the stop');
    });
  });
});
