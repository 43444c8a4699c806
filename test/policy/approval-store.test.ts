import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ApprovalAnswer,
  type ApprovalPath,
  type ApprovalStore,
  approvePending,
  denyPending,
  type Gate,
  GateFailedError,
  type GateRecord,
  install,
  listPending,
  memoryApprovalStore,
  policyGate,
  type StoredApproval,
  type ToolCallRequest,
} from '../../src/index.js';
import { callDigest } from '../../src/policy/approval.js';
import { publicKeyOf } from '../../src/policy/approval-keys.js';
import { answerMessage } from '../../src/policy/approval-signature.js';
import { storedApprovals } from '../../src/policy/approval-stored.js';
import { waitUntilAnswered } from '../../src/policy/approval-store.js';
import {
  alice,
  answer,
  approvers,
  as,
  askPolicy,
  bob,
  mallory,
  pausedOf,
  pauseInA,
  restarted,
  rmAgent,
} from '../helpers/approvals.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';

isolateEachTest();

/** A store whose answers are edited on the way out, as someone editing the answers table would. */
function editingAnswers(store: ApprovalStore, edit: (answer: ApprovalAnswer) => ApprovalAnswer): ApprovalStore {
  return {
    ...store,
    getPending: async (id) => {
      const row = await store.getPending(id);
      return row?.answer === undefined ? row : { ...row, answer: edit(row.answer) };
    },
  };
}

describe('policyGate with an approval store', () => {
  describe('when a call asks and the approval is kept in a memory store', () => {
    it('writes the pending approval before the run pauses, with the request, reason, rule, digests and nonce', async () => {
      const store = memoryApprovalStore();
      const { paused } = await pauseInA(store);
      const [listed] = await listPending(store);
      expect(listed?.entry).toMatchObject({
        id: paused.approvalId,
        gate: 'policy',
        rule: 'rm-asks',
        reason: 'deleting needs a human',
        request: { toolName: 'rm', input: { path: '/tmp/x' }, agentId: 'a' },
        nonce: paused.request.nonce,
        callDigest: callDigest({ ...paused.request, gateId: paused.request.gateId }),
      });
      expect(listed?.entry.inputDigest).toMatch(/^[0-9a-f]{64}$/);
      expect(listed?.problem).toBeUndefined();
      expect(ran).toEqual([]);
    });

    it('a restarted process resumes from the snapshot and runs the call alice approved, once', async () => {
      const store = memoryApprovalStore();
      const { paused, snapshot } = await pauseInA(store);
      await approvePending(store, paused.approvalId, as(alice));
      const a2 = restarted(store, snapshot);
      expect((await a2.invoke(answer(paused.id, paused.approvalId))).stopReason).toBe('endTurn');
      expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
      // A second restart from the same snapshot: the approval is spent, the run stops.
      const a3 = restarted(store, snapshot);
      await expect(a3.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
      expect(ran).toHaveLength(1);
      expect(toolResults(a3)[0]).toMatch(/was already used/);
      expect((await store.getPending(paused.approvalId))?.consumption).toMatchObject({ outcome: 'granted' });
    });

    it('the same process resumes with the approval id', async () => {
      const store = memoryApprovalStore();
      const { a, paused } = await pauseInA(store);
      await approvePending(store, paused.approvalId, as(bob));
      await a.invoke(answer(paused.id, paused.approvalId));
      expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
    });

    it('a denial is a refusal, never overwritten by a later approval', async () => {
      const store = memoryApprovalStore();
      const { paused, snapshot } = await pauseInA(store);
      await denyPending(store, paused.approvalId, as(bob));
      await expect(approvePending(store, paused.approvalId, as(alice))).rejects.toThrow(/answered already/);
      const a2 = restarted(store, snapshot);
      await a2.invoke(answer(paused.id, paused.approvalId));
      expect(ran).toEqual([]);
      expect(toolResults(a2)[0]).toMatch(/approval refused \(denied by bob\)/);
    });

    it('approval-granted and approval-refused records carry the approval id and the approver id', async () => {
      const records: GateRecord[] = [];
      const log = { append: (record: GateRecord) => void records.push(record) };
      const store = memoryApprovalStore();
      const gated = (turns = [call('rm', { path: '/tmp/x' }), say('done')]) => {
        const agent = scriptedAgent('a', turns, { tools: [recordingTool('rm')] });
        install(agent, { gate: policyGate(askPolicy, { approvals: { store, approvers }, log }) });
        return agent;
      };
      const a = gated();
      const paused = pausedOf(await a.invoke('go'));
      await approvePending(store, paused.approvalId, as(alice));
      await a.invoke(answer(paused.id, paused.approvalId));
      const b = gated();
      const denied = pausedOf(await b.invoke('go'));
      await denyPending(store, denied.approvalId, as(bob));
      await b.invoke(answer(denied.id, denied.approvalId));
      const approvals = records.filter((r) => r.event.startsWith('approval-'));
      expect(approvals.map((r) => [r.event, r.approvalId, r.approverId])).toEqual([
        ['approval-granted', paused.approvalId, 'alice'],
        ['approval-refused', denied.approvalId, 'bob'],
      ]);
    });

    it('refuses an expired approval', async () => {
      const store = memoryApprovalStore();
      const { paused, snapshot } = await pauseInA(store, 50);
      await approvePending(store, paused.approvalId, as(alice));
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
      await expect(approvePending(store, paused.approvalId, as(alice))).rejects.toThrow(/already used/);
    });

    it('refuses the call and stops the run when the store cannot take the pending approval', async () => {
      const store = memoryApprovalStore();
      store.putPending = () => Promise.reject(new Error('connection refused'));
      const a = rmAgent(store);
      await expect(a.invoke('go')).rejects.toBeInstanceOf(GateFailedError);
      expect(toolResults(a)[0]).toMatch(/could not store the pending approval: connection refused/);
      expect(ran).toEqual([]);
    });

    it("refuses a resume answer that is not the approval id, and spends that pause's approval", async () => {
      const store = memoryApprovalStore();
      const { a, paused } = await pauseInA(store);
      await a.invoke(answer(paused.id, 'yes'));
      expect(ran).toEqual([]);
      expect(toolResults(a)[0]).toMatch(/approval refused \(the answer is not the approval id/);
      await expect(approvePending(store, paused.approvalId, as(alice))).rejects.toThrow(/already used/);
    });
  });

  describe("when the stored answer's signature is checked", () => {
    it('refuses an answer signed by a key the gate does not list (mallory made her own), and runs nothing', async () => {
      const store = memoryApprovalStore();
      const { paused, snapshot } = await pauseInA(store);
      await approvePending(store, paused.approvalId, as(mallory));
      const a2 = restarted(store, snapshot);
      await expect(a2.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
      expect(toolResults(a2)[0]).toMatch(/the answer's approver "mallory" is not listed in "approvals.approvers"/);
      expect(ran).toEqual([]);
    });

    it("refuses mallory's key passed off under a listed name: the signature is over the approver id", async () => {
      const store = memoryApprovalStore();
      const { paused, snapshot } = await pauseInA(store);
      await approvePending(store, paused.approvalId, { ...as(mallory), approverId: 'alice' });
      const a2 = restarted(store, snapshot);
      await expect(a2.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
      expect(toolResults(a2)[0]).toMatch(/the answer's signature is not by "alice" over this answer/);
      expect(ran).toEqual([]);
    });

    it("detects the approver's name changed after signing, and every other signed field changed", async () => {
      const edits: [string, (a: ApprovalAnswer) => ApprovalAnswer][] = [
        ['approver renamed', (a) => ({ ...a, approverId: 'bob' })],
        ['denial turned into an approval', (a) => ({ ...a, decision: 'approve' })],
        ['expiry extended', (a) => ({ ...a, expiresAt: a.expiresAt + 1 })],
        ['time moved', (a) => ({ ...a, answeredAt: a.answeredAt - 1 })],
        ['signature of another answer', (a) => ({ ...a, signature: `${'A'.repeat(86)}==` })],
      ];
      for (const [what, edit] of edits) {
        const store = memoryApprovalStore();
        const { paused, snapshot } = await pauseInA(store);
        await (what.startsWith('denial') ? denyPending : approvePending)(store, paused.approvalId, as(alice));
        const a2 = restarted(editingAnswers(store, edit), snapshot);
        await expect(a2.invoke(answer(paused.id, paused.approvalId)), what).rejects.toBeInstanceOf(GateFailedError);
        expect(toolResults(a2)[0], what).toMatch(/signature is not by/);
      }
      expect(ran).toEqual([]);
    });

    it('signs the domain tag and every field of the answer, in order, with the approver key', async () => {
      const store = memoryApprovalStore();
      const { paused } = await pauseInA(store);
      const signed = await approvePending(store, paused.approvalId, { ...as(alice), validForMs: 60_000 });
      const message = answerMessage({
        approvalId: paused.approvalId,
        nonce: paused.request.nonce,
        toolUseId: paused.request.toolUseId,
        callDigest: callDigest(paused.request),
        decision: 'approve',
        approverId: 'alice',
        answeredAt: signed.answeredAt,
        expiresAt: signed.expiresAt,
      });
      expect(JSON.parse(message.toString())).toEqual([
        'gate-audit-approval-answer/v1',
        paused.approvalId,
        paused.request.nonce,
        paused.request.toolUseId,
        callDigest(paused.request),
        'grant',
        'alice',
        signed.answeredAt,
        signed.expiresAt,
      ]);
      const { verify } = await import('node:crypto');
      expect(verify(null, message, publicKeyOf(alice.publicKey), Buffer.from(signed.signature, 'base64'))).toBe(true);
      expect(signed.expiresAt - signed.answeredAt).toBe(60_000);
    });
  });

  describe('when a resume names the approval of another pause', () => {
    /** An agent `a` whose model calls rm with a fixed tool use id, so two runs pause on the same call. */
    const sameCall = (store: ApprovalStore, turns = [call('rm', { path: '/tmp/x' }, 'tu-1'), say('done')]) => {
      const agent = scriptedAgent('a', turns, { tools: [recordingTool('rm')] });
      install(agent, { gate: policyGate(askPolicy, { approvals: { store, approvers } }) });
      return agent;
    };

    it("refuses the approval of an earlier pause of the same call (another nonce) after a restart, and doesn't spend it", async () => {
      const store = memoryApprovalStore();
      const first = sameCall(store);
      const earlier = pausedOf(await first.invoke('go'));
      await approvePending(store, earlier.approvalId, as(alice));
      // The same call pauses again (a new nonce, a new approval); nobody answers it.
      const second = sameCall(store);
      const later = pausedOf(await second.invoke('go'));
      expect(later.request.toolUseId).toBe(earlier.request.toolUseId);
      expect(later.request.nonce).not.toBe(earlier.request.nonce);
      const snapshot = second.takeSnapshot({ preset: 'session' });
      const resumed = sameCall(store, [say('done')]);
      resumed.loadSnapshot(snapshot);
      await expect(resumed.invoke(answer(later.id, earlier.approvalId))).rejects.toBeInstanceOf(GateFailedError);
      expect(toolResults(resumed)[0]).toMatch(/is for an earlier pause of this call: it paused again as/);
      expect(ran).toEqual([]);
      expect((await store.getPending(earlier.approvalId))?.consumption).toBeUndefined();
      // The later pause's own approval resumes it.
      await approvePending(store, later.approvalId, as(alice));
      const again = sameCall(store, [say('done')]);
      again.loadSnapshot(snapshot);
      await again.invoke(answer(later.id, later.approvalId));
      expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
    });

    it("refuses to resume call B with call A's approval id, and A's approval still runs A", async () => {
      const store = memoryApprovalStore();
      const a = await pauseInA(store);
      await approvePending(store, a.paused.approvalId, as(alice));
      const other = scriptedAgent('a', [call('rm', { path: '/etc' }), say('done')], { tools: [recordingTool('rm')] });
      install(other, { gate: policyGate(askPolicy, { approvals: { store, approvers } }) });
      const b = pausedOf(await other.invoke('go'));
      const bSnapshot = other.takeSnapshot({ preset: 'session' });
      const resumedB = scriptedAgent('a', [say('done')], { tools: [recordingTool('rm')] });
      install(resumedB, { gate: policyGate(askPolicy, { approvals: { store, approvers } }) });
      resumedB.loadSnapshot(bSnapshot);
      await expect(resumedB.invoke(answer(b.id, a.paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
      expect(toolResults(resumedB)[0]).toMatch(/for another call \(toolUseId, input differ\)/);
      expect(ran).toEqual([]);
      expect((await store.getPending(a.paused.approvalId))?.consumption).toBeUndefined();
      const resumedA = restarted(store, a.snapshot);
      await resumedA.invoke(answer(a.paused.id, a.paused.approvalId));
      expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
    });
  });

  describe('when its approval options are checked, or its check throws', () => {
    it('refuses a shared secret with a store, saying what replaces it', () => {
      const store = memoryApprovalStore();
      const secret = 'test-secret-0123456789abcdef0123456789abcdef';
      expect(() => policyGate(askPolicy, { approvals: { store, approvers, secret } as never })).toThrow(
        /option=<approvals.secret> \| a shared secret cannot answer approvals kept in a store: .* \| drop the secret, list the approvers' public keys .* gate-audit approvals approve --key/,
      );
    });

    it('needs the approvers, and refuses a bad name or key, a bad ttlMs and a store without its methods', () => {
      const store = memoryApprovalStore();
      expect(() => policyGate(askPolicy, { approvals: { store } })).toThrow(
        /option=<approvals> \| a store needs the approvers' public keys \| give approvers: /,
      );
      expect(() => policyGate(askPolicy, { approvals: { store, approvers, keyring: 'k.json' } })).toThrow(
        /a store needs the approvers' public keys/,
      );
      expect(() => policyGate(askPolicy, { approvals: { store, approvers: { alice: 'not a key' } } })).toThrow(
        /option=<approvals.approvers> \| .*base64 text gate-audit approvals keygen prints/,
      );
      expect(() => policyGate(askPolicy, { approvals: { store, approvers: { 'a b': alice.publicKey } } })).toThrow(
        /option=<approvals.approvers> \| a b: not an approver name/,
      );
      expect(() => policyGate(askPolicy, { approvals: { store, approvers, ttlMs: 0 } })).toThrow(
        /option=<approvals.ttlMs> \| must be a positive whole number of ms/,
      );
      expect(() =>
        policyGate(askPolicy, { approvals: { store: { ...store, waitForAnswer: undefined } as never, approvers } }),
      ).toThrow(/option=<approvals.store> \| the store has no waitForAnswer\(\) \| pass postgresStore/);
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

  describe('when the approvers come from a keyring file', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'gate-audit-keyring-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const keyringFile = (content: unknown = { approvers }): string => {
      const file = join(dir, 'keyring.json');
      writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
      return file;
    };

    it('refuses a keyring this user can write at the first ask, naming the file and the fix, and stores nothing', async () => {
      const store = memoryApprovalStore();
      const agent = scriptedAgent('a', [call('rm', { path: '/x' }), say('done')], { tools: [recordingTool('rm')] });
      // Made now, read at the first ask: a gate can be built before the keyring is in place.
      install(agent, { gate: policyGate(askPolicy, { approvals: { store, keyring: keyringFile() } }) });
      await expect(agent.invoke('go')).rejects.toBeInstanceOf(GateFailedError);
      expect(toolResults(agent)[0]).toMatch(
        /could not store the pending approval: keyring=<.*keyring.json> \| .* writable by this user: an agent running as this user could add its own key and approve itself \| make it and its folders writable only by another user/,
      );
      expect(await store.listPending({ all: true })).toEqual([]);
      expect(ran).toEqual([]);
    });

    it('refuses a keyring this user can write at a resume after a restart, too', async () => {
      const store = memoryApprovalStore();
      const { paused, snapshot } = await pauseInA(store);
      await approvePending(store, paused.approvalId, as(alice));
      const agent = scriptedAgent('a', [say('done')], { tools: [recordingTool('rm')] });
      install(agent, { gate: policyGate(askPolicy, { approvals: { store, keyring: keyringFile() } }) });
      agent.loadSnapshot(snapshot);
      await expect(agent.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
      expect(toolResults(agent)[0]).toMatch(/the approval check failed: keyring=<.*> \| .*writable by this user/);
      expect(ran).toEqual([]);
    });

    it('trusts the keyring with allowWritableKeyring: true, and its keys check answers as approvers do', async () => {
      const store = memoryApprovalStore();
      const file = keyringFile({ approvers: { alice: alice.publicKey } });
      const gated = (turns = [call('rm', { path: '/tmp/x' }), say('done')]) => {
        const agent = scriptedAgent('a', turns, { tools: [recordingTool('rm')] });
        install(agent, {
          gate: policyGate(askPolicy, { approvals: { store, keyring: file, allowWritableKeyring: true } }),
        });
        return agent;
      };
      const a = gated();
      const paused = pausedOf(await a.invoke('go'));
      await approvePending(store, paused.approvalId, as(bob));
      await expect(a.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
      expect(toolResults(a)[0]).toMatch(/the answer's approver "bob" is not listed in ".*keyring.json"/);
      const b = gated();
      const second = pausedOf(await b.invoke('go'));
      await approvePending(store, second.approvalId, as(alice));
      await b.invoke(answer(second.id, second.approvalId));
      expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
    });

    it('notes a writable keyring on stderr, not a refusal, while auditing', async () => {
      const store = memoryApprovalStore();
      const written: string[] = [];
      vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
        written.push(String(chunk));
        return true;
      });
      process.env.GATE_AUDIT_AUDITING = '1';
      try {
        const path = storedApprovals({ store, keyring: keyringFile() });
        if (path.via !== 'interrupt') throw new Error('expected the interrupt path');
        await path.raise!({
          id: '00000000-0000-4000-8000-000000000001',
          gate: 'g',
          gateId: 'id',
          nonce: 'n',
          reason: 'r',
          request: live,
        });
      } finally {
        delete process.env.GATE_AUDIT_AUDITING;
      }
      expect(written.join('')).toMatch(
        /gate-audit: note: keyring=<.*> \| .*writable by this user \| refused outside an audit/,
      );
      expect(await store.listPending()).toHaveLength(1);
    });

    it('refuses a malformed keyring, or one naming a bad key, with the shape to write', async () => {
      for (const [content, why] of [
        ['{', /not JSON/],
        [{ alice: alice.publicKey }, /approvers/],
        [{ approvers: { alice: 'MCowBQ==' } }, /the public key does not parse/],
      ] as const) {
        const path = storedApprovals({
          store: memoryApprovalStore(),
          keyring: keyringFile(content),
          allowWritableKeyring: true,
        });
        if (path.via !== 'interrupt') throw new Error('expected the interrupt path');
        const raising = path.raise!({
          id: '00000000-0000-4000-8000-000000000001',
          gate: 'g',
          gateId: 'id',
          nonce: 'n',
          reason: 'r',
          request: live,
        });
        await expect(raising).rejects.toThrow(why);
        await expect(raising).rejects.toThrow(/write \{ "approvers": \{ "alice": "<public key>" \} \}/);
      }
      chmodSync(dir, 0o700);
    });
  });
});

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

/**
 * The checks of the gate's stored-approval path one by one, through its interrupt path (`raise`, `check`,
 * `resume`) and the approver's functions, each where it alone decides.
 */
describe('storedApprovals, checking each field of a stored row', () => {
  const gateId = 'gate-1';
  type DurablePath = Required<Extract<ApprovalPath, { via: 'interrupt' }>>;
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
    const path = durable({ store, approvers, ...(ttlMs === undefined ? {} : { ttlMs }) });
    n += 1;
    const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const nonce = `nonce-${n}`;
    await path.raise({ id, gate: 'policy', gateId, nonce, reason: 'asks', rule: 'r', request });
    return { path, id, nonce };
  }

  describe('when the stored row is for another call, another pause or was edited', () => {
    it('names each field in which a stored approval is for another call, spending nothing', async () => {
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
        await approvePending(store, id, as(alice));
        await expect(path.resume({ ...live, ...change }, id, { gateId })).rejects.toThrow(
          `the stored approval is for another call (${field} differ)`,
        );
        expect((await store.getPending(id))?.consumption).toBeUndefined();
      }
      const store = memoryApprovalStore();
      const { path, id } = await raised(store);
      await approvePending(store, id, as(alice));
      await expect(path.resume({ ...live, toolName: 'ls', input: {} }, id, { gateId: 'gate-2' })).rejects.toThrow(
        'the stored approval is for another call (gate, tool, input differ)',
      );
      await expect(path.resume(live, id, { gateId })).resolves.toEqual({
        granted: true,
        approvalId: id,
        approverId: 'alice',
      });
    });

    it("refuses in the paused process a stored row of the same call raised for another interrupt (its nonce is not this interrupt's)", async () => {
      const store = memoryApprovalStore();
      const first = await raised(store);
      await approvePending(store, first.id, as(alice));
      const { path, id, nonce } = await raised(store);
      // The store answers this interrupt's id with the earlier, approved row of the same call.
      const replay: ApprovalStore = { ...store, getPending: () => store.getPending(first.id) };
      const replaying = durable({ store: replay, approvers });
      await expect(replaying.check(live, id, { gateId, nonce, approvalId: id })).rejects.toThrow(/nonce differs/);
      await approvePending(store, id, as(alice));
      await expect(path.check(live, id, { gateId, nonce, approvalId: id })).resolves.toMatchObject({ granted: true });
    });

    it('refuses a row whose input or call does not match its digests (written by hand), spending nothing', async () => {
      const store = memoryApprovalStore();
      const { path, id } = await raised(store);
      await approvePending(store, id, as(alice));
      type Row = StoredApproval;
      const edits: [(row: Row) => Row, RegExp][] = [
        [
          (row) => ({ ...row, entry: { ...row.entry, request: { ...row.entry.request, input: { path: '/y' } } } }),
          /input does not match its digest/,
        ],
        [(row) => ({ ...row, entry: { ...row.entry, callDigest: '0'.repeat(64) } }), /call does not match its digest/],
      ];
      for (const [edit, why] of edits) {
        const editing: ApprovalStore = {
          ...store,
          getPending: async (rowId) => edit((await store.getPending(rowId))!),
        };
        await expect(durable({ store: editing, approvers }).resume(live, id, { gateId })).rejects.toThrow(why);
        const [listed] = await listPending({ ...editing, listPending: async () => [(await editing.getPending(id))!] });
        expect(listed?.problem).toMatch(why);
        await expect(approvePending(editing, id, as(bob))).rejects.toThrow(
          /it was not written by a gate \| do not answer it/,
        );
      }
      expect((await store.getPending(id))?.consumption).toBeUndefined();
      await expect(path.resume(live, id, { gateId })).resolves.toMatchObject({ granted: true });
    });

    it('refuses a renamed approver even when one key is listed under both names: the name is signed', async () => {
      const twice = { alice: alice.publicKey, 'alice.ops': alice.publicKey };
      const store = memoryApprovalStore();
      const path = durable({ store, approvers: twice });
      const id = '00000000-0000-4000-8000-0000000000aa';
      await path.raise({ id, gate: 'policy', gateId, nonce: 'n-aa', reason: 'asks', request: live });
      await approvePending(store, id, as(alice));
      const renamed = durable({
        store: editingAnswers(store, (a) => ({ ...a, approverId: 'alice.ops' })),
        approvers: twice,
      });
      await expect(renamed.resume(live, id, { gateId })).rejects.toThrow(
        /the answer's signature is not by "alice.ops"/,
      );
      await expect(path.resume(live, id, { gateId })).resolves.toMatchObject({ granted: true, approverId: 'alice' });
    });
  });

  describe('when the approval expires', () => {
    it("is valid up to the earlier of its expiry and its answer's, to the millisecond", async () => {
      vi.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
      try {
        const store = memoryApprovalStore();
        const { path, id } = await raised(store, live, 1000);
        await approvePending(store, id, as(alice));
        vi.setSystemTime(1_001_000);
        await expect(path.resume(live, id, { gateId })).resolves.toMatchObject({ granted: true });
        const late = await raised(store, live, 1000);
        await approvePending(store, late.id, as(alice));
        vi.setSystemTime(1_002_001);
        await expect(late.path.resume(live, late.id, { gateId })).rejects.toThrow(/expired/);
        const short = await raised(store, live, 10_000);
        await approvePending(store, short.id, { ...as(alice), validForMs: 100 });
        vi.setSystemTime(1_002_102);
        await expect(short.path.resume(live, short.id, { gateId })).rejects.toThrow(
          /expired at 1970-01-01T00:16:42.101Z/,
        );
      } finally {
        vi.useRealTimers();
      }
    });
  });

  describe('when the answer names no stored approval', () => {
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
      await expect(path.resume(live, '00000000-0000-4000-8000-999999999999', { gateId })).rejects.toThrow(/is unknown/);
    });
  });

  describe('when an approver answers or lists the rows', () => {
    it("refuses an approver's bad key or name, an unknown id, a used, expired or superseded row", async () => {
      const store = memoryApprovalStore();
      const { path, id } = await raised(store);
      await expect(approvePending(store, id, { privateKey: 'nope' })).rejects.toThrow(
        /option=<privateKey> \| it is not a PKCS#8 PEM private key/,
      );
      const unnamed = alice.privateKeyPem.replace(/^#.*\n/, '');
      await expect(approvePending(store, id, { privateKey: unnamed })).rejects.toThrow(
        'option=<approverId> | the key file names no approver | pass the name the gate lists your public key under',
      );
      await expect(approvePending(store, 'nope', as(alice))).rejects.toThrow(
        'approval=<nope> | no such pending approval | list them first',
      );
      await expect(path.resume(live, id, { gateId })).rejects.toThrow(/not answered/);
      await expect(approvePending(store, id, as(alice))).rejects.toThrow(
        `approval=<${id}> | it was already used by the gate`,
      );
      const short = await raised(store, live, 1);
      await new Promise((r) => setTimeout(r, 5));
      await expect(denyPending(store, short.id, as(bob))).rejects.toThrow(
        `approval=<${short.id}> | it expired | rerun the agent to ask again`,
      );
      const earlier = await raised(store);
      const later = await raised(store);
      await expect(approvePending(store, earlier.id, as(alice))).rejects.toThrow(
        `approval=<${earlier.id}> | the call paused again as ${later.id}, and a resume binds to that pause | answer that one`,
      );
    });

    it('lists unanswered rows by default, every row with all, each with whether it expired and its answer checked', async () => {
      const store = memoryApprovalStore();
      const open = await raised(store, { ...live, toolUseId: 'tu-a' });
      const answered = await raised(store, { ...live, toolUseId: 'tu-b' });
      await denyPending(store, answered.id, as(mallory));
      const short = await raised(store, { ...live, toolUseId: 'tu-c' }, 1);
      await new Promise((r) => setTimeout(r, 5));
      const ids = (rows: { entry: { id: string } }[]): string[] => rows.map((r) => r.entry.id);
      expect(ids(await listPending(store))).toEqual([open.id, short.id]);
      const all = await listPending(store, { all: true, approvers });
      expect(ids(all)).toEqual([open.id, answered.id, short.id]);
      expect(all.map((r) => r.expired)).toEqual([false, false, true]);
      expect(all.map((r) => r.problem)).toEqual([undefined, undefined, undefined]);
      expect(all[1]?.answer).toMatchObject({ decision: 'deny', approverId: 'mallory' });
      expect(all[1]?.answerProblem).toMatch(/"mallory" is not listed/);
    });
  });

  describe('when the memory store is written twice', () => {
    it('the memory store takes one row per id, one answer and one consumption per approval', async () => {
      const store = memoryApprovalStore();
      const { id } = await raised(store);
      const signed = await approvePending(store, id, as(alice));
      const row = (await store.getPending(id))!.entry;
      await expect(store.putPending(row)).rejects.toThrow(`approval ${id} exists already`);
      expect(await store.getPending('nope')).toBeUndefined();
      expect(await store.answerPending({ ...signed, decision: 'deny' })).toBe(false);
      expect(await store.answerPending({ ...signed, approvalId: 'nope' })).toBe(false);
      const use = { approvalId: id, consumedAt: 1, outcome: 'granted', by: 'x' } as const;
      expect(await store.consumePending(use)).toBe(true);
      expect(await store.consumePending(use)).toBe(false);
      expect(await store.consumePending({ ...use, approvalId: 'nope' })).toBe(false);
      expect((await store.getPending(id))?.answer?.decision).toBe('approve');
    });
  });
});

describe('memoryApprovalStore().waitForAnswer', () => {
  describe('when an answer is stored, times out or is aborted', () => {
    it('resolves the answer once stored, undefined after its timeout, rejects on abort and for an unknown id', async () => {
      const store = memoryApprovalStore();
      const { paused } = await pauseInA(store);
      const waiting = store.waitForAnswer(paused.approvalId, { timeoutMs: 5000 });
      setTimeout(() => void approvePending(store, paused.approvalId, as(alice)), 20);
      await expect(waiting).resolves.toMatchObject({ approvalId: paused.approvalId, approverId: 'alice' });
      await expect(store.waitForAnswer(paused.approvalId)).resolves.toMatchObject({ decision: 'approve' });
      const other = await pauseInA(store);
      await expect(store.waitForAnswer(other.paused.approvalId, { timeoutMs: 30 })).resolves.toBeUndefined();
      const controller = new AbortController();
      const aborted = store.waitForAnswer(other.paused.approvalId, { signal: controller.signal });
      controller.abort(new Error('stopped'));
      await expect(aborted).rejects.toThrow('stopped');
      await expect(store.waitForAnswer('nope')).rejects.toThrow('approval=<nope> | no such pending approval');
    });
  });
});

describe('waitUntilAnswered', () => {
  const found = { approvalId: 'p1' } as unknown as ApprovalAnswer;
  const slow =
    <T>(value: T, ms: number) =>
    (): Promise<T> =>
      new Promise((resolve) => setTimeout(() => resolve(value), ms));

  describe('when the store is slower than the timeout', () => {
    it('still finds an answer already there: the first look always finishes', async () => {
      await expect(waitUntilAnswered(slow(found, 60), () => () => undefined, { timeoutMs: 0 })).resolves.toBe(found);
      await expect(waitUntilAnswered(slow(found, 60), () => () => undefined, { timeoutMs: 5 })).resolves.toBe(found);
    });

    it('gives up after that look when there is none', async () => {
      const started = Date.now();
      await expect(
        waitUntilAnswered(slow(undefined, 60), () => () => undefined, { timeoutMs: 5 }),
      ).resolves.toBeUndefined();
      expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    });
  });
});
