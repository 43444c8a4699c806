/**
 * One decision in one awaited step (`src/enforce/judge.ts`), called directly with a real gate source: the judgement
 * for each verdict, the record written before it is given, an `ask` settled through the callback path or handed
 * back for a pause, and every failure as data. LangGraph's tool node drives it in `test/frameworks/langgraph/`,
 * and the shared guarantee suite (`test/frameworks/seam.guarantees.test.ts`) pins its records for both frameworks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { configureGate, type Gate, type GateRecord, type ToolCallRequest } from '../../src/index.js';
import { gateSource } from '../../src/enforce/gate-source.js';
import { judgeCall, NO_PAUSE, recordBase } from '../../src/enforce/judge.js';

afterEach(() => configureGate(undefined));

const request: ToolCallRequest = {
  toolUseId: 't1',
  toolName: 'rm',
  input: Object.freeze({ path: '/x' }),
  agentId: 'a',
  agentName: 'a',
  path: ['g', 'a'],
  paths: [['g', 'a']],
  toolKind: 'function',
};

/** A gate with a declared id that keeps its records. */
function keeping(gate: Partial<Gate>): Gate & { records: GateRecord[] } {
  const records: GateRecord[] = [];
  return {
    name: 'g',
    id: 'gate-1',
    decide: () => ({ verdict: 'allow' }),
    record: (r) => void records.push(r),
    ...gate,
    records,
  };
}

/** What a record says, without its duration. */
const entry = ({ durationMs: _, ...rest }: GateRecord): Omit<GateRecord, 'durationMs'> => rest;

describe('recordBase', () => {
  describe('when given a call and the id of its gate', () => {
    it('carries the call, its places, its judged input and the gate id', () => {
      expect(recordBase(request, 'gate-1')).toStrictEqual({
        toolName: 'rm',
        toolUseId: 't1',
        agentId: 'a',
        path: ['g', 'a'],
        paths: [['g', 'a']],
        gateId: 'gate-1',
        input: { path: '/x' },
      });
    });
  });
});

describe('judgeCall', () => {
  describe('when the gate allows or denies', () => {
    it('allows with the rule and the gate id, after recording the allow with its duration', async () => {
      const gate = keeping({ decide: () => ({ verdict: 'allow', rule: 'r1' }) });
      expect(await judgeCall(gateSource({ gate }, 'test'), request)).toStrictEqual({
        verdict: 'allow',
        rule: 'r1',
        gateId: 'gate-1',
      });
      expect(gate.records.map(entry)).toStrictEqual([
        { ...recordBase(request, 'gate-1'), event: 'allow', verdict: 'allow', rule: 'r1' },
      ]);
      expect(gate.records[0]?.durationMs).toBeGreaterThanOrEqual(0);
    });

    it('denies with the reason, no rule key when the gate named none', async () => {
      const gate = keeping({ decide: () => Promise.resolve({ verdict: 'deny', reason: 'no rm' }) });
      expect(await judgeCall(gateSource({ gate }, 'test'), request)).toStrictEqual({
        verdict: 'deny',
        reason: 'no rm',
        gateId: 'gate-1',
      });
      expect(gate.records.map(entry)).toStrictEqual([
        { ...recordBase(request, 'gate-1'), event: 'deny', verdict: 'deny', reason: 'no rm' },
      ]);
    });
  });

  describe('when the gate asks', () => {
    it('asks the callback approver, then allows and records the grant with the ask reason and the ids', async () => {
      const asked: unknown[] = [];
      const gate = keeping({
        decide: () => ({ verdict: 'ask', reason: 'risky', rule: 'r2' }),
        approval: {
          via: 'callback',
          ask: (r, decision) => {
            asked.push([r.toolUseId, decision]);
            return { granted: true, approverId: 'alice' };
          },
        },
      });
      expect(await judgeCall(gateSource({ gate }, 'test'), request)).toStrictEqual({
        verdict: 'allow',
        rule: 'r2',
        gateId: 'gate-1',
      });
      expect(asked).toEqual([['t1', { verdict: 'ask', reason: 'risky', rule: 'r2' }]]);
      expect(gate.records.map((r) => [r.event, r.verdict, r.reason, r.rule, r.approverId])).toEqual([
        ['approval-granted', 'allow', 'risky', 'r2', 'alice'],
      ]);
    });

    it('denies a refused approval with its reason, recorded as approval-refused', async () => {
      const gate = keeping({
        decide: () => ({ verdict: 'ask', reason: 'risky' }),
        approval: { via: 'callback', ask: () => ({ granted: false, reason: 'not today' }) },
      });
      expect(await judgeCall(gateSource({ gate }, 'test'), request)).toStrictEqual({
        verdict: 'deny',
        reason: 'approval refused (not today)',
        gateId: 'gate-1',
      });
      expect(gate.records.map((r) => [r.event, r.verdict, r.reason])).toEqual([
        ['approval-refused', 'deny', 'approval refused (not today)'],
      ]);
    });

    it('denies as "no approval path" when the gate has none', async () => {
      const gate = keeping({ decide: () => ({ verdict: 'ask', reason: 'risky' }) });
      const reason = 'approval required (risky) but no approval path is configured';
      expect(await judgeCall(gateSource({ gate }, 'test'), request)).toStrictEqual({
        verdict: 'deny',
        reason,
        gateId: 'gate-1',
      });
      expect(gate.records.map((r) => [r.event, r.reason])).toEqual([['deny', reason]]);
    });

    it('denies an interrupt path where the run cannot pause, saying how to fix it', async () => {
      const gate = keeping({
        decide: () => ({ verdict: 'ask', reason: 'risky' }),
        approval: { via: 'interrupt', check: () => ({ granted: true }) },
      });
      expect(await judgeCall(gateSource({ gate }, 'test'), request, false)).toStrictEqual({
        verdict: 'deny',
        reason: NO_PAUSE,
        gateId: 'gate-1',
      });
      expect(gate.records.map((r) => [r.event, r.reason])).toEqual([['deny', NO_PAUSE]]);
    });

    it('hands an interrupt path back for a pause where the run can pause, recording nothing yet', async () => {
      const check = (): { granted: true } => ({ granted: true });
      const approval = { via: 'interrupt' as const, check };
      const gate = keeping({ decide: () => ({ verdict: 'ask', reason: 'risky', rule: 'r3' }), approval });
      const judgement = await judgeCall(gateSource({ gate }, 'test'), request, true);
      expect(judgement).toMatchObject({ verdict: 'ask', reason: 'risky', rule: 'r3' });
      expect(judgement).toHaveProperty('view.id', 'gate-1');
      expect(judgement).toHaveProperty('path', { via: 'interrupt', approval, check });
      expect(gate.records).toEqual([]);
    });
  });

  describe('when something fails', () => {
    it('fails when the gate throws, recording the error with verdict deny', async () => {
      const gate = keeping({
        decide: () => {
          throw new Error('boom');
        },
      });
      expect(await judgeCall(gateSource({ gate }, 'test'), request)).toStrictEqual({
        failure: 'gate "g" threw: boom',
      });
      expect(gate.records.map((r) => [r.event, r.verdict, r.reason])).toEqual([
        ['error', 'deny', 'gate "g" threw: boom'],
      ]);
    });

    it("keeps the gate's failure when its record fails too", async () => {
      const gate = keeping({
        decide: () => ({ verdict: 'maybe' }) as never,
        record: () => {
          throw new Error('log down');
        },
      });
      expect(await judgeCall(gateSource({ gate }, 'test'), request)).toStrictEqual({
        failure: 'gate "g" answered garbage: decision verdict is "maybe"',
      });
    });

    it('fails an allowed call whose record fails or does not settle within the timeout', async () => {
      const throwing = keeping({
        record: () => {
          throw new Error('log down');
        },
      });
      expect(await judgeCall(gateSource({ gate: throwing }, 'test'), request)).toStrictEqual({
        failure: 'gate "g" could not record the decision: log down',
      });
      const hanging = keeping({ record: () => new Promise<void>(() => undefined) });
      expect(await judgeCall(gateSource({ gate: hanging, timeoutMs: 20 }, 'test'), request)).toStrictEqual({
        failure: 'gate "g" did not record the decision within 20 ms',
      });
    });

    it('fails when the configured gate was unset after the source was made, asking no gate', async () => {
      let asked = 0;
      configureGate({ name: 'configured', decide: () => ((asked += 1), { verdict: 'allow' }) });
      const source = gateSource(undefined, 'test');
      configureGate(undefined);
      expect(await judgeCall(source, request)).toStrictEqual({
        failure: 'no gate is configured any more (configureGate(undefined) was called)',
      });
      expect(asked).toBe(0);
    });
  });
});
