/**
 * Settling an `ask` in process (`src/enforce/ask.ts`), line by line: every approval outcome that is not
 * exactly `granted: true` refuses with its own reason, every approval configuration that is not a usable path
 * refuses as "no approval path", and each ending is recorded as what it is. The interrupt round trip (nonce,
 * resume, answers pre-loaded from a snapshot) is pinned in `test/policy/approval.test.ts`, the durable path
 * (`raise`, `resume`, the approval id) in `test/policy/approval-store.test.ts`. The `installAgentGate` block pins the handle
 * and the install-time locks of `src/enforce/agent-gate.ts` the same way.
 *
 * Surviving mutants of ask.ts (CONTRIBUTING.md, "Mutation testing"), each equivalent:
 * - `approval === undefined` (→ `false`, the three reads in `settleAsk`): `readMember` of undefined catches the
 *   TypeError and answers undefined, so the call is refused as "no approval path" all the same.
 * - `readMember`'s `catch` returning undefined (→ `{}`): a function that ends answers undefined too.
 * - `approvalId === undefined` (→ `false`, twice) and `pending.approvalId === undefined` (→ `false`): the key is
 *   then present with the value undefined, which every reader reads as absent (and JSON drops).
 * - the callback path's `'late'` text (no coverage): the callback is awaited without a timeout, never late.
 *
 * Surviving mutants of agent-gate.ts, each equivalent (one more in `agent-gate.executor-swap.test.ts`):
 * - `cleanups.splice(0).reverse()` (→ no reverse): each cleanup removes one registration, by identity.
 * - `failUnexpected`'s placeholders for a tool name or id it cannot read: the SDK builds `toolUse` as plain data,
 *   and the decision hook runs before any other hook could replace it.
 * - the hook orders (`-Infinity`/`Infinity` of the run-entry and run-exit hooks, the decision hook's, the model
 *   stop's): `moveHookFirst` puts the decision hook first at every decision, and no model or tool event of the
 *   agent fires between its `BeforeInvocationEvent` hooks, nor after its `AfterInvocationEvent` ones.
 * - `stopModelFirst`'s `event.agent === this.agent` (→ `true`): a delegate's inner agent runs in the run its
 *   call was decided in, so joining it changes nothing.
 * - `agentGateState(agent) === 'gated'` (→ `true`) when installing: an agent whose hooks were removed is not
 *   gated again either way before the node guard refuses it.
 * - the optional chaining on the mark and the promised gate's `gate`/`timeoutMs` spreads: the mark is read only
 *   where `agentGateState` found it, and `gateSource` reads an absent and an undefined member alike (`??`).
 * - `!(agent instanceof Object)` (→ never): `promisedGateSource` of a non-object finds no mark and no plugin.
 */
import { ExecuteToolStage, type InterruptResponseContentData, type JSONValue } from '@strands-agents/sdk';
import { AgentNode, Graph, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { setDecisionObserver, type ToolDecision } from '../../src/enforce/observe.js';
import {
  allowAll,
  configureGate,
  GatePlugin,
  type Gate,
  GateFailedError,
  type GateRecord,
  install,
  installMultiagent,
  isGated,
  type ToolCallRequest,
} from '../../src/index.js';
import { agentGateMark } from '../../src/walker/marks.js';
import { liveMiddlewareArray } from '../../src/frameworks/strands/sdk-internals.js';
import {
  call,
  handoff,
  isolateEachTest,
  nodesOf,
  ran,
  recordingTool,
  runOrchestrator,
  say,
  scriptedAgent,
  toolResults,
} from '../helpers/sdk.js';
import { settle } from '../helpers/runs.js';

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

describe('settleAsk', () => {
  describe('when the approval outcome is not exactly granted: true', () => {
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

  describe('when the approval path cannot be used', () => {
    const cases: [string, unknown][] = [
      ['an unknown via', { via: 'email', ask: () => ({ granted: true }), check: () => ({ granted: true }) }],
      ['a callback without ask', { via: 'callback', check: () => ({ granted: true }) }],
      ['an interrupt without check', { via: 'interrupt', ask: () => ({ granted: true }) }],
      [
        'a via that throws when read',
        Object.defineProperty({ check: () => ({ granted: true }) }, 'via', {
          get(): never {
            throw new Error('no via');
          },
        }),
      ],
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
});

describe('installAgentGate (agent-gate.ts)', () => {
  describe('when the gate is removed or installed again', () => {
    it('an old handle neither reports nor removes a newer gate on the same agent', () => {
      const agent = scriptedAgent('a', [say('x')]);
      const first = install(agent, { gate: allowAll() });
      first.uninstall();
      expect(isGated(agent)).toBe(false);
      // Its mark is gone: a second uninstall finds nothing to remove and does not throw.
      expect(() => first.uninstall()).not.toThrow();
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
  });

  describe('when the gated agent is copied or its fields redefined', () => {
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

  describe("when gate-audit itself fails while deciding (the decision hook's catch-all, `failUnexpected`)", () => {
    it('gate-audit failing while deciding (a frozen middleware list it must reorder): refused, recorded, the run stops', async () => {
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }, 'u1'), say('done')], {
        tools: [recordingTool('ls')],
      });
      const records: GateRecord[] = [];
      install(agent, {
        gate: { name: 'g', decide: () => ({ verdict: 'allow' }), record: (r) => void records.push(r) },
      });
      await agent.initialize();
      // A middleware added after the gate sits inside its execution check: the decision moves the check back
      // innermost, which a frozen list refuses with a TypeError in gate-audit's own code.
      agent.addMiddleware(ExecuteToolStage, (ctx, next) => next(ctx));
      Object.freeze(liveMiddlewareArray(agent));
      const error = await agent.invoke('go').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(toolResults(agent)).toHaveLength(1);
      expect(toolResults(agent)[0]).toMatch(
        /^error:\[gate\] ERROR: gate-audit failed while deciding: .+; the run stops$/,
      );
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        event: 'error',
        toolName: 'ls',
        toolUseId: 'u1',
        agentId: 'a',
        path: [],
        paths: [],
      });
    });
  });

  describe('when an agent only promises a gate it cannot have (`adoptPendingPlugin`)', () => {
    it("a GatePlugin naming the tree's gate, swapped in: adopted at run time, its handle placed at the agent's id", async () => {
      const gate = allowAll();
      const swarm = new Swarm({
        id: 's',
        nodes: [scriptedAgent('lead', [handoff('worker', 'go'), say('-')]), scriptedAgent('worker', [say('done')])],
      });
      installMultiagent(swarm, { gate });
      const rogue = scriptedAgent('worker', [call('ls', { path: '/' }), say('done')], {
        tools: [recordingTool('ls')],
        plugins: [new GatePlugin({ gate })],
      });
      nodesOf(swarm).set('worker', new AgentNode({ agent: rogue }));
      const { cancelled } = await runOrchestrator(swarm);
      expect(cancelled).toEqual({});
      expect(ran).toEqual(['ls({"path":"/"})@worker']);
      // The gate installed for the promise is this copy's: a later install() with the same gate reports its place.
      expect(install(rogue, { gate }).path).toEqual(['worker']);
    });

    it('a GatePlugin with no gate, no gate configured, swapped into a guarded Swarm: cancelled, naming the promise', async () => {
      const swarm = new Swarm({
        id: 's',
        nodes: [scriptedAgent('lead', [handoff('worker', 'go'), say('-')]), scriptedAgent('worker', [say('done')])],
      });
      installMultiagent(swarm, { gate: allowAll() });
      const rogue = scriptedAgent('worker', [call('rm', { path: '/' }), say('done')], {
        tools: [recordingTool('rm')],
        plugins: [new GatePlugin()],
      });
      nodesOf(swarm).set('worker', new AgentNode({ agent: rogue }));
      const { cancelled } = await runOrchestrator(swarm);
      expect(ran).toEqual([]);
      expect(cancelled.worker).toBe(
        '[gate] UNGATED NODE: node "worker" in "s" runs an agent whose promised gate cannot be installed: ' +
          'subject=<the gate promised to agent "worker"> | no gate given and none configured | ' +
          'pass { gate } or call configureGate(gate) before installing | gate it with installMultiagent or install',
      );
    });
  });
});

describe('settleAsk, the interrupt path, line by line', () => {
  type Answer = InterruptResponseContentData[];
  const answerTo = (id: string, response: unknown): Answer => [
    { interruptResponse: { interruptId: id, response: response as JSONValue } },
  ];
  interface Reason {
    request: ToolCallRequest & { nonce: string };
  }

  /** A gate that asks for rm, with an interrupt approval whose check is `check`. */
  function interruptGate(
    check: (request: ToolCallRequest, answer: unknown) => unknown,
    extra: Partial<Gate> = {},
  ): Gate & { records: GateRecord[] } {
    const records: GateRecord[] = [];
    return {
      name: 'asks',
      decide: (r) => (r.toolName === 'rm' ? { verdict: 'ask', reason: 'risky' } : { verdict: 'allow' }),
      approval: { via: 'interrupt', check: check as never },
      record: (r) => void records.push(r),
      records,
      ...extra,
    };
  }

  async function paused(agent: ReturnType<typeof scriptedAgent>): Promise<{ id: string; reason: Reason }> {
    const result = await agent.invoke('go');
    expect(result.stopReason).toBe('interrupt');
    const [first] = result.interrupts ?? [];
    return { id: first!.id, reason: first!.reason as unknown as Reason };
  }

  describe('when the call is paused for approval', () => {
    it('the interrupt shows the places of the call as plain lists', async () => {
      const worker = scriptedAgent('w', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
      const graph = new Graph({ id: 'g', nodes: [worker], edges: [] });
      installMultiagent(graph, { gate: interruptGate(() => ({ granted: true })) });
      // Run as a node of its tree: the call runs at the node's place (invoked on its own, it would have none).
      const result = await graph.invoke('go');
      expect(result.status).toBe('INTERRUPTED');
      const reason = result.interrupts?.[0]?.reason as unknown as Reason;
      expect(reason.request.path).toEqual(['g', 'w']);
      expect(reason.request.paths).toEqual([['g', 'w']]);
      expect(JSON.parse(JSON.stringify(reason.request.paths))).toEqual([['g', 'w']]);
    });

    it('the pause is recorded once, as an ask with its reason and verdict', async () => {
      const agent = scriptedAgent('a', [call('rm', {}, 'u1'), say('done')], { tools: [recordingTool('rm')] });
      const gate = interruptGate(() => ({ granted: true }));
      install(agent, { gate });
      await paused(agent);
      expect(gate.records).toEqual([
        expect.objectContaining({ event: 'ask', verdict: 'ask', reason: 'risky', toolName: 'rm', toolUseId: 'u1' }),
      ]);
    });

    it('a pause is observed as ask, with the reason', async () => {
      const seen: ToolDecision[] = [];
      setDecisionObserver({ tool: (d) => void seen.push(d), node: () => undefined });
      try {
        const agent = scriptedAgent('a', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
        install(agent, { gate: interruptGate(() => ({ granted: true })) });
        await paused(agent);
      } finally {
        setDecisionObserver(undefined);
      }
      expect(seen.map((d) => [d.toolName, d.verdict, d.reason])).toEqual([['rm', 'ask', 'risky']]);
    });

    it('a record of the ask that fails refuses the call and stops the run instead of pausing', async () => {
      const agent = scriptedAgent('a', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
      install(agent, {
        gate: interruptGate(() => ({ granted: true }), {
          record: (r) => {
            if (r.event === 'ask') throw new Error('log down');
          },
        }),
      });
      const error = await settle(agent.invoke('go'));
      expect(error).toBeInstanceOf(GateFailedError);
      expect((error as GateFailedError).failure).toContain('could not record the decision: log down');
      expect(ran).toEqual([]);
    });
  });

  describe('when the paused call is resumed', () => {
    const failing: [string, (request: ToolCallRequest, answer: unknown) => unknown, RegExp][] = [
      [
        'throws',
        () => {
          throw new Error('store down');
        },
        /\(the approval check failed: store down\)$/,
      ],
      ['never answers', () => new Promise(() => undefined), /\(the approval check did not answer within 50 ms\)$/],
    ];
    for (const [what, check, failure] of failing) {
      it(`a check that ${what} refuses the resumed call and stops the run`, async () => {
        const agent = scriptedAgent('a', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
        const gate = interruptGate(check);
        install(agent, { gate, timeoutMs: 50 });
        const { id } = await paused(agent);
        const error = await settle(agent.invoke(answerTo(id, 'yes')));
        expect(error).toBeInstanceOf(GateFailedError);
        expect((error as GateFailedError).failure).toMatch(failure);
        expect(ran).toEqual([]);
      });
    }

    it('a paused call its approval path cannot check any more refuses the resumed call and stops the run', async () => {
      const agent = scriptedAgent('a', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
      let broken = false;
      const approval = {
        via: 'interrupt' as const,
        get check(): () => { granted: true } {
          if (broken) throw new Error('the approvals module was unloaded');
          return () => ({ granted: true });
        },
      };
      install(agent, { gate: { ...interruptGate(() => ({ granted: true })), approval } });
      const { id } = await paused(agent);
      broken = true;
      const error = await settle(agent.invoke(answerTo(id, 'yes')));
      expect(error).toBeInstanceOf(GateFailedError);
      expect((error as GateFailedError).failure).toMatch(
        /gate "asks" paused the call of tool "rm" for approval, and its approval path cannot check it any more/,
      );
      expect(ran).toEqual([]);
    });

    it('an answer resumed after the configured gate changed is not given to the new gate', async () => {
      const asked: string[] = [];
      const first = interruptGate(() => ({ granted: true }));
      const second = interruptGate(() => {
        asked.push('second');
        return { granted: true };
      });
      configureGate(first);
      const agent = scriptedAgent('a', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
      install(agent);
      const { id } = await paused(agent);
      configureGate(second);
      await agent.invoke(answerTo(id, 'yes'));
      expect(asked).toEqual([]);
      expect(ran).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(/approval refused \(the approval answer was not requested by this gate/);
    });

    for (const [change, from, to] of [
      ['input', '/tmp/x', '/etc'],
      ['tool', '"name":"rm"', '"name":"ls"'],
    ] as const) {
      it(`an answer resumed from a session snapshot whose ${change} was edited meanwhile is refused`, async () => {
        const checked: unknown[] = [];
        const agent = scriptedAgent('a', [call('rm', { path: '/tmp/x' }), say('done')], {
          tools: [recordingTool('rm'), recordingTool('ls')],
        });
        install(agent, {
          gate: interruptGate(
            (request) => {
              checked.push(request.input);
              return { granted: true };
            },
            { decide: () => ({ verdict: 'ask', reason: 'risky' }) },
          ),
        });
        const { id } = await paused(agent);
        // The same tool use id, now with another input or tool: what the approver saw is not what would run.
        const text = JSON.stringify(agent.takeSnapshot({ preset: 'session' }));
        expect(text).toContain(from);
        agent.loadSnapshot(JSON.parse(text.replaceAll(from, to)) as never);
        await agent.invoke(answerTo(id, 'yes'));
        expect(checked).toEqual([]);
        expect(ran).toEqual([]);
        expect(toolResults(agent)).toEqual([
          expect.stringMatching(/approval refused \(the call resumed is not the call the approval was asked for\)/),
        ]);
      });
    }
  });

  describe('when the pause cannot be stored or raised', () => {
    it('a durable path whose raise never answers refuses the call and stops the run instead of pausing', async () => {
      const agent = scriptedAgent('a', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
      const gate = interruptGate(() => ({ granted: true }));
      (gate.approval as { raise?: () => Promise<void> }).raise = () => new Promise(() => undefined);
      install(agent, { gate, timeoutMs: 50 });
      const error = await settle(agent.invoke('go'));
      expect(error).toBeInstanceOf(GateFailedError);
      expect((error as GateFailedError).failure).toContain(
        'gate "asks" could not store the pending approval: no answer within 50 ms',
      );
      expect(ran).toEqual([]);
    });

    it('an interrupt the SDK cannot raise (a non-interrupt error) refuses the call and stops the run', async () => {
      const agent = scriptedAgent('a', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
      install(agent, { gate: interruptGate(() => ({ granted: true })) });
      // App code breaking the agent's interrupt state: raising throws a plain error, not the SDK's interrupt.
      (
        agent as unknown as { _interruptState: { getOrCreateInterrupt: () => never } }
      )._interruptState.getOrCreateInterrupt = () => {
        throw new Error('interrupts broken');
      };
      const error = await settle(agent.invoke('go'));
      expect(error).toBeInstanceOf(GateFailedError);
      expect((error as GateFailedError).failure).toContain('interrupts broken');
      expect(ran).toEqual([]);
    });
  });
});
