/**
 * Settling what a gate's method returned (`src/enforce/settle.ts`): synchronously when it answered at once, within
 * a deadline when it returned a thenable whose `then` is read once; then the same through a real agent and a
 * scripted model (a thenable function, a `then` that throws, the deadline's timer).
 */
import { describe, expect, it } from 'vitest';
import { install } from '../../src/index.js';
import { andThen, Late, rejected, settle } from '../../src/enforce/settle.js';
import { call, isolateEachTest, ran, recordingTool, rmAgent, say, scriptedAgent, toolResults } from '../helpers/sdk.js';
import { settleRun } from '../helpers/runs.js';

isolateEachTest();

describe('settle', () => {
  describe('when the answer is not a thenable', () => {
    it('settles a value at once, without a promise', () => {
      const settled = settle(() => ({ verdict: 'allow' }), 50);
      expect(settled).not.toBeInstanceOf(Promise);
      expect(settled).toEqual({ value: { verdict: 'allow' } });
      expect(settle(() => undefined, undefined)).toEqual({ value: undefined });
    });

    it('settles a throw at once, as what was thrown', () => {
      const error = new Error('decide broke');
      const settled = settle(() => {
        throw error;
      }, 50);
      expect(settled).not.toBeInstanceOf(Promise);
      expect(settled).toEqual({ thrown: error });
    });

    it('takes an object whose then is no function as a value', () => {
      const answer = { then: 'not a function' };
      expect(settle(() => answer, 50)).toEqual({ value: answer });
    });

    it('takes a then getter that throws as thrown, at once', () => {
      const error = new Error('then getter broke');
      const answer = Object.defineProperty({}, 'then', {
        get() {
          throw error;
        },
      });
      expect(settle(() => answer, 50)).toEqual({ thrown: error });
    });
  });

  describe('when the answer is a thenable', () => {
    it('awaits a promise to its value, or to what it rejected with', async () => {
      const error = new Error('rejected');
      const settled = settle(() => Promise.resolve(3), 50);
      expect(settled).toBeInstanceOf(Promise);
      expect(await settled).toEqual({ value: 3 });
      expect(await settle(() => Promise.reject(error), 50)).toEqual({ thrown: error });
    });

    it('reads then once and calls it on the answer', async () => {
      let reads = 0;
      const thisArgs: unknown[] = [];
      const answer = {
        get then() {
          reads += 1;
          return function (this: unknown, ok: (value: unknown) => void) {
            thisArgs.push(this);
            ok('answered');
          };
        },
      };
      expect(await settle(() => answer, 50)).toEqual({ value: 'answered' });
      expect(reads).toBe(1);
      expect(thisArgs).toEqual([answer]);
    });

    it('gives Late with its deadline for an answer that never settles within it', async () => {
      const settled = await settle(() => new Promise(() => undefined), 20);
      expect(settled).toBeInstanceOf(Late);
      expect((settled as Late).ms).toBe(20);
    });

    it('waits without a deadline when none is given', async () => {
      const late = new Promise((resolve) => setTimeout(() => resolve('slow'), 30));
      expect(await settle(() => late, undefined)).toEqual({ value: 'slow' });
    });
  });

  describe("when a gated agent's gate answers (the decision settles its answer)", () => {
    it('follows a thenable that is a function, as it follows a thenable object', async () => {
      const answer = Object.assign(() => undefined, {
        then: (ok: (v: unknown) => void) => ok({ verdict: 'deny', reason: 'a function said no' }),
      });
      const agent = rmAgent();
      install(agent, { gate: { name: 'fn-then', decide: () => answer as never } });
      await settleRun(agent);
      expect(ran).toEqual([]);
      expect(toolResults(agent)).toEqual(['error:[gate] BLOCKED: a function said no | tool=<rm>, agent=<a>']);
    });

    it('takes a `then` that throws as the gate failing, with its message, without waiting for the deadline', async () => {
      const agent = rmAgent();
      const decide = (): never =>
        ({
          then: () => {
            throw new Error('then broke');
          },
        }) as never;
      install(agent, { gate: { name: 'then-throws', decide }, timeoutMs: 5_000 });
      const started = Date.now();
      await settleRun(agent);
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(ran).toEqual([]);
      expect(toolResults(agent)).toEqual([expect.stringMatching(/^error:\[gate\] ERROR: .*then broke/)]);
    });

    it('clears the deadline timer once the answer settled, so nothing keeps the process alive', async () => {
      const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
      const agent = scriptedAgent('a', [call('ls', {}, 'u1'), say('done')], { tools: [recordingTool('ls')] });
      install(agent, {
        gate: { name: 'async-allow', decide: () => Promise.resolve({ verdict: 'allow' as const }) },
        timeoutMs: 600_000,
      });
      const before = timers();
      await settleRun(agent);
      expect(ran).toEqual(['ls({})@a']);
      expect(timers()).toBeLessThanOrEqual(before);
    });
  });
});

describe('andThen', () => {
  describe('when the value is not a promise', () => {
    it('applies next at once and gives its result as it is', () => {
      expect(andThen(2, (n) => n * 3)).toBe(6);
    });
  });

  describe('when the value is a promise', () => {
    it('applies next once it settled, giving a promise', async () => {
      const result = andThen(Promise.resolve(2), (n) => n * 3);
      expect(result).toBeInstanceOf(Promise);
      expect(await result).toBe(6);
    });
  });
});

describe('rejected', () => {
  describe('when called with an error', () => {
    it('gives a promise rejected with that error', async () => {
      const error = new Error('no');
      await expect(rejected(error)).rejects.toBe(error);
    });
  });
});
