import { type BeforeToolCallEvent, InterventionActions, InterventionHandler } from '@strands-agents/sdk';
import { CedarAuthorization } from '@strands-agents/sdk/vended-interventions/cedar';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ApprovalSubject, approve, GateAuditError, install, interventionGate } from '../../src/index.js';
import { call, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';

const permitLs = 'permit(principal, action == Action::"ls", resource);';

class Scripted extends InterventionHandler {
  readonly name = 'scripted';
  constructor(
    private readonly _action: () => unknown,
    override readonly onError: 'throw' | 'deny' | 'proceed' = 'throw',
  ) {
    super();
  }
  override beforeToolCall(): never {
    return this._action() as never;
  }
}

function lsAndRm(id = 'a') {
  return scriptedAgent(id, [call('ls', { path: '/tmp' }), call('rm', { path: '/' }), say('done')], {
    tools: [recordingTool('ls'), recordingTool('rm')],
  });
}

beforeEach(() => {
  ran.length = 0;
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

describe('interventionGate', () => {
  describe('when the handler is the real CedarAuthorization', () => {
    it('allows what the Cedar policy permits and denies the rest, with its reason', async () => {
      const agent = lsAndRm();
      install(agent, {
        gate: interventionGate(() => new CedarAuthorization({ policies: permitLs }), { name: 'cedar' }),
      });
      await agent.invoke('go');
      expect(ran).toEqual(['ls({"path":"/tmp"})@a']);
      const results = toolResults(agent);
      expect(results[0]).toBe('success:ok ls');
      expect(results[1]).toMatch(
        /^error:\[gate\] BLOCKED: Access denied by Cedar policy.* \| tool=<rm>, agent=<a>, rule=<intervention:cedar-authorization>$/,
      );
    });

    it('decides on the input through Cedar conditions', async () => {
      const policies = 'permit(principal, action == Action::"rm", resource) when { context.input.path like "/tmp/*" };';
      const agent = scriptedAgent('a', [call('rm', { path: '/tmp/x' }), call('rm', { path: '/etc' }), say('done')], {
        tools: [recordingTool('rm')],
      });
      install(agent, { gate: interventionGate(() => new CedarAuthorization({ policies })) });
      await agent.invoke('go');
      expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
    });

    it('makes one handler per agent (Cedar keeps per-agent call counts)', async () => {
      const made: string[] = [];
      const gate = interventionGate((agent) => {
        made.push(agent.id);
        return new CedarAuthorization({ policies: permitLs });
      });
      const a = lsAndRm('a');
      const b = lsAndRm('b');
      install(a, { gate });
      install(b, { gate });
      await a.invoke('go');
      await b.invoke('go');
      expect(made).toEqual(['a', 'b']);
      expect(a.appState.get('cedar-authorization')).toEqual({ ls: 1, rm: 0 });
    });
  });

  describe('when a handler returns an action (the action mapping)', () => {
    const cases: [string, () => unknown, string, RegExp | string][] = [
      ['Proceed is an allow', () => InterventionActions.proceed(), 'success:ok rm', ''],
      ['Deny is a deny with its reason', () => InterventionActions.deny('no way'), 'error', /BLOCKED: no way \|/],
      ['Guide is a deny', () => InterventionActions.guide('try ls'), 'error', /answered a "guide" action/],
      [
        'Transform is a deny',
        () => InterventionActions.transform(() => undefined),
        'error',
        /answered a "transform" action/,
      ],
      ['garbage is a deny', () => 42, 'error', /answered no action/],
      [
        'a throw is a deny even with onError proceed',
        () => {
          throw new Error('handler bug');
        },
        'error',
        /BLOCKED: intervention "scripted" failed: handler bug/,
      ],
    ];
    for (const [name, action, status, text] of cases) {
      it(name, async () => {
        const agent = scriptedAgent('a', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
        install(agent, { gate: interventionGate(() => new Scripted(action, 'proceed')) });
        await agent.invoke('go');
        const [result] = toolResults(agent);
        expect(result?.startsWith(status)).toBe(true);
        expect(result).toMatch(text);
        expect(ran).toHaveLength(status === 'error' ? 0 : 1);
      });
    }

    it('Confirm is an ask: a preset response is ignored, and only a signed approval runs the call', async () => {
      const secret = 'intervention-secret-0123456789abcdef0123';
      const agent = scriptedAgent('a', [call('rm', { path: '/x' }), say('done')], { tools: [recordingTool('rm')] });
      const confirm = () => InterventionActions.confirm('Allow rm?', { response: 'yes' });
      install(agent, { gate: interventionGate(() => new Scripted(confirm), { approvals: { secret } }) });
      const paused = await agent.invoke('go');
      expect(paused.stopReason).toBe('interrupt');
      expect(ran).toEqual([]);
      const interrupt = paused.interrupts![0]!;
      const { request, reason } = interrupt.reason as unknown as { request: ApprovalSubject; reason: string };
      expect(reason).toBe('Allow rm?');
      await agent.invoke([
        { interruptResponse: { interruptId: interrupt.id, response: approve(request, { secret }) } },
      ]);
      expect(ran).toEqual(['rm({"path":"/x"})@a']);
    });

    it('a factory that fails or returns something else denies', async () => {
      const agent = scriptedAgent('a', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
      install(agent, { gate: interventionGate(() => ({}) as never) });
      await agent.invoke('go');
      expect(toolResults(agent)[0]).toMatch(/did not return an InterventionHandler/);
      expect(() => interventionGate('nope' as never)).toThrow(GateAuditError);
    });

    it('the handler cannot change what runs: it sees a copy of the call', async () => {
      const agent = scriptedAgent('a', [call('rm', { path: '/tmp' }), say('done')], { tools: [recordingTool('rm')] });
      class Mutating extends InterventionHandler {
        readonly name = 'mutating';
        override beforeToolCall(event: BeforeToolCallEvent): ReturnType<InterventionHandler['beforeToolCall']> {
          (event.toolUse.input as { path: string }).path = '/etc';
          return InterventionActions.proceed();
        }
      }
      install(agent, { gate: interventionGate(() => new Mutating()) });
      await agent.invoke('go');
      expect(ran).toEqual(['rm({"path":"/tmp"})@a']);
    });
  });
});
