/**
 * LangGraph approvals with a store: the pause writes the pending approval (its digest, nonce and approval id) to
 * the store, an approver signs an answer there, and the run resumes on it, in the process that paused or in a
 * restarted one (a new agent and gate on the same checkpointer and thread). The resume's own value is only the
 * approval's id: what lets the call run is the signed answer of a listed approver, bound to that pause. A resume
 * with no answer stored, a denial, an answer for another call, or a key no gate lists runs nothing.
 */
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import {
  type ApprovalStore,
  approvePending,
  denyPending,
  GateFailedError,
  installMultiagent,
  memoryApprovalStore,
  policyGate,
} from '../../../src/index.js';
import { alice, approvers, as, askPolicy, mallory } from '../../helpers/approvals.js';
import { callsOnce, messagesOf, recordingTool } from '../../helpers/langgraph.js';
import { settle } from '../../helpers/runs.js';

const hi = { messages: [{ role: 'user', content: 'hi' }] };
const thread = (id: string) => ({ configurable: { thread_id: id } });

/** A process's agent: its model calls rm, its gate asks a human through the store (the process's own gate). */
function processAgent(store: ApprovalStore, checkpointer: MemorySaver, path = '/tmp/x') {
  const ran: string[] = [];
  const agent = createAgent({
    model: callsOnce('rm', { path }),
    tools: [recordingTool('rm', ran)],
    checkpointer,
    name: 'a',
  });
  installMultiagent(agent, { gate: policyGate(askPolicy, { approvals: { store, approvers } }) });
  return { agent, ran };
}

/** The approval id the pause shows, and the pause's request. */
function pauseOf(result: unknown): { approvalId: string; request: { nonce: string; toolName: string } } {
  const interrupts = (result as { __interrupt__?: { value: unknown }[] }).__interrupt__;
  return interrupts![0]!.value as { approvalId: string; request: { nonce: string; toolName: string } };
}

describe('approvals of a LangGraph run, with a store', () => {
  describe('when a listed approver approves in the store', () => {
    it('the pause is stored, and the process that paused resumes and runs the call once', async () => {
      const store = memoryApprovalStore();
      const checkpointer = new MemorySaver();
      const { agent, ran } = processAgent(store, checkpointer);
      const paused = pauseOf(await agent.invoke(hi, thread('t1')));
      const pending = await store.listPending();
      expect(pending.map((row) => row.entry.id)).toEqual([paused.approvalId]);
      expect(ran).toEqual([]);
      await approvePending(store, paused.approvalId, as(alice));
      const result = await agent.invoke(new Command({ resume: paused.approvalId }), thread('t1'));
      expect(ran).toEqual(['rm({"path":"/tmp/x"})']);
      expect(messagesOf(result).at(-1)).toBe('ai:done');
    });

    it('a restarted process (a new agent and gate, the same checkpointer and thread) resumes and runs it once', async () => {
      const store = memoryApprovalStore();
      const checkpointer = new MemorySaver();
      const first = processAgent(store, checkpointer);
      const paused = pauseOf(await first.agent.invoke(hi, thread('t1')));
      await approvePending(store, paused.approvalId, as(alice));
      const restarted = processAgent(store, checkpointer);
      await restarted.agent.invoke(new Command({ resume: paused.approvalId }), thread('t1'));
      expect({ first: first.ran, restarted: restarted.ran }).toEqual({
        first: [],
        restarted: ['rm({"path":"/tmp/x"})'],
      });
      // The answer was spent: the same resume again runs nothing more.
      await settle(restarted.agent.invoke(new Command({ resume: paused.approvalId }), thread('t1')));
      expect(restarted.ran).toEqual(['rm({"path":"/tmp/x"})']);
    });
  });

  describe('when no listed approver approved that call', () => {
    it('a resume with no answer stored stops the run, and the call never runs', async () => {
      const store = memoryApprovalStore();
      const checkpointer = new MemorySaver();
      const { agent, ran } = processAgent(store, checkpointer);
      const paused = pauseOf(await agent.invoke(hi, thread('t1')));
      const outcome = await settle(agent.invoke(new Command({ resume: paused.approvalId }), thread('t1')));
      expect(ran).toEqual([]);
      expect(outcome).toBeInstanceOf(GateFailedError);
    });

    it('a denial refuses the call', async () => {
      const store = memoryApprovalStore();
      const checkpointer = new MemorySaver();
      const { agent, ran } = processAgent(store, checkpointer);
      const paused = pauseOf(await agent.invoke(hi, thread('t1')));
      await denyPending(store, paused.approvalId, as(alice));
      const result = await agent.invoke(new Command({ resume: paused.approvalId }), thread('t1'));
      expect(ran).toEqual([]);
      expect(messagesOf(result).find((m) => m.startsWith('tool:'))).toMatch(/approval refused/);
    });

    it("another call's approval does not run this one, and spends nothing of the other's", async () => {
      const store = memoryApprovalStore();
      const checkpointer = new MemorySaver();
      const a = processAgent(store, checkpointer, '/tmp/a');
      const b = processAgent(store, checkpointer, '/etc');
      const pausedA = pauseOf(await a.agent.invoke(hi, thread('a')));
      const pausedB = pauseOf(await b.agent.invoke(hi, thread('b')));
      await approvePending(store, pausedA.approvalId, as(alice));
      const resumedB = await b.agent.invoke(new Command({ resume: pausedA.approvalId }), thread('b'));
      expect(messagesOf(resumedB)).toContain(
        `tool:[gate] BLOCKED: approval refused (the answer is not the approval id ${pausedB.approvalId})`,
      );
      expect(b.ran).toEqual([]);
      await a.agent.invoke(new Command({ resume: pausedA.approvalId }), thread('a'));
      expect(a.ran).toEqual(['rm({"path":"/tmp/a"})']);
    });

    it('an answer signed by a key no gate lists runs nothing', async () => {
      const store = memoryApprovalStore();
      const checkpointer = new MemorySaver();
      const { agent, ran } = processAgent(store, checkpointer);
      const paused = pauseOf(await agent.invoke(hi, thread('t1')));
      // The store takes the answer (it is signed, only not by a key the gate lists); the gate refuses it.
      expect(await settle(approvePending(store, paused.approvalId, { ...as(mallory), approverId: 'alice' }))).toBe(
        undefined,
      );
      const outcome = await settle(agent.invoke(new Command({ resume: paused.approvalId }), thread('t1')));
      expect(String(outcome)).toMatch(/signature is not by "alice"/);
      expect(ran).toEqual([]);
    });
  });
});
