/**
 * What every step of a call leaves behind (`src/enforce/call.ts`), through a real agent and a scripted model:
 * what the decision observer is told, the records given on the way to a refusal, and the stderr line of a gate
 * failure. How a gate's answer is settled (a thenable function, a `then` that throws, the deadline's timer) is in
 * `settle.test.ts`.
 * Each test fails when the line it names is changed.
 *
 * Surviving mutants of call.ts: listed at the top of `execution-check.test.ts`, and one more, equivalent:
 * - `viewOf`'s `'error' in view` (→ `'' in view`): callers read only `record` from the view, absent either way.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { configureGate, type Gate, install } from '../../src/index.js';
import { setDecisionObserver } from '../../src/enforce/observe.js';
import {
  call,
  isolateEachTest,
  observedDecisions,
  ran,
  recordingTool,
  rmAgent,
  say,
  scriptedAgent,
} from '../helpers/sdk.js';
import { settleRun } from '../helpers/runs.js';

isolateEachTest();
afterEach(() => setDecisionObserver(undefined));

/** Every stderr line gate-audit wrote during the test (console.error is muted by isolateEachTest). */
function errorLines(): string[] {
  return vi.mocked(console.error).mock.calls.map((args) => String(args[0]));
}

describe('a gated call (call.ts)', () => {
  describe('when a decision observer is set', () => {
    it('an allowance: the gate, no rule and no reason keys', async () => {
      const seen = observedDecisions();
      const agent = scriptedAgent('a', [call('ls', {}, 'u1'), say('done')], { tools: [recordingTool('ls')] });
      install(agent, { gate: { name: 'allow-all', decide: () => ({ verdict: 'allow' }) } });
      await settleRun(agent);
      expect(seen).toHaveLength(1);
      expect(Object.keys(seen[0] ?? {}).sort()).toEqual([
        'agent',
        'agentId',
        'gate',
        'toolName',
        'toolUseId',
        'verdict',
      ]);
      expect(seen[0]).toMatchObject({
        agentId: 'a',
        toolName: 'ls',
        toolUseId: 'u1',
        gate: 'allow-all',
        verdict: 'allow',
      });
    });

    it('a refusal: its rule and reason', async () => {
      const seen = observedDecisions();
      const agent = rmAgent();
      install(agent, { gate: { name: 'no-rm', decide: () => ({ verdict: 'deny', rule: 'r1', reason: 'no rm' }) } });
      await settleRun(agent);
      expect(seen).toEqual([expect.objectContaining({ gate: 'no-rm', verdict: 'deny', rule: 'r1', reason: 'no rm' })]);
    });

    it('a call with no gate to resolve: an error without a gate key', async () => {
      const seen = observedDecisions();
      const agent = rmAgent();
      configureGate({ name: 'configured', decide: () => ({ verdict: 'allow' }) });
      install(agent);
      configureGate(undefined);
      await settleRun(agent);
      expect(ran).toEqual([]);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ verdict: 'error', toolName: 'rm' });
      expect(seen[0]).not.toHaveProperty('gate');
    });
  });

  describe('when the gate fails: records on the way to the refusal, best effort', () => {
    const failing = (record?: Gate['record']): Gate => ({
      name: 'broken',
      decide: () => {
        throw new Error('decide broke');
      },
      ...(record === undefined ? {} : { record }),
    });

    it('a record that throws: one stderr line naming the agent, and the call is refused all the same', async () => {
      const agent = rmAgent();
      install(agent, {
        gate: failing(() => {
          throw new Error('record broke');
        }),
      });
      await settleRun(agent);
      expect(ran).toEqual([]);
      expect(errorLines()).toContain('[gate-audit] ERROR agent=<a> | could not record a refusal: record broke');
    });

    it('a record that rejects: no unhandled rejection, no line', async () => {
      const unhandled: unknown[] = [];
      const onRejection = (reason: unknown): void => void unhandled.push(reason);
      process.on('unhandledRejection', onRejection);
      try {
        const agent = rmAgent();
        install(agent, { gate: failing(() => Promise.reject(new Error('record rejected'))) });
        await settleRun(agent);
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(ran).toEqual([]);
        expect(unhandled).toEqual([]);
        expect(errorLines().some((line) => line.includes('could not record'))).toBe(false);
      } finally {
        process.off('unhandledRejection', onRejection);
      }
    });

    it('a gate without record, or no gate at all: nothing to record and no line about it', async () => {
      const agent = rmAgent();
      install(agent, { gate: failing() });
      await settleRun(agent);
      const other = rmAgent();
      configureGate({ name: 'configured', decide: () => ({ verdict: 'allow' }) });
      install(other);
      configureGate(undefined);
      await settleRun(other);
      expect(ran).toEqual([]);
      expect(errorLines().some((line) => line.includes('could not record'))).toBe(false);
    });

    it("the gate failure's own line names the tool, the agent and its place (none known for install())", async () => {
      const agent = rmAgent();
      install(agent, { gate: failing() });
      await settleRun(agent);
      expect(errorLines()).toContainEqual(
        expect.stringMatching(
          /^\[gate-audit\] ERROR tool=<rm>, agent=<a>, path=<> \| gate "broken" threw: decide broke$/,
        ),
      );
    });
  });
});
