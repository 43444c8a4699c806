import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import {
  approve,
  type Gate,
  type GateRecord,
  installMultiagent,
  policyGate,
  type ToolCallRequest,
} from '../../../src/index.js';
import { askPolicy } from '../../helpers/approvals.js';
import { callsOnce, messagesOf, recordingTool } from '../../helpers/langgraph.js';
import { settle } from '../../helpers/runs.js';

const secret = 'a-test-approval-secret-of-at-least-32-bytes!';
const hi = { messages: [{ role: 'user', content: 'hi' }] };

interface PausePayload {
  reason: string;
  request: ToolCallRequest & { gateId: string; nonce: string };
}

/** A chat model whose every tool call has the same id (so two threads pause calls with one id). */
class SameIdModel extends BaseChatModel {
  constructor() {
    super({});
  }
  _llmType(): string {
    return 'same-id';
  }
  override bindTools(): this {
    return this;
  }
  _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const asked = messages.some((m) => m.getType() === 'tool');
    const message = asked
      ? new AIMessage({ content: 'done', id: `done-${Math.random()}` })
      : new AIMessage({
          content: '',
          id: `ask-${Math.random()}`,
          tool_calls: [{ name: 'rm', args: { path: '/tmp/x' }, id: 'same', type: 'tool_call' }],
        });
    return Promise.resolve({ generations: [{ message, text: '' }] });
  }
}

function asking(
  checkpointer?: MemorySaver,
  model?: 'same-id',
): {
  agent: ReturnType<typeof createAgent>;
  ran: string[];
  records: GateRecord[];
  decided: ToolCallRequest[];
} {
  const ran: string[] = [];
  const records: GateRecord[] = [];
  const decided: ToolCallRequest[] = [];
  const agent = createAgent({
    model: model === 'same-id' ? new SameIdModel() : callsOnce('rm', { path: '/tmp/x' }),
    tools: [recordingTool('rm', ran)],
    name: 'a',
    ...(checkpointer === undefined ? {} : { checkpointer }),
  });
  const gate = policyGate(askPolicy, { approvals: { secret } });
  installMultiagent(agent, {
    gate: {
      name: gate.name,
      decide: (request, context) => {
        decided.push(request);
        return gate.decide(request, context);
      },
      approval: gate.approval,
      record: (r) => void records.push(r),
    },
  });
  return { agent, ran, records, decided };
}

/** A createAgent agent with a checkpointer whose gate asks for rm, settled through `approval`. */
function askingThrough(approval: Gate['approval']): { agent: ReturnType<typeof createAgent>; ran: string[] } {
  const ran: string[] = [];
  const agent = createAgent({
    model: callsOnce('rm', { path: '/tmp/x' }),
    tools: [recordingTool('rm', ran)],
    checkpointer: new MemorySaver(),
  });
  installMultiagent(agent, { gate: { name: 'g', decide: () => ({ verdict: 'ask', reason: 'risky' }), approval } });
  return { agent, ran };
}

function pauseOf(result: unknown): PausePayload {
  const interrupts = (result as { __interrupt__?: { value: unknown }[] }).__interrupt__;
  return interrupts![0]!.value as PausePayload;
}

describe('approvals of a LangGraph run', () => {
  describe('when the graph has a checkpointer', () => {
    it('pauses through interrupt() and runs exactly the approved call, decided and recorded once', async () => {
      const { agent, ran, records, decided } = asking(new MemorySaver());
      const config = { configurable: { thread_id: 't1' } };
      const paused = pauseOf(await agent.invoke(hi, config));
      expect(ran).toEqual([]);
      expect(paused.reason).toBe('deleting needs a human');
      expect(paused.request).toMatchObject({ toolName: 'rm', input: { path: '/tmp/x' }, framework: 'langgraph' });
      expect(paused.request.nonce).toMatch(/^[0-9a-f]{32}$/);
      await agent.invoke(new Command({ resume: approve(paused.request, { secret }) }), config);
      expect(ran).toEqual(['rm({"path":"/tmp/x"})']);
      expect(records.map((r) => r.event)).toEqual(['ask', 'approval-granted']);
      // Recorded in the words a Strands approval is: the granted record keeps why the gate asked.
      expect(records[1]).toMatchObject({ verdict: 'allow', reason: 'deleting needs a human' });
      // Each record says how long its decision took, as a Strands record does.
      expect(records.map((r) => typeof r.durationMs === 'number' && r.durationMs >= 0)).toEqual([true, true]);
      expect(decided).toHaveLength(1);
    });

    it('refuses a resume whose answer is a plain yes, and the tool never runs', async () => {
      const { agent, ran, records } = asking(new MemorySaver());
      const config = { configurable: { thread_id: 't2' } };
      await agent.invoke(hi, config);
      const result: unknown = await agent.invoke(new Command({ resume: 'yes' }), config);
      expect(ran).toEqual([]);
      expect(messagesOf(result as never).find((m) => m.startsWith('tool:'))).toMatch(/approval refused/);
      expect(records.map((r) => r.event)).toEqual(['ask', 'approval-refused']);
      expect(records[1]?.reason).toMatch(/^approval refused \(.+\)$/);
    });

    it('refuses the call when its arguments were rewritten with updateState before the resume', async () => {
      const { agent, ran } = asking(new MemorySaver());
      const config = { configurable: { thread_id: 't3' } };
      const paused = pauseOf(await agent.invoke(hi, config));
      const state = await agent.graph.getState(config);
      const messages = (state.values as { messages: { tool_calls?: { args: unknown }[] }[] }).messages;
      const last = messages.at(-1)!;
      const rewritten = Object.assign(Object.create(Object.getPrototypeOf(last) as object) as object, last, {
        tool_calls: last.tool_calls!.map((tc) => ({ ...tc, args: { path: '/' } })),
      });
      await agent.graph.updateState(config, { messages: [rewritten] });
      const outcome = await settle(agent.invoke(new Command({ resume: approve(paused.request, { secret }) }), config));
      expect(outcome).toBeInstanceOf(Error);
      expect(String(outcome)).toMatch(/changed before it resumed/);
      expect(ran).toEqual([]);
    });

    it('refuses an answer to a pause another process raised (a restart), even a valid token for it', async () => {
      const checkpointer = new MemorySaver();
      const config = { configurable: { thread_id: 't4' } };
      const first = asking(checkpointer);
      const paused = pauseOf(await first.agent.invoke(hi, config));
      const restarted = asking(checkpointer);
      const result: unknown = await restarted.agent.invoke(
        new Command({ resume: approve(paused.request, { secret }) }),
        config,
      );
      expect([...first.ran, ...restarted.ran]).toEqual([]);
      expect(messagesOf(result as never).find((m) => m.startsWith('tool:'))).toMatch(
        /not requested by this gate in this process/,
      );
      expect(restarted.records[0]?.event).toBe('approval-refused');
      expect(restarted.records[0]?.reason).toMatch(
        /^approval refused \(the approval answer was not requested by this gate/,
      );
      expect(restarted.records.filter((r) => r.event === 'approval-granted')).toEqual([]);
    });
  });

  describe('when two threads pause a call with the same id', () => {
    it("an answer in one thread is not the other's: each pause is kept by thread", async () => {
      const { agent, ran } = asking(new MemorySaver(), 'same-id');
      const first = { configurable: { thread_id: 'ta' } };
      const second = { configurable: { thread_id: 'tb' } };
      const pausedA = pauseOf(await agent.invoke(hi, first));
      await agent.invoke(hi, second);
      // The token answers thread A's pause; sent to thread B, it does not match B's own pause (another nonce).
      const result: unknown = await agent.invoke(new Command({ resume: approve(pausedA.request, { secret }) }), second);
      expect(ran).toEqual([]);
      expect(messagesOf(result as never).find((m) => m.startsWith('tool:'))).toMatch(/approval refused/);
      await agent.invoke(new Command({ resume: approve(pausedA.request, { secret }) }), first);
      expect(ran).toEqual(['rm({"path":"/tmp/x"})']);
    });
  });

  describe('when the approval path changes while a call waits', () => {
    it('a paused call its path cannot check any more stops the run, and the pause is forgotten', async () => {
      let broken = false;
      const approval = {
        via: 'interrupt' as const,
        get check(): (request: ToolCallRequest, answer: unknown) => { granted: true } {
          if (broken) throw new Error('the approvals module was unloaded');
          return () => ({ granted: true });
        },
      };
      const { agent, ran } = askingThrough(approval);
      const config = { configurable: { thread_id: 'tc' } };
      await agent.invoke(hi, config);
      broken = true;
      const outcome = await settle(agent.invoke(new Command({ resume: 'yes' }), config));
      expect(String(outcome)).toMatch(
        /gate "g" paused the call of tool "rm" for approval, and its approval path cannot check it any more/,
      );
      expect(ran).toEqual([]);
    });
  });

  describe('when the approval path is read', () => {
    it('each member is read once on the pass that pauses, and once on the resume', async () => {
      const reads: string[] = [];
      const approval = {
        get via(): 'interrupt' {
          reads.push('via');
          return 'interrupt';
        },
        get check(): () => { granted: true } {
          reads.push('check');
          return () => ({ granted: true });
        },
      };
      const { agent, ran } = askingThrough(approval);
      const config = { configurable: { thread_id: 'te' } };
      reads.length = 0;
      await agent.invoke(hi, config);
      expect(reads).toEqual(['via', 'check']);
      reads.length = 0;
      await agent.invoke(new Command({ resume: 'yes' }), config);
      expect(reads).toEqual(['via', 'check']);
      expect(ran).toEqual(['rm({"path":"/tmp/x"})']);
    });
  });

  describe('when the graph has a checkpointer and the gate approves in-process', () => {
    it('the approver is asked at once, without a pause', async () => {
      const { agent, ran } = askingThrough({ via: 'callback', ask: () => ({ granted: true }) });
      const result: unknown = await agent.invoke(hi, { configurable: { thread_id: 'td' } });
      expect((result as { __interrupt__?: unknown }).__interrupt__).toBeUndefined();
      expect(ran).toEqual(['rm({"path":"/tmp/x"})']);
    });
  });

  describe('when the graph has no checkpointer', () => {
    it('an ask is a deny that says why, and the tool never runs', async () => {
      const { agent, ran } = asking();
      const result: unknown = await agent.invoke(hi);
      expect(ran).toEqual([]);
      expect(messagesOf(result as never).find((m) => m.startsWith('tool:'))).toMatch(/checkpointer/);
    });
  });
});
