/**
 * The steps both frameworks' drivers take with the gate: asking it once, recording, and the in-process approval.
 * Each failure is data in one set of words; a gate that answers at once is read at once, without a promise.
 *
 * Surviving mutants of gate-answer.ts and judge.ts (CONTRIBUTING.md, "Mutation testing"), each equivalent:
 * - gate-answer.ts, `readMember`'s empty `catch`: the function returns undefined either way.
 * - gate-answer.ts, `approvalPathOf`'s `approval === undefined` check made false: reading `via` of undefined throws
 *   inside `readMember`, which reads as absent, so there is no path either way.
 * - gate-answer.ts, `askApprover`'s 'late' (no coverage): it settles without a deadline, so it is never late.
 * - judge.ts, `pauses = false` made true (no coverage): every caller passes it.
 * - judge.ts, `{ rule }` built when the rule is undefined: a record with `rule: undefined` reads and serialises as
 *   one without it.
 * - judge.ts, the allow judgement's object and its `verdict` (4 mutants): the tool node runs a call whose judgement
 *   is not a failure, a deny or an ask, and passes its rule to the observer only.
 */
import { describe, expect, it } from 'vitest';
import {
  approvalPathOf,
  askApprover,
  askGate,
  gateNow,
  readApprovalOutcome,
  writeRecord,
} from '../../src/enforce/gate-answer.js';
import type { GateSource } from '../../src/enforce/call.js';
import type { Gate, GateRecord, ToolCallRequest } from '../../src/enforce/gate.js';
import { type GateView, viewGate } from '../../src/enforce/gate-identity.js';

const request: ToolCallRequest = {
  toolUseId: 't1',
  toolName: 'rm',
  input: Object.freeze({ path: '/x' }),
  agentId: 'a',
  agentName: 'a',
  path: ['a'],
  paths: [['a']],
  toolKind: 'function',
};

function view(gate: Partial<Gate> & Record<string, unknown>): GateView {
  const read = viewGate({ name: 'g', decide: () => ({ verdict: 'allow' }), ...gate });
  if ('error' in read) throw new Error(read.error);
  return read;
}

describe('gateNow', () => {
  const source = (gate: unknown): GateSource => ({
    name: 'configured',
    key: 'configured',
    resolve: () => gate as Gate | undefined,
    timeoutMs: 50,
  });

  describe('when the source resolves a usable gate', () => {
    it('reads the gate resolved now', () => {
      expect(gateNow(source({ name: 'g', decide: () => ({ verdict: 'allow' }) }))).toMatchObject({ name: 'g' });
    });
  });

  describe('when the configured gate was unset, or the gate cannot be used', () => {
    it('is a failure saying which', () => {
      expect(gateNow(source(undefined))).toEqual({
        failure: 'no gate is configured any more (configureGate(undefined) was called)',
      });
      expect(gateNow(source({ name: 'g' }))).toEqual({ failure: 'gate "g" has no decide() method' });
    });
  });
});

describe('askGate', () => {
  describe('when the gate answers at once', () => {
    it('reads the decision without a promise', () => {
      expect(askGate(view({ decide: () => ({ verdict: 'deny', reason: 'no' }) }), request, undefined, 50)).toEqual({
        verdict: 'deny',
        reason: 'no',
      });
    });

    it('gives the request and the context to decide, once', () => {
      const seen: unknown[][] = [];
      const context = { agent: {}, invocationState: {} } as never;
      const answer = askGate(
        view({ decide: (...args: unknown[]) => (seen.push(args), { verdict: 'allow' }) }),
        request,
        context,
        50,
      );
      expect(answer).toEqual({ verdict: 'allow' });
      expect(seen).toEqual([[request, context]]);
    });
  });

  describe('when the gate gives no decision', () => {
    it.each([
      [
        'answers garbage',
        { decide: (() => 'yes') as unknown as Gate['decide'] },
        'gate "g" answered garbage: decision is "yes", not an object',
      ],
      [
        'throws',
        {
          decide: () => {
            throw new Error('down');
          },
        },
        'gate "g" threw: down',
      ],
    ])('%s: a failure naming the gate', (_what, gate, failure) => {
      expect(askGate(view(gate), request, undefined, 50)).toEqual({ failure });
    });

    it('a promise that never settles is a failure at the timeout', async () => {
      await expect(
        askGate(view({ decide: () => new Promise(() => undefined) }), request, undefined, 20),
      ).resolves.toEqual({ failure: 'gate "g" did not decide within 20 ms' });
    });
  });
});

describe('writeRecord', () => {
  describe('when the gate takes no record', () => {
    it('builds no record', () => {
      let built = 0;
      const make = (): GateRecord => {
        built += 1;
        return { event: 'allow' } as GateRecord;
      };
      expect(writeRecord(view({}), 50, make)).toBeUndefined();
      expect(built).toBe(0);
    });
  });

  describe('when the gate fails to record or does not record in time', () => {
    it('says why a record was not taken', async () => {
      const failing = view({
        record: () => {
          throw new Error('log down');
        },
      });
      expect(writeRecord(failing, 50, () => ({ event: 'allow' }) as GateRecord)).toBe(
        'gate "g" could not record the decision: log down',
      );
      await expect(
        writeRecord(view({ record: () => new Promise(() => undefined) }), 20, () => ({ event: 'allow' }) as GateRecord),
      ).resolves.toBe('gate "g" did not record the decision within 20 ms');
    });
  });
});

describe('readApprovalOutcome', () => {
  describe('when the approver answers an outcome', () => {
    it('grants only for exactly granted: true', () => {
      expect(readApprovalOutcome({ granted: true, approverId: 'bob', approvalId: 7 })).toEqual({
        granted: true,
        ids: { approverId: 'bob' },
      });
      expect(readApprovalOutcome({ granted: true, approvalId: 'p1', approverId: 7 })).toEqual({
        granted: true,
        ids: { approvalId: 'p1' },
      });
      expect(readApprovalOutcome({ granted: 'true' })).toEqual({ granted: false, reason: 'no reason given', ids: {} });
      expect(readApprovalOutcome(null)).toMatchObject({ granted: false, reason: 'the approval answered no outcome' });
    });
  });

  describe('when a getter of the outcome throws', () => {
    it('reads it as a refusal', () => {
      const outcome = {
        get granted(): never {
          throw new Error('boom');
        },
      };
      expect(readApprovalOutcome(outcome)).toEqual({
        granted: false,
        reason: 'reading the approval outcome threw: boom',
        ids: {},
      });
    });
  });
});

describe('approvalPathOf', () => {
  describe('when the gate declares an approval', () => {
    it('reads a usable path once, and none when its via or method is missing or unreadable', () => {
      expect(approvalPathOf(view({ approval: { via: 'callback', ask: () => ({ granted: true }) } }))?.via).toBe(
        'callback',
      );
      expect(approvalPathOf(view({ approval: { via: 'interrupt', check: () => ({ granted: true }) } }))?.via).toBe(
        'interrupt',
      );
      expect(approvalPathOf(view({ approval: { via: 'callback' } as never }))).toBeUndefined();
      expect(approvalPathOf(view({ approval: { via: 'email', ask: () => ({}) } as never }))).toBeUndefined();
      const unreadable = {
        get via(): never {
          throw new Error('no');
        },
      };
      expect(approvalPathOf(view({ approval: unreadable as never }))).toBeUndefined();
    });
  });
});

describe('askApprover', () => {
  describe('when the approver rejects', () => {
    it('is a refusal naming the failure', async () => {
      const path = approvalPathOf(
        view({ approval: { via: 'callback', ask: () => Promise.reject(new Error('pager down')) } }),
      );
      if (path?.via !== 'callback') throw new Error('expected a callback path');
      await expect(askApprover(path, request, { verdict: 'ask', reason: 'risky' })).resolves.toEqual({
        granted: false,
        reason: 'the approval step failed: pager down',
        ids: {},
      });
    });
  });
});
