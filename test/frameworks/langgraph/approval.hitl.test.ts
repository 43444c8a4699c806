/**
 * `humanInTheLoopMiddleware` beside the gate: the middleware pauses a `createAgent` agent before its tools run and
 * rewrites (or drops) the calls from answers it matches by position. gate-audit never reads those answers: its gate
 * judges the call the middleware passes on to the tool node, so an answer that edits a call to a path the policy
 * denies leaves that call refused, and an answer given in the wrong position edits the wrong call, which the gate
 * still judges by what it is.
 */
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent, humanInTheLoopMiddleware } from 'langchain';
import { describe, expect, it } from 'vitest';
import { installMultiagent, policyGate, type ToolCallRequest } from '../../../src/index.js';
import type { PolicyInput } from '../../../src/policy/schema.js';
import { recordingTool, ScriptedChatModel } from '../../helpers/langgraph.js';

/** Writes under /tmp only; everything else is denied. */
const policy: PolicyInput = {
  version: 1,
  default: 'deny',
  rules: [{ id: 'tmp-writes', tools: ['write_file'], when: [{ arg: 'path', matches: '^/tmp/' }], verdict: 'allow' }],
};

function reviewed(...paths: string[]): {
  agent: ReturnType<typeof createAgent>;
  ran: string[];
  decided: ToolCallRequest[];
} {
  const ran: string[] = [];
  const decided: ToolCallRequest[] = [];
  const agent = createAgent({
    model: new ScriptedChatModel([
      { calls: paths.map((path) => ({ name: 'write_file', args: { path } })) },
      { say: 'written' },
    ]),
    tools: [recordingTool('write_file', ran)],
    middleware: [humanInTheLoopMiddleware({ interruptOn: { write_file: true } })],
    checkpointer: new MemorySaver(),
    name: 'writer',
  });
  const gate = policyGate(policy);
  installMultiagent(agent, {
    gate: {
      name: gate.name,
      decide: (request, context) => {
        decided.push(request);
        return gate.decide(request, context);
      },
    },
  });
  return { agent, ran, decided };
}

const hi = { messages: [{ role: 'user', content: 'write it' }] };
const thread = (id: string) => ({ configurable: { thread_id: id } });
const interrupted = (result: unknown): boolean =>
  ((result as { __interrupt__?: unknown[] }).__interrupt__ ?? []).length > 0;

describe('a gated createAgent agent with humanInTheLoopMiddleware', () => {
  describe('when the reviewer approves', () => {
    it('pauses before any tool runs, then the gate judges and runs the approved call once', async () => {
      const { agent, ran, decided } = reviewed('/tmp/notes');
      const paused: unknown = await agent.invoke(hi, thread('approve'));
      expect(interrupted(paused)).toBe(true);
      expect(ran).toEqual([]);
      expect(decided).toEqual([]);
      await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), thread('approve'));
      expect(decided.map((r) => r.input)).toEqual([{ path: '/tmp/notes' }]);
      expect(ran).toEqual(['write_file({"path":"/tmp/notes"})']);
    });
  });

  describe('when the reviewer edits the call to a path the policy denies', () => {
    it('the gate judges the edited call, refuses it, and nothing is written', async () => {
      const { agent, ran, decided } = reviewed('/tmp/notes');
      await agent.invoke(hi, thread('edit'));
      const edit = { type: 'edit', editedAction: { name: 'write_file', args: { path: '/etc/passwd' } } };
      const result: unknown = await agent.invoke(new Command({ resume: { decisions: [edit] } }), thread('edit'));
      expect(decided.map((r) => r.input)).toEqual([{ path: '/etc/passwd' }]);
      expect(ran).toEqual([]);
      expect(JSON.stringify((result as { messages: unknown[] }).messages)).toContain('[gate] BLOCKED');
    });
  });

  describe('when the answers are matched to calls by position (gate-audit never reads them)', () => {
    it('an edit meant for the second call lands on the first, and each call is judged by what reaches the tool', async () => {
      const { agent, ran, decided } = reviewed('/tmp/a', '/tmp/b');
      await agent.invoke(hi, thread('positions'));
      // Meant: approve /tmp/a, point /tmp/b at /etc/shadow. Given in the wrong order.
      const decisions = [
        { type: 'edit', editedAction: { name: 'write_file', args: { path: '/etc/shadow' } } },
        { type: 'approve' },
      ];
      await agent.invoke(new Command({ resume: { decisions } }), thread('positions'));
      expect(decided.map((r) => r.input)).toEqual([{ path: '/etc/shadow' }, { path: '/tmp/b' }]);
      expect(ran).toEqual(['write_file({"path":"/tmp/b"})']);
    });
  });
});
