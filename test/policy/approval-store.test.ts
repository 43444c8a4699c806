import { describe, expect, it, vi } from 'vitest';
import {
  type ApprovalPath,
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
  type ToolCallRequest,
} from '../../src/index.js';
import { storedApprovals } from '../../src/policy/approval-store.js';
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

/**
 * The checks of `src/policy/approval-store.ts` one by one, through its interrupt path (`raise`, `check`, `resume`)
 * and the approver's functions, each written against a mutant that survived the suite (`npm run mutation`,
 * 2026-12-02): most of them are backed up by another check on the runs above (a row for another call also fails
 * its token), so each is asked here where it alone decides, or for the words it answers with.
 */
describe('durable approvals: each check of a stored row', () => {
  const gateId = 'gate-1';
  const live: ToolCallRequest = {
    toolName: 'rm',
    toolUseId: 'tu-1',
    input: { path: '/tmp/x' },
    agentId: 'a',
    agentName: 'a',
    path: ['team', 'a'],
    paths: [['team', 'a']],
    toolKind: 'function',
  };
  type DurablePath = Required<Extract<ApprovalPath, { via: 'interrupt' }>>;
  /** The store's interrupt path, with its optional members (a store path has them all). */
  function durable(options: Parameters<typeof storedApprovals>[0]): DurablePath {
    const path = storedApprovals(options);
    if (path.via !== 'interrupt' || path.raise === undefined || path.resume === undefined) {
      throw new Error('expected the interrupt path of a store');
    }
    return path as DurablePath;
  }
  let n = 0;
  async function raised(
    store: ApprovalStore,
    request: ToolCallRequest = live,
    ttlMs?: number,
  ): Promise<{ path: DurablePath; id: string; nonce: string }> {
    const path = durable({ secret, store, ...(ttlMs === undefined ? {} : { ttlMs }) });
    n += 1;
    const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const nonce = `nonce-${n}`;
    await path.raise({ id, gate: 'policy', gateId, nonce, reason: 'asks', rule: 'r', request });
    return { path, id, nonce };
  }

  it('names each field in which a stored approval is for another call', async () => {
    const others: [Partial<ToolCallRequest>, string][] = [
      [{ agentId: 'b' }, 'agent'],
      [{ path: ['team', 'b'] }, 'place'],
      [{ toolName: 'ls' }, 'tool'],
      [{ toolUseId: 'tu-2' }, 'toolUseId'],
      [{ input: { path: '/etc' } }, 'input'],
    ];
    for (const [change, field] of others) {
      const store = memoryApprovalStore();
      const { path, id } = await raised(store);
      await approvePending(store, id, { secret, by: 'alice' });
      await expect(path.resume({ ...live, ...change }, id, { gateId })).rejects.toThrow(
        `the stored approval is for another call (${field} differ)`,
      );
    }
    const store = memoryApprovalStore();
    const { path, id } = await raised(store);
    await approvePending(store, id, { secret, by: 'alice' });
    await expect(path.resume({ ...live, toolName: 'ls', input: {} }, id, { gateId: 'gate-2' })).rejects.toThrow(
      'the stored approval is for another call (gate, tool, input differ)',
    );
    // The same call, from a restarted process: granted, once.
    const again = await raised(store);
    await approvePending(store, again.id, { secret, by: 'alice' });
    await expect(again.path.resume(live, again.id, { gateId })).resolves.toEqual({ granted: true });
  });

  it("refuses a stored row of the same call raised for another interrupt (its nonce is not this interrupt's)", async () => {
    const store = memoryApprovalStore();
    const first = await raised(store);
    await approvePending(store, first.id, { secret, by: 'alice' });
    // The store answers this interrupt's id with the earlier, approved row of the same call.
    const { path, id, nonce } = await raised(store);
    const replay: ApprovalStore = { ...store, consumePending: () => store.consumePending(first.id) };
    const replaying = durable({ secret, store: replay });
    await expect(replaying.check(live, id, { gateId, nonce, approvalId: id })).rejects.toThrow(/nonce differs/);
    await approvePending(store, id, { secret, by: 'alice' });
    await expect(path.check(live, id, { gateId, nonce, approvalId: id })).resolves.toEqual({ granted: true });
  });

  it('refuses a token given as the answer that is not for this call, and grants the one that is', async () => {
    const store = memoryApprovalStore();
    const { path, id, nonce } = await raised(store);
    const other = approve({ ...live, input: { path: '/etc' }, gateId, nonce }, { secret });
    await expect(path.check(live, other, { gateId, nonce, approvalId: id })).rejects.toThrow(
      `the approval token of ${id} is not for this call`,
    );
    const second = await raised(store);
    const token = approve({ ...live, gateId, nonce: second.nonce }, { secret });
    await expect(
      second.path.check(live, token, { gateId, nonce: second.nonce, approvalId: second.id }),
    ).resolves.toEqual({ granted: true });
  });

  it('is valid up to its expiry, to the millisecond', async () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
    try {
      const store = memoryApprovalStore();
      const { path, id } = await raised(store, live, 1000);
      await approvePending(store, id, { secret, by: 'alice' });
      vi.setSystemTime(1_001_000);
      await expect(path.resume(live, id, { gateId })).resolves.toEqual({ granted: true });
      const late = await raised(store, live, 1000);
      await approvePending(store, late.id, { secret, by: 'alice' });
      vi.setSystemTime(1_002_001);
      await expect(late.path.resume(live, late.id, { gateId })).rejects.toThrow(/expired/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses an interrupt without a stored approval, and a restart answered with anything but an approval id', async () => {
    const store = memoryApprovalStore();
    const { path, nonce } = await raised(store);
    await expect(path.check(live, 'yes', { gateId, nonce })).rejects.toThrow(
      'no stored approval is waiting for this interrupt',
    );
    await expect(path.resume(live, 'yes', { gateId })).resolves.toEqual({
      granted: false,
      reason:
        'the approval answer was not requested by this gate in this process, and it is not the id of a stored approval',
    });
    await expect(path.resume(live, `x${'0'.repeat(35)}`, { gateId })).resolves.toMatchObject({ granted: false });
  });

  it('shows an approver a row whose input was edited (its digest and HMAC kept) as forged, and refuses to answer it', async () => {
    const store = memoryApprovalStore();
    const { id } = await raised(store);
    const get = store.getPending.bind(store);
    const edited = async (rowId: string) => {
      const row = await get(rowId);
      return row && { ...row, entry: { ...row.entry, request: { ...row.entry.request, input: { path: '/tmp/y' } } } };
    };
    const editing: ApprovalStore = {
      ...store,
      getPending: edited,
      listPending: async (options) =>
        Promise.all((await store.listPending(options)).map((r) => edited(r.entry.id))) as never,
    };
    const [listed] = await listPending(editing, { secret });
    expect(listed?.forged).toBe("the stored approval's input does not match its signed digest");
    await expect(approvePending(editing, id, { secret, by: 'alice' })).rejects.toThrow(
      `approval=<${id}> | the stored approval's input does not match its signed digest`,
    );
    expect((await listPending(store, { secret }))[0]?.forged).toBeUndefined();
  });

  it("refuses an approver's answer without a name, to an unknown id, to a used or an expired row", async () => {
    const store = memoryApprovalStore();
    const { path, id } = await raised(store);
    await expect(approvePending(store, id, { secret, by: ' ' })).rejects.toThrow(
      `approval=<${id}> | say who answers | pass { by: 'name' }`,
    );
    await expect(denyPending(store, id, { secret, by: undefined as unknown as string })).rejects.toThrow(
      'say who answers',
    );
    await expect(approvePending(store, 'nope', { secret, by: 'alice' })).rejects.toThrow(
      'approval=<nope> | no such pending approval | list them first',
    );
    await expect(path.resume(live, id, { gateId })).rejects.toThrow(/not answered/);
    await expect(approvePending(store, id, { secret, by: 'alice' })).rejects.toThrow(
      `approval=<${id}> | it was already used by the gate`,
    );
    const short = await raised(store, live, 1);
    await new Promise((r) => setTimeout(r, 5));
    await expect(denyPending(store, short.id, { secret, by: 'bob' })).rejects.toThrow(
      `approval=<${short.id}> | it expired | rerun the agent to ask again`,
    );
  });

  it('lists unanswered rows by default, every row with all, each with whether it expired', async () => {
    const store = memoryApprovalStore();
    const open = await raised(store);
    const answered = await raised(store);
    await denyPending(store, answered.id, { secret, by: 'bob' });
    const short = await raised(store, live, 1);
    await new Promise((r) => setTimeout(r, 5));
    const ids = (rows: { entry: { id: string } }[]): string[] => rows.map((r) => r.entry.id);
    expect(ids(await listPending(store, { secret }))).toEqual([open.id, short.id]);
    const all = await listPending(store, { secret, all: true });
    expect(ids(all)).toEqual([open.id, answered.id, short.id]);
    expect(all.map((r) => r.expired)).toEqual([false, false, true]);
    expect(all.map((r) => 'forged' in r)).toEqual([false, false, false]);
    expect(all[1]?.answer).toMatchObject({ decision: 'deny', by: 'bob' });
    expect(all[1]?.answer).not.toHaveProperty('token');
  });

  it('an approval stores its token; the memory store refuses a second row of one id and answers and consumes once', async () => {
    const store = memoryApprovalStore();
    const { id } = await raised(store);
    await approvePending(store, id, { secret, by: 'alice' });
    expect((await store.getPending(id))?.answer?.token).toMatch(/^ga2\./);
    const row = (await store.getPending(id))!.entry;
    await expect(store.putPending(row)).rejects.toThrow(`approval ${id} exists already`);
    expect(await store.getPending('nope')).toBeUndefined();
    expect(await store.consumePending(id)).toMatchObject({ entry: { id } });
    expect(await store.consumePending(id)).toBeUndefined();
    expect(await store.answerPending(id, { decision: 'deny', by: 'x', answeredAt: 1 })).toBe(false);
    expect(await store.answerPending('nope', { decision: 'deny', by: 'x', answeredAt: 1 })).toBe(false);
    // Consumed before anyone answered (a resume without an answer burns it): no answer is taken any more.
    const burnt = await raised(store);
    expect(await store.consumePending(burnt.id)).toMatchObject({ entry: { id: burnt.id } });
    expect(await store.answerPending(burnt.id, { decision: 'approve', by: 'x', answeredAt: 1 })).toBe(false);
  });
});
