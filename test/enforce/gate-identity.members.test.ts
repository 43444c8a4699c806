/**
 * A gate member whose read throws is a gate failure. Every call reads the gate's members once (`viewGate`); a read
 * that threw was taken as "absent": a gate whose `approval` getter threw answered `ask` with no approval path (the
 * call did not run, but the run went on to the next call), one whose `record` getter threw let both calls run with
 * nothing recorded, and one whose `id` getter threw was given a per-process id. Now a throwing read of any member
 * (`name`, `id`, `decide`, `approval`, `record`) refuses the call and stops the run, as a throwing `record()` does,
 * and the audit calls the agent blocked (every call is refused).
 *
 * Mutated by hand: a read that throws taken as `undefined` again (`readOnce` in `gate-identity.ts`) fails the `id`,
 * `approval` and `record` rows.
 */
import { describe, expect, it } from 'vitest';
import { audit, configureGate, type Gate, GateFailedError, install } from '../../src/index.js';
import { settleValue as settle } from '../helpers/runs.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent } from '../helpers/sdk.js';

isolateEachTest();

const MEMBERS = ['name', 'id', 'decide', 'approval', 'record'] as const;
type Member = (typeof MEMBERS)[number];

/**
 * A usable gate (it asks for `rm`, allows the rest, records everything, has an approval path that grants) whose
 * one member, once `arm()` was called, throws when read.
 */
function gateThrowingOn(member: Member): { gate: Gate; arm: () => void; records: unknown[] } {
  let armed = false;
  const records: unknown[] = [];
  const values: Record<Member, unknown> = {
    name: 'members',
    id: 'members-gate',
    decide: (r: { toolName: string }) =>
      r.toolName === 'rm' ? { verdict: 'ask', reason: 'rm needs approval' } : { verdict: 'allow' },
    approval: { via: 'callback', ask: () => ({ granted: true }) },
    record: (r: unknown) => void records.push(r),
  };
  const gate = {} as Gate;
  for (const key of MEMBERS) {
    Object.defineProperty(gate, key, {
      enumerable: true,
      get: () => {
        if (armed && key === member) throw new Error(`${key} getter broke`);
        return values[key];
      },
    });
  }
  return { gate, arm: () => void (armed = true), records };
}

/** An agent that calls `ls`, then `rm` (in two turns), then answers. */
function twoCalls(): ReturnType<typeof scriptedAgent> {
  return scriptedAgent('a', [call('ls', { path: '/1' }), call('rm', { path: '/2' }), say('done')], {
    tools: [recordingTool('ls'), recordingTool('rm')],
  });
}

describe('viewGate', () => {
  describe('when no member read throws', () => {
    it('the gate as written lets ls run and asks for rm, which its approval grants (the baseline)', async () => {
      const { gate, records } = gateThrowingOn('name');
      const agent = twoCalls();
      install(agent, { gate });
      await agent.invoke('go');
      expect(ran).toEqual(['ls({"path":"/1"})@a', 'rm({"path":"/2"})@a']);
      expect(records.length).toBeGreaterThan(0);
    });
  });

  describe('when a gate member read throws', () => {
    describe.each(MEMBERS)('%s', (member) => {
      it('refuses the first call and stops the run: nothing runs, the model is not called again', async () => {
        const { gate, arm } = gateThrowingOn(member);
        const agent = twoCalls();
        install(agent, { gate });
        arm();
        const result = await settle(agent.invoke('go'));
        expect(ran).toEqual([]);
        expect(result).toBeInstanceOf(GateFailedError);
        expect(String(result)).toMatch(new RegExp(`"${member}".*threw: ${member} getter broke`));
        expect(agent.model.calls).toBe(1);
      });

      it('as the configured gate, resolved at each call: the same', async () => {
        const { gate, arm } = gateThrowingOn(member);
        configureGate(gate);
        const agent = twoCalls();
        install(agent);
        arm();
        const result = await settle(agent.invoke('go'));
        expect(ran).toEqual([]);
        expect(result).toBeInstanceOf(GateFailedError);
      });

      it('the audit calls the agent blocked: every call is refused', () => {
        const { gate, arm } = gateThrowingOn(member);
        const agent = twoCalls();
        install(agent, { gate });
        arm();
        const row = audit(agent).nodes[0]!;
        expect(row.status).toBe('blocked');
        expect(row.reason).toMatch(/threw/);
      });
    });
  });
});
