import { createHash, createHmac } from 'node:crypto';
import { BeforeToolCallEvent } from '@strands-agents/sdk';
import { Graph, Swarm } from '@strands-agents/sdk/multiagent';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import {
  type ApprovalBinding,
  approve,
  type GateRecord,
  GateAuditError,
  GateFailedError,
  install,
  installMultiagent,
  type PolicyInput,
  policyGate,
  type ToolCallRequest,
} from '../../src/index.js';
import { approvalKey, approvalToken, equalText, isApprovalToken, tokenApprovals } from '../../src/policy/approval.js';
import { answer } from '../helpers/approvals.js';
import { call, handoff, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';

const secret = 'test-secret-0123456789abcdef0123456789abcdef';

/** rm asks for approval; ls is allowed; anything else is denied. */
const policy: PolicyInput = {
  version: 1,
  rules: [
    { id: 'ls-ok', tools: ['ls', 'strands_structured_output'], verdict: 'allow' },
    { id: 'rm-asks', tools: ['rm'], verdict: 'ask', reason: 'deleting needs a human' },
  ],
};

interface Paused {
  id: string;
  request: ToolCallRequest & { gateId: string; nonce: string };
  reason: string;
}

function pausedOf(result: { interrupts?: readonly { id: string; reason?: unknown }[] }): Paused[] {
  return (result.interrupts ?? []).map((i) => {
    const reason = i.reason as { request: Paused['request']; reason: string };
    return { id: i.id, request: reason.request, reason: reason.reason };
  });
}

// Not rmAgent of helpers/sdk.ts: rm's input (`/tmp/x` unless given, which the tests read) and tool-use id are chosen.
function rmAgent(id = 'a', input: Record<string, unknown> = { path: '/tmp/x' }, toolUseId?: string) {
  return scriptedAgent(id, [call('rm', input, toolUseId), say('done')], { tools: [recordingTool('rm')] });
}

let errors: MockInstance<typeof console.error>;
beforeEach(() => {
  ran.length = 0;
  errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => errors.mockRestore());

describe('policyGate asking for approval', () => {
  describe('when the approvals are SDK interrupts answered with tokens of a secret', () => {
    it('pauses the run with stopReason interrupt, showing the exact request, and runs nothing', async () => {
      const agent = rmAgent();
      install(agent, { gate: policyGate(policy, { approvals: { secret } }) });
      const result = await agent.invoke('go');
      expect(result.stopReason).toBe('interrupt');
      expect(ran).toEqual([]);
      const [paused] = pausedOf(result);
      expect(paused?.reason).toBe('deleting needs a human');
      expect(paused?.request).toMatchObject({ toolName: 'rm', input: { path: '/tmp/x' }, agentId: 'a', path: [] });
      expect(paused?.request.gateId).toEqual(expect.any(String));
      expect(paused?.request.nonce).toMatch(/^[0-9a-f]{32}$/);
      expect(paused?.id).toBe(`hook:beforeToolCall:${paused?.request.toolUseId}:gate-audit:approval`);
    });

    it('runs exactly the approved call when resumed with its approve() token', async () => {
      const agent = rmAgent();
      install(agent, { gate: policyGate(policy, { approvals: { secret } }) });
      const [paused] = pausedOf(await agent.invoke('go'));
      const result = await agent.invoke(answer(paused!.id, approve(paused!.request, { secret })));
      expect(result.stopReason).toBe('endTurn');
      expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
      expect(toolResults(agent)).toEqual(['success:ok rm']);
    });

    const refusals: [string, (p: Paused) => unknown, RegExp][] = [
      ['a plain "yes"', () => 'yes', /the answer is not an approval token/],
      ['true', () => true, /the answer is not an approval token/],
      [
        'a token for other arguments',
        (p) => approve({ ...p.request, input: { path: '/tmp/other' } }, { secret }),
        /not for this interrupt/,
      ],
      [
        'a token for another tool use',
        (p) => approve({ ...p.request, toolUseId: 'other' }, { secret }),
        /not for this interrupt/,
      ],
      [
        'a token for another agent',
        (p) => approve({ ...p.request, agentId: 'writer' }, { secret }),
        /not for this interrupt/,
      ],
      [
        'a token for another gate',
        (p) => approve({ ...p.request, gateId: 'f'.repeat(64) }, { secret }),
        /not for this interrupt/,
      ],
      [
        'a token for another interrupt of the same call (another nonce)',
        (p) => approve({ ...p.request, nonce: '0'.repeat(32) }, { secret }),
        /not for this interrupt/,
      ],
      [
        'a token for another place',
        (p) => approve({ ...p.request, path: ['elsewhere'] }, { secret }),
        /not for this interrupt/,
      ],
      [
        'a token signed with another secret',
        (p) => approve(p.request, { secret: `${secret}-other` }),
        /not for this interrupt/,
      ],
    ];
    for (const [name, response, reason] of refusals) {
      it(`refuses ${name} with [gate] BLOCKED and runs nothing`, async () => {
        const agent = rmAgent();
        install(agent, { gate: policyGate(policy, { approvals: { secret } }) });
        const [paused] = pausedOf(await agent.invoke('go'));
        const result = await agent.invoke(answer(paused!.id, response(paused!)));
        expect(result.stopReason).toBe('endTurn');
        expect(ran).toEqual([]);
        expect(toolResults(agent)[0]).toMatch(/^error:\[gate\] BLOCKED: approval refused \(/);
        expect(toolResults(agent)[0]).toMatch(reason);
        expect(toolResults(agent)[0]).toMatch(/tool=<rm>, agent=<a>, rule=<rm-asks>$/);
      });
    }

    it('refuses a token used before, even for the same tool, tool use id and input: each interrupt has its own nonce', async () => {
      const gate = policyGate(policy, { approvals: { secret } });
      const first = rmAgent('a', { path: '/x' }, 'call_0');
      install(first, { gate });
      const [paused] = pausedOf(await first.invoke('go'));
      const token = approve(paused!.request, { secret });
      await first.invoke(answer(paused!.id, token));
      expect(ran).toEqual(['rm({"path":"/x"})@a']);
      const second = rmAgent('a', { path: '/x' }, 'call_0');
      install(second, { gate });
      const [again] = pausedOf(await second.invoke('go'));
      expect(again!.request.nonce).not.toBe(paused!.request.nonce);
      expect(approve(again!.request, { secret })).not.toBe(token);
      await second.invoke(answer(again!.id, token));
      expect(ran).toEqual(['rm({"path":"/x"})@a']);
      expect(toolResults(second)[0]).toMatch(/approval refused \(the approval token is not for this interrupt/);
    });

    it('refuses a token answered at one gate when given to another gate with the same secret', async () => {
      const reader = rmAgent('reader', { path: '/x' }, 'call_0');
      const writer = rmAgent('writer', { path: '/x' }, 'call_0');
      install(reader, { gate: policyGate(policy, { approvals: { secret } }) });
      install(writer, { gate: policyGate(policy, { name: 'other', approvals: { secret } }) });
      const [forReader] = pausedOf(await reader.invoke('go'));
      const [forWriter] = pausedOf(await writer.invoke('go'));
      const readerToken = approve(forReader!.request, { secret });
      await writer.invoke(answer(forWriter!.id, readerToken));
      expect(ran).toEqual([]);
      expect(toolResults(writer)[0]).toMatch(/approval refused \(the approval token is not for this interrupt/);
    });

    it('refuses an answer pre-loaded from a snapshot, even a valid token: no interrupt was raised', async () => {
      const agent = rmAgent('a', { path: '/x' }, 'predictable');
      install(agent, { gate: policyGate(policy, { approvals: { secret } }) });
      const id = 'hook:beforeToolCall:predictable:gate-audit:approval';
      const token = approve(
        {
          toolName: 'rm',
          toolUseId: 'predictable',
          input: { path: '/x' },
          agentId: 'a',
          path: [],
          gateId: 'g',
          nonce: 'n',
        },
        { secret },
      );
      const snapshot = agent.takeSnapshot({ include: ['messages'] });
      agent.loadSnapshot({
        ...snapshot,
        data: {
          ...snapshot.data,
          interrupts: {
            activated: false,
            interrupts: { [id]: { id, name: 'gate-audit:approval', response: token, source: 'hook' } },
          },
        },
      });
      const result = await agent.invoke('go');
      expect(result.stopReason).toBe('endTurn');
      expect(ran).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(/approval refused \(the approval answer was not requested by this gate/);
    });

    it('keeps the seal: a later hook that changes the approved input gets the call refused', async () => {
      const agent = rmAgent();
      install(agent, { gate: policyGate(policy, { approvals: { secret } }) });
      const [paused] = pausedOf(await agent.invoke('go'));
      agent.addHook(BeforeToolCallEvent, (e) => {
        (e.toolUse.input as { path: string }).path = '/etc';
      });
      await expect(agent.invoke(answer(paused!.id, approve(paused!.request, { secret })))).rejects.toBeInstanceOf(
        GateFailedError,
      );
      expect(ran).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(/BLOCKED: the input changed after the decision/);
    });

    it('records the ask and the approval in the decision log', async () => {
      const records: GateRecord[] = [];
      const gate = policyGate(policy, { approvals: { secret } });
      const agent = rmAgent();
      install(agent, { gate: { ...gate, record: (r) => void records.push(r) } });
      const [paused] = pausedOf(await agent.invoke('go'));
      await agent.invoke(answer(paused!.id, approve(paused!.request, { secret })));
      expect(records.map((r) => `${r.event}:${r.verdict}:${r.rule}`)).toEqual([
        'ask:ask:rm-asks',
        'approval-granted:allow:rm-asks',
      ]);
    });

    it('pauses and resumes inside a Graph', async () => {
      const first = scriptedAgent('first', [call('ls'), say('listed')], { tools: [recordingTool('ls')] });
      const second = scriptedAgent('second', [call('rm', { path: '/g' }), say('removed')], {
        tools: [recordingTool('rm')],
      });
      const graph = new Graph({ id: 'g', nodes: [first, second], edges: [['first', 'second']], maxSteps: 5 });
      installMultiagent(graph, { gate: policyGate(policy, { approvals: { secret } }) });
      const paused = await graph.invoke('go');
      expect(paused.status).toBe('INTERRUPTED');
      expect(ran).toEqual(['ls({})@first']);
      const [p] = pausedOf(paused);
      expect(p?.request.path).toEqual(['g', 'second']);
      const done = await graph.invoke(answer(p!.id, approve(p!.request, { secret })));
      expect(done.status).toBe('COMPLETED');
      expect(ran).toEqual(['ls({})@first', 'rm({"path":"/g"})@second']);
    });

    it('pauses and resumes inside a Swarm, and refuses a forged answer there too', async () => {
      const build = () => {
        const s1 = scriptedAgent('s1', [call('rm', { path: '/s' }), handoff(undefined, 'done'), say('-')], {
          tools: [recordingTool('rm')],
        });
        const swarm = new Swarm({ id: 'team', nodes: [s1], maxSteps: 4 });
        installMultiagent(swarm, { gate: policyGate(policy, { approvals: { secret } }) });
        return swarm;
      };
      const swarm = build();
      const paused = await swarm.invoke('go');
      expect(paused.status).toBe('INTERRUPTED');
      const [p] = pausedOf(paused);
      const done = await swarm.invoke(answer(p!.id, approve(p!.request, { secret })));
      expect(done.status).toBe('COMPLETED');
      expect(ran).toEqual(['rm({"path":"/s"})@s1']);

      ran.length = 0;
      const forged = build();
      const [q] = pausedOf(await forged.invoke('go'));
      await forged.invoke(answer(q!.id, 'yes'));
      expect(ran).toEqual([]);
    });

    it('refuses a secret shorter than 32 bytes', () => {
      expect(() => policyGate(policy, { approvals: { secret: 'short' } })).toThrow(GateAuditError);
      const request = { toolName: 'rm', toolUseId: 'x', input: {}, agentId: 'a', path: [], gateId: 'g', nonce: 'n' };
      expect(() => approve(request, { secret: 'short' })).toThrow(/at least 32 bytes/);
    });
  });

  describe('when an in-process approver answers', () => {
    async function runWith(approver: (r: ToolCallRequest) => Promise<boolean>, approverTimeoutMs?: number) {
      const agent = rmAgent();
      const seen: ToolCallRequest[] = [];
      install(agent, {
        gate: policyGate(policy, {
          approver: (r) => {
            seen.push(r);
            return approver(r);
          },
          ...(approverTimeoutMs === undefined ? {} : { approverTimeoutMs }),
        }),
      });
      const result = await agent.invoke('go');
      return { agent, result, seen };
    }

    it('runs the call when the approver answers true, without pausing', async () => {
      const { result, seen } = await runWith(() => Promise.resolve(true));
      expect(result.stopReason).toBe('endTurn');
      expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
      expect(seen[0]).toMatchObject({ toolName: 'rm', input: { path: '/tmp/x' } });
    });

    const denials: [string, () => Promise<boolean>, number | undefined, RegExp][] = [
      ['answers false', () => Promise.resolve(false), undefined, /the approver said no/],
      ['answers something truthy but not true', () => Promise.resolve('yes' as never), undefined, /said no/],
      ['rejects', () => Promise.reject(new Error('pager down')), undefined, /the approver failed: pager down/],
      [
        'throws synchronously',
        () => {
          throw new Error('bug');
        },
        undefined,
        /the approver failed: bug/,
      ],
      ['does not answer in time', () => new Promise<boolean>(() => undefined), 50, /did not answer within 50 ms/],
    ];
    for (const [name, approver, timeout, reason] of denials) {
      it(`denies when the approver ${name}`, async () => {
        const { agent, result } = await runWith(approver, timeout);
        expect(result.stopReason).toBe('endTurn');
        expect(ran).toEqual([]);
        expect(toolResults(agent)[0]).toMatch(/^error:\[gate\] BLOCKED: approval refused \(/);
        expect(toolResults(agent)[0]).toMatch(reason);
      });
    }

    it('rejects both approval paths at once, and a bad timeout', () => {
      expect(() => policyGate(policy, { approvals: { secret }, approver: () => Promise.resolve(true) })).toThrow(
        /both approvals and approver are given/,
      );
      expect(() => policyGate(policy, { approver: () => Promise.resolve(true), approverTimeoutMs: 0 })).toThrow(
        /approverTimeoutMs/,
      );
    });
  });

  describe('when no approval path is configured', () => {
    it('denies, saying no approval path is configured', async () => {
      const agent = rmAgent();
      install(agent, { gate: policyGate(policy) });
      const result = await agent.invoke('go');
      expect(result.stopReason).toBe('endTurn');
      expect(ran).toEqual([]);
      expect(toolResults(agent)[0]).toBe(
        'error:[gate] BLOCKED: approval required (deleting needs a human) but no approval path is configured | ' +
          'tool=<rm>, agent=<a>, rule=<rm-asks>',
      );
    });
  });
});

/**
 * The token is a contract between processes (an approver signs where the agent is not): its format, the key rules
 * and the refusals of `src/policy/approval.ts`, each written against a mutant that survived the suite
 * (`npm run mutation`).
 */
describe('approvalToken and tokenApprovals: format, key and subject checks', () => {
  /** What a function throws (undefined when it returns). */
  function thrown(run: () => unknown): unknown {
    try {
      run();
    } catch (error) {
      return error;
    }
    return undefined;
  }
  const subject = {
    toolName: 'rm',
    toolUseId: 'tu-1',
    input: { path: '/tmp/x', force: true },
    agentId: 'writer',
    path: ['research', 'writer'],
    gateId: 'gate-id-1',
    nonce: 'nonce-1',
  };

  describe('when a token is made', () => {
    it('is ga2. and the HMAC-SHA256, under its own domain tag, of the canonical list of what it binds', () => {
      // Written out here from the documented format, not through the module's own helpers.
      const digest = createHash('sha256').update('{"force":true,"path":"/tmp/x"}').digest('hex');
      const message = JSON.stringify([
        'gate-audit-approval/v2',
        'gate-id-1',
        'writer',
        'research/writer',
        'nonce-1',
        'rm',
        'tu-1',
        digest,
      ]);
      const expected = `ga2.${createHmac('sha256', Buffer.from(secret, 'utf8')).update(message).digest('hex')}`;
      expect(approve(subject, { secret })).toBe(expected);
    });

    it('takes a secret as text or bytes alike, and refuses one of 31 bytes, or of no such type, but not one of 32', () => {
      const bytes = new Uint8Array(Buffer.from(secret, 'utf8'));
      expect(approve(subject, { secret: bytes })).toBe(approve(subject, { secret }));
      expect(() => approve(subject, { secret: 'k'.repeat(31) })).toThrow(/at least 32 bytes/);
      expect(() => approve(subject, { secret: new Uint8Array(31) })).toThrow(/at least 32 bytes/);
      expect(() => approve(subject, { secret: 32 as unknown as string })).toThrow(/at least 32 bytes/);
      expect(() => approve(subject, undefined as unknown as { secret: string })).toThrow(/at least 32 bytes/);
      expect(approve(subject, { secret: 'k'.repeat(32) })).toMatch(/^ga2\.[0-9a-f]{64}$/);
      expect(thrown(() => approvalKey({ secret: 'k'.repeat(31) }, 'approvals'))).toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('subject=<approvals>') as unknown,
      });
    });

    it('refuses to sign a request missing any field it binds, naming each', () => {
      for (const key of ['toolName', 'toolUseId', 'agentId', 'gateId', 'nonce'] as const) {
        expect(() => approve({ ...subject, [key]: '' }, { secret })).toThrow(`fields=<${key}>`);
        expect(() => approve({ ...subject, [key]: 1 as unknown as string }, { secret })).toThrow(`fields=<${key}>`);
      }
      expect(() => approve({ ...subject, path: 'research/writer' as unknown as string[] }, { secret })).toThrow(
        'fields=<path>',
      );
      expect(thrown(() => approve({ ...subject, toolName: '', nonce: '' }, { secret }))).toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('fields=<toolName, nonce>') as unknown,
      });
      expect(() => approve(undefined as unknown as typeof subject, { secret })).toThrow(/fields=<toolName/);
      expect(() => approvalToken(approvalKey({ secret }, 'x'), { ...subject, agentId: '' })).toThrow(
        'fields=<agentId>',
      );
    });
  });

  describe('when a text is checked for the shape of a token', () => {
    it('knows a token only by its exact shape', () => {
      const token = approve(subject, { secret });
      expect(isApprovalToken(token)).toBe(true);
      expect(isApprovalToken(`x${token}`)).toBe(false);
      expect(isApprovalToken(`${token}0`)).toBe(false);
      expect(isApprovalToken(token.slice(0, -1))).toBe(false);
      expect(isApprovalToken(token.toUpperCase())).toBe(false);
      expect(equalText(token, token)).toBe(true);
      expect(equalText(token, token.slice(0, -1))).toBe(false);
      expect(equalText('ab', 'ac')).toBe(false);
    });
  });

  describe('when a token is checked against a waiting interrupt', () => {
    it('grants only with the binding of a waiting interrupt: none, or one without nonce or gate id, refuses', () => {
      const path = tokenApprovals({ secret });
      if (path.via !== 'interrupt') throw new Error('expected the interrupt path');
      const token = approve(subject, { secret });
      const request = { ...subject, agentName: 'writer', paths: [subject.path], toolKind: 'function' as const };
      expect(path.check(request, token, { nonce: 'nonce-1', gateId: 'gate-id-1' })).toEqual({ granted: true });
      const refused = { granted: false, reason: 'no interrupt of this gate is waiting for this answer' };
      expect(path.check(request, token, undefined as unknown as ApprovalBinding)).toEqual(refused);
      expect(path.check(request, token, { gateId: 'gate-id-1' } as never)).toEqual(refused);
      expect(path.check(request, token, { nonce: 'nonce-1' } as never)).toEqual(refused);
      expect(path.check(request, token, { nonce: 'nonce-2', gateId: 'gate-id-1' })).toMatchObject({ granted: false });
    });
  });
});
