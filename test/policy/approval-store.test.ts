import { describe, expect, it } from 'vitest';
import {
  type ApprovalStore,
  approve,
  approvePending,
  denyPending,
  type Gate,
  GateFailedError,
  install,
  listPending,
  memoryApprovalStore,
  policyGate,
} from '../../src/index.js';
import { answer, askPolicy, pausedOf, pauseInA, restarted, rmAgent, secret } from '../helpers/approvals.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';

isolateEachTest();

describe('approvals with a store (memory)', () => {
  it('writes the pending approval before the run pauses, with the request, reason, rule and input digest', async () => {
    const store = memoryApprovalStore();
    const { paused } = await pauseInA(store);
    const [listed] = await listPending(store, { secret });
    expect(listed?.entry).toMatchObject({
      id: paused.approvalId,
      gate: 'policy',
      rule: 'rm-asks',
      reason: 'deleting needs a human',
      request: { toolName: 'rm', input: { path: '/tmp/x' }, agentId: 'a' },
    });
    expect(listed?.entry.inputDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(listed?.forged).toBeUndefined();
    expect(ran).toEqual([]);
  });

  it('a restarted process resumes from the snapshot and runs the call approved from elsewhere, once', async () => {
    const store = memoryApprovalStore();
    const { paused, snapshot } = await pauseInA(store);
    await approvePending(store, paused.approvalId, { secret, by: 'alice' });
    const a2 = restarted(store, snapshot);
    const result = await a2.invoke(answer(paused.id, paused.approvalId));
    expect(result.stopReason).toBe('endTurn');
    expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
    // A second restart from the same snapshot: the approval is spent, the run stops.
    const a3 = restarted(store, snapshot);
    await expect(a3.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
    expect(ran).toHaveLength(1);
    expect(toolResults(a3)[0]).toMatch(/unknown or was already used/);
  });

  it('the same process resumes with the approval id', async () => {
    const store = memoryApprovalStore();
    const { a, paused } = await pauseInA(store);
    await approvePending(store, paused.approvalId, { secret, by: 'alice' });
    await a.invoke(answer(paused.id, paused.approvalId));
    expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
  });

  it('a denial is a refusal, and it is never overwritten by a later approval', async () => {
    const store = memoryApprovalStore();
    const { paused, snapshot } = await pauseInA(store);
    await denyPending(store, paused.approvalId, { secret, by: 'bob' });
    await expect(approvePending(store, paused.approvalId, { secret, by: 'mallory' })).rejects.toThrow(
      /answered already/,
    );
    const a2 = restarted(store, snapshot);
    await a2.invoke(answer(paused.id, paused.approvalId));
    expect(ran).toEqual([]);
    expect(toolResults(a2)[0]).toMatch(/approval refused \(denied by bob\)/);
  });

  it('refuses a row edited in the store (another input), and stops the run', async () => {
    const store = memoryApprovalStore();
    const { paused, snapshot } = await pauseInA(store);
    await approvePending(store, paused.approvalId, { secret, by: 'alice' });
    const consume = store.consumePending.bind(store);
    store.consumePending = async (id) => {
      const row = await consume(id);
      return row && { ...row, entry: { ...row.entry, reason: 'harmless' } };
    };
    const a2 = restarted(store, snapshot);
    await expect(a2.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
    expect(ran).toEqual([]);
    expect(toolResults(a2)[0]).toMatch(/not written by this gate/);
  });

  it('refuses an expired approval', async () => {
    const store = memoryApprovalStore();
    const { paused, snapshot } = await pauseInA(store, 50);
    await approvePending(store, paused.approvalId, { secret, by: 'alice' });
    await new Promise((r) => setTimeout(r, 80));
    const a2 = restarted(store, snapshot);
    await expect(a2.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
    expect(toolResults(a2)[0]).toMatch(/expired/);
    expect(ran).toEqual([]);
  });

  it('refuses to resume before an answer, and burns the approval', async () => {
    const store = memoryApprovalStore();
    const { paused, snapshot } = await pauseInA(store);
    const a2 = restarted(store, snapshot);
    await expect(a2.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
    expect(toolResults(a2)[0]).toMatch(/not answered/);
    await expect(approvePending(store, paused.approvalId, { secret, by: 'late' })).rejects.toThrow(/already used/);
  });

  it('refuses the call and stops the run when the store cannot take the pending approval', async () => {
    const store = memoryApprovalStore();
    store.putPending = () => Promise.reject(new Error('connection refused'));
    const a = rmAgent(store);
    await expect(a.invoke('go')).rejects.toBeInstanceOf(GateFailedError);
    expect(toolResults(a)[0]).toMatch(/could not store the pending approval: connection refused/);
    expect(ran).toEqual([]);
  });

  it('still accepts a direct approve() token in the same process, consuming the stored row', async () => {
    const store = memoryApprovalStore();
    const { a, paused } = await pauseInA(store);
    await a.invoke(answer(paused.id, approve(paused.request, { secret })));
    expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
    await expect(approvePending(store, paused.approvalId, { secret, by: 'x' })).rejects.toThrow(/already used/);
  });
});

describe('durable approval answers', () => {
  it('refuses a resume answer that is neither the approval id nor a token, and spends the stored approval', async () => {
    const store = memoryApprovalStore();
    const { a, paused } = await pauseInA(store);
    await a.invoke(answer(paused.id, 'yes'));
    expect(ran).toEqual([]);
    expect(toolResults(a)[0]).toMatch(/approval refused \(the answer is neither the approval id/);
    await expect(approvePending(store, paused.approvalId, { secret, by: 'late' })).rejects.toThrow(/already used/);
  });
});

describe('durable approval options and failing checks', () => {
  it('refuses a bad ttlMs and a store without the methods, naming the fix', () => {
    const store = memoryApprovalStore();
    expect(() => policyGate(askPolicy, { approvals: { secret, store, ttlMs: 0 } })).toThrow(
      /option=<approvals.ttlMs> \| must be a positive whole number of ms/,
    );
    expect(() => policyGate(askPolicy, { approvals: { secret, store: {} as unknown as ApprovalStore } })).toThrow(
      /option=<approvals.store> \| the store has no putPending\(\) \| pass postgresStore/,
    );
  });

  it('an interrupt check that throws refuses the call and stops the run', async () => {
    const agent = scriptedAgent('a', [call('rm', { path: '/x' }), say('done')], { tools: [recordingTool('rm')] });
    const gate: Gate = {
      name: 'throwing-check',
      decide: () => ({ verdict: 'ask', reason: 'human' }),
      approval: {
        via: 'interrupt',
        check: () => {
          throw new Error('the approval service is down');
        },
      },
    };
    install(agent, { gate });
    const paused = pausedOf(await agent.invoke('go'));
    await expect(agent.invoke(answer(paused.id, 'anything'))).rejects.toBeInstanceOf(GateFailedError);
    expect(ran).toEqual([]);
    expect(toolResults(agent)[0]).toMatch(/the approval check failed: the approval service is down; the run stops/);
  });
});
