/**
 * Settling an `ask` in process (`src/enforce/ask.ts`), line by line: every approval outcome that is not
 * exactly `granted: true` refuses with its own reason, every approval configuration that is not a usable path
 * refuses as "no approval path", and each ending is recorded as what it is. Written against the mutants that
 * survived `npm run mutation` (README, "Mutation testing"). The interrupt round trip (nonce, resume, answers
 * pre-loaded from a snapshot) is pinned in `test/policy/approval.test.ts`. The last block pins the handle and the
 * install-time locks of `src/enforce/agent-gate.ts` the same way.
 *
 * Equivalent survivors: ask.ts lines 56-58 `approval === undefined` (→ `false`): `readMember` of undefined
 * catches the TypeError and answers undefined, so the call is refused as "no approval path" all the same;
 * agent-gate.ts `cleanups.splice(0).reverse()` (→ without `reverse`): each cleanup removes one independent
 * registration, so the order does not matter.
 *
 * Open (not killed yet, not equivalent): ask.ts the interrupt name, the deep copy of `paths` in the interrupt
 * reason, rethrowing a non-interrupt error from `event.interrupt`, an `ask` record that fails, an answer
 * resumed under another gate or for a different call, the `thrown` branch of the interrupt check; agent-gate.ts
 * the decision hook's catch-all (`failUnexpected`, reached only by a bug in gate-audit), `uninstall` when the
 * mark is already gone, and the `-Infinity` orders of the invocation, decision, model and audit hooks.
 */
import { describe, expect, it } from 'vitest';
import { allowAll, type Gate, type GateRecord, install, isGated } from '../../src/index.js';
import { agentGateMark } from '../../src/walker/marks.js';
import { liveMiddlewareArray } from '../../src/walker/sdk-internals.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';

isolateEachTest();

/** Runs one `rm` call under a gate that asks, with `approval` as its approval path. */
async function askWith(approval: unknown): Promise<{ results: string[]; records: GateRecord[] }> {
  const agent = scriptedAgent('a', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
  const records: GateRecord[] = [];
  const gate = {
    name: 'g',
    decide: () => ({ verdict: 'ask', reason: 'risky' }),
    approval,
    record: (r: GateRecord) => void records.push(r),
  } as unknown as Gate;
  install(agent, { gate });
  await agent.invoke('go');
  return { results: toolResults(agent), records };
}

describe('an approval outcome that is not exactly granted: true', () => {
  const throwing = Object.defineProperty({}, 'granted', {
    get() {
      throw new Error('boom');
    },
  });
  const cases: [string, () => unknown, string][] = [
    ['null', () => null, 'the approval answered no outcome'],
    ['a string', () => 'granted', 'the approval answered no outcome'],
    ['an object whose getter throws', () => throwing, 'reading the approval outcome threw: boom'],
    ['granted false with a reason', () => ({ granted: false, reason: 'not today' }), 'not today'],
    ['granted false with an empty reason', () => ({ granted: false, reason: '' }), 'no reason given'],
    ['granted false with a reason that is not a string', () => ({ granted: false, reason: 7 }), 'no reason given'],
    [
      'an approval step that throws',
      () => {
        throw new Error('pager down');
      },
      'the approval step failed: pager down',
    ],
    [
      'an approval step that rejects',
      () => Promise.reject(new Error('pager down')),
      'the approval step failed: pager down',
    ],
  ];
  for (const [what, ask, reason] of cases) {
    it(`${what}: refused with "${reason}", recorded as approval-refused`, async () => {
      const { results, records } = await askWith({ via: 'callback', ask });
      expect(ran).toEqual([]);
      expect(results).toEqual([`error:[gate] BLOCKED: approval refused (${reason}) | tool=<rm>, agent=<a>`]);
      expect(records.map((r) => [r.event, r.verdict, r.reason])).toEqual([
        ['approval-refused', 'deny', `approval refused (${reason})`],
      ]);
      expect(Object.keys(records[0] ?? {})).not.toContain('rule');
    });
  }
});

describe('an approval path that cannot be used', () => {
  const cases: [string, unknown][] = [
    ['an unknown via', { via: 'email', ask: () => ({ granted: true }), check: () => ({ granted: true }) }],
    ['a callback without ask', { via: 'callback', check: () => ({ granted: true }) }],
    ['an interrupt without check', { via: 'interrupt', ask: () => ({ granted: true }) }],
  ];
  for (const [what, approval] of cases) {
    it(`${what}: refused as "no approval path", recorded as a deny`, async () => {
      const { results, records } = await askWith(approval);
      expect(ran).toEqual([]);
      const reason = 'approval required (risky) but no approval path is configured';
      expect(results).toEqual([`error:[gate] BLOCKED: ${reason} | tool=<rm>, agent=<a>`]);
      expect(records.map((r) => [r.event, r.reason])).toEqual([['deny', reason]]);
    });
  }
});

describe('the handle of an agent gate (agent-gate.ts)', () => {
  it('an old handle neither reports nor removes a newer gate on the same agent', () => {
    const agent = scriptedAgent('a', [say('x')]);
    const first = install(agent, { gate: allowAll() });
    first.uninstall();
    expect(isGated(agent)).toBe(false);
    const second = install(agent, { gate: allowAll() });
    expect(first.isActive()).toBe(false);
    expect(second.isActive()).toBe(true);
    first.uninstall();
    expect(isGated(agent)).toBe(true);
    expect(second.isActive()).toBe(true);
  });

  it('reports the gate inactive once its execution check is removed, although its mark stays', () => {
    const agent = scriptedAgent('a', [say('x')]);
    const handle = install(agent, { gate: allowAll() });
    const middleware = liveMiddlewareArray(agent) ?? [];
    const index = middleware.findIndex(
      (m) => (m as { handler?: unknown }).handler === agentGateMark(agent)?.executionCheck,
    );
    middleware.splice(index, 1);
    expect(agentGateMark(agent)).toBeDefined();
    expect(handle.isActive()).toBe(false);
  });

  it('a spread copy of a gated agent carries no gate mark (the mark is not enumerable)', () => {
    const agent = scriptedAgent('a', [say('x')]);
    install(agent, { gate: allowAll() });
    expect(agentGateMark({ ...agent })).toBeUndefined();
  });

  it('locks the fields the SDK reads to run tools: none can become a getter after install', () => {
    const agent = scriptedAgent('a', [say('x')]);
    install(agent, { gate: allowAll() });
    for (const field of ['_toolExecutor', '_toolRegistry', '_hooksRegistry', '_middlewareRegistry']) {
      expect(() => Object.defineProperty(agent, field, { get: () => undefined }), field).toThrow(TypeError);
    }
  });
});
