/**
 * The decision (`src/enforce/decision.ts`) line by line: the exact refusal each garbage answer gets, what each
 * decision records, and the re-checks made after every `await` (the run stopped, the call changed). Each test
 * fails when the line it names is changed. run-state.ts's survivors are in `run-state.test.ts`.
 *
 * Surviving mutants of decision.ts (CONTRIBUTING.md, "Mutation testing"), each equivalent or not reachable:
 * - `rule === undefined ? {} : { rule }` (the verdict and `conclude`) and `reason === undefined ? {} : { reason }`
 *   (→ the key always set): every reader reads `rule` and `reason` by `!== undefined`.
 * - `placeOf`'s `paths[0] !== undefined` (→ `true`): it is only read when `paths.length === 1`.
 * - `drift`'s `call.snapshot !== undefined` (→ `true`) and its catch emptied: the snapshot is always taken before
 *   `drift` runs (a call whose input cannot be copied fails before), and unassigned `same` reads as false.
 * - `call.gate!.record === undefined` (→ `false`): the checked path checks the unchanged call again, sealing it
 *   the same way.
 * - `stopped === undefined ? drift(call) : undefined` (→ `drift(call)`): a stopped run is refused before
 *   `changed` is read.
 * - `drift`'s tool name, tool use id and selected tool checks and their texts: not reachable, the decision hook
 *   runs first and is awaited before any other hook, and `toolUse` is the SDK's own copy (only `input` is shared).
 * - the catch around `lockSdkTool` (no coverage): not reachable, the lock skips Proxies and accessors, and making
 *   a data field read-only never throws on an ordinary object; it keeps a throw from leaving the hook.
 */
import { type Agent, BeforeToolCallEvent, BeforeToolsEvent } from '@strands-agents/sdk';
import { Graph } from '@strands-agents/sdk/multiagent';
import { afterEach, describe, expect, it } from 'vitest';
import { setDecisionObserver } from '../../src/enforce/observe.js';
import {
  allowAll,
  configureGate,
  type Gate,
  GateFailedError,
  type GateRecord,
  install,
  installMultiagent,
} from '../../src/index.js';
import { agentGateMark } from '../../src/walker/marks.js';
import {
  agentHookRegistry,
  liveCallbackArray,
  liveMiddlewareArray,
} from '../../src/frameworks/strands/sdk-internals.js';
import {
  call,
  isolateEachTest,
  observedDecisions,
  ran,
  recordingTool,
  runOrchestrator,
  say,
  scriptedAgent,
  toolResults,
} from '../helpers/sdk.js';
import { settleRun } from '../helpers/runs.js';

isolateEachTest();

type Scripted = ReturnType<typeof scriptedAgent>;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Holds the tool use blocks of the assistant message, as code observing `BeforeToolsEvent` can. */
function holdBlocks(agent: Agent): { name: string; toolUseId: string; input: Record<string, unknown> }[] {
  const held: { name: string; toolUseId: string; input: Record<string, unknown> }[] = [];
  agent.addHook(BeforeToolsEvent, (event) => {
    for (const block of event.message.content) if (block.type === 'toolUseBlock') held.push(block as never);
  });
  return held;
}

describe('decideCall', () => {
  describe('when the gate answers something that is not a decision', () => {
    const getterThrows = Object.defineProperty({}, 'verdict', {
      get() {
        throw new Error('boom');
      },
    });
    const cases: [string, unknown, string][] = [
      ['null', null, 'decision is null, not an object'],
      [
        'a long string (quoted, cut at 40 characters)',
        'x'.repeat(50),
        `decision is "${'x'.repeat(40)}", not an object`,
      ],
      ['a number', 7, 'decision is number, not an object'],
      ['an object whose getter throws', getterThrows, 'reading the decision threw: boom'],
      ['a deny without a reason', { verdict: 'deny' }, 'a deny decision has no reason'],
      ['an ask whose reason is blank', { verdict: 'ask', reason: '   ' }, 'an ask decision has no reason'],
      ['a deny whose reason is not a string', { verdict: 'deny', reason: 5 }, 'a deny decision has no reason'],
      ['an allow whose rule is not a string', { verdict: 'allow', rule: 5 }, 'decision rule is number'],
      ['an unknown verdict', { verdict: 'maybe' }, 'decision verdict is "maybe"'],
    ];
    for (const [what, answer, error] of cases) {
      it(`${what}: refused with exactly "${error}", nothing runs, the run stops`, async () => {
        const agent = scriptedAgent('a', [call('ls'), say('done')], { tools: [recordingTool('ls')] });
        install(agent, { gate: { name: 'g', decide: () => answer as never } });
        expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
        expect(ran).toEqual([]);
        expect(toolResults(agent)).toEqual([`error:[gate] ERROR: gate "g" answered garbage: ${error}; the run stops`]);
      });
    }
  });

  /** A gate deciding with `decide`, keeping its records. */
  function recordingGate(
    decide: Gate['decide'],
    record: (r: GateRecord) => void | Promise<void> = () => undefined,
  ): Gate & { records: GateRecord[] } {
    const records: GateRecord[] = [];
    return {
      name: 'g',
      records,
      decide,
      record: (r) => {
        records.push(r);
        return record(r);
      },
    };
  }

  /** A record without the fields that vary between runs. */
  function stable(record: GateRecord | undefined): Record<string, unknown> {
    const rest: Record<string, unknown> = { ...record };
    delete rest.durationMs;
    delete rest.gateId;
    return rest;
  }

  describe('when the gate decides: what it is given and what each decision records', () => {
    it('an allow with a rule: event and verdict allow, the rule, no reason', async () => {
      const agent = scriptedAgent('a', [call('ls', { path: '/t' }, 'u1'), say('done')], {
        tools: [recordingTool('ls')],
      });
      const gate = recordingGate(() => ({ verdict: 'allow', rule: 'ls-ok' }));
      install(agent, { gate });
      await agent.invoke('go');
      expect(ran).toEqual(['ls({"path":"/t"})@a']);
      expect(gate.records.map(stable)).toStrictEqual([
        {
          event: 'allow',
          rule: 'ls-ok',
          verdict: 'allow',
          toolName: 'ls',
          toolUseId: 'u1',
          agentId: 'a',
          path: [],
          paths: [],
          input: { path: '/t' },
        },
      ]);
    });

    it('an allow without a rule records no rule key at all', async () => {
      const agent = scriptedAgent('a', [call('ls'), say('done')], { tools: [recordingTool('ls')] });
      const gate = recordingGate(() => ({ verdict: 'allow' }));
      install(agent, { gate });
      await agent.invoke('go');
      expect(Object.keys(gate.records[0] ?? {})).not.toContain('rule');
      expect(Object.keys(gate.records[0] ?? {})).not.toContain('reason');
    });

    it('a deny records event deny, its reason and rule, and refuses with both', async () => {
      const agent = scriptedAgent('a', [call('rm', {}, 'u1'), say('done')], { tools: [recordingTool('rm')] });
      const gate = recordingGate(() => ({ verdict: 'deny', reason: 'no rm', rule: 'r1' }));
      install(agent, { gate });
      await agent.invoke('go');
      expect(ran).toEqual([]);
      expect(stable(gate.records[0])).toMatchObject({ event: 'deny', verdict: 'deny', reason: 'no rm', rule: 'r1' });
      expect(toolResults(agent)).toEqual(['error:[gate] BLOCKED: no rm | tool=<rm>, agent=<a>, rule=<r1>']);
    });

    it('a granted approval records approval-granted with the ask reason', async () => {
      const asked: unknown[] = [];
      const agent = scriptedAgent('a', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
      const gate: Gate & { records: GateRecord[] } = {
        ...recordingGate(() => ({ verdict: 'ask', reason: 'risky', rule: 'r2' })),
        approval: {
          via: 'callback',
          ask: (_request, decision) => {
            asked.push(decision);
            return { granted: true };
          },
        },
      };
      install(agent, { gate });
      await agent.invoke('go');
      expect(ran).toEqual(['rm({})@a']);
      expect(asked).toEqual([{ verdict: 'ask', reason: 'risky', rule: 'r2' }]);
      expect(stable(gate.records[0])).toMatchObject({
        event: 'approval-granted',
        verdict: 'allow',
        reason: 'risky',
        rule: 'r2',
      });
    });

    it('a deny whose record fails stops the run', async () => {
      const agent = scriptedAgent('a', [call('rm'), call('rm'), say('done')], { tools: [recordingTool('rm')] });
      const gate = recordingGate(
        () => ({ verdict: 'deny', reason: 'no' }),
        () => {
          throw new Error('disk full');
        },
      );
      install(agent, { gate });
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      expect(agent.model.calls).toBe(1);
    });

    it('gives the gate the agent and the run state as its context', async () => {
      const agent = scriptedAgent('a', [call('ls'), say('done')], { tools: [recordingTool('ls')] });
      const seen: unknown[] = [];
      install(agent, {
        gate: {
          name: 'g',
          decide: (_r, context) => {
            seen.push(context?.agent, typeof context?.invocationState);
            return { verdict: 'allow' };
          },
        },
      });
      await agent.invoke('go');
      expect(seen).toEqual([agent, 'object']);
    });
  });

  describe('when the run was stopped by a gate failure', () => {
    it('refuses later calls without asking the gate again', async () => {
      const agent = scriptedAgent(
        'a',
        [
          {
            tools: [
              { name: 'ls', input: {} },
              { name: 'ls', input: {} },
            ],
          },
          say('x'),
        ],
        {
          tools: [recordingTool('ls')],
        },
      );
      let asked = 0;
      install(agent, {
        gate: {
          name: 'g',
          decide: () => {
            asked += 1;
            if (asked === 1) throw new Error('boom');
            return { verdict: 'allow' };
          },
        },
      });
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      expect(asked).toBe(1);
      expect(toolResults(agent)[1]).toBe(
        'error:[gate] ERROR: the gate failed earlier in this run (gate "g" threw: boom); the run was stopped',
      );
    });

    /** A graph whose two entry nodes run at once and share the run: `slow` calls ls, `crash` calls rm. */
    function siblings(): Graph {
      const slow = scriptedAgent('slow', [call('ls', {}, 'slow-ls'), say('done')], { tools: [recordingTool('ls')] });
      const crash = scriptedAgent('crash', [call('rm', {}, 'crash-rm'), say('done')], { tools: [recordingTool('rm')] });
      return new Graph({ id: 'g', nodes: [slow, crash], edges: [] });
    }

    it('while the gate decided: the allowed call is refused and recorded as a deny, never as an allow', async () => {
      const graph = siblings();
      const gate = recordingGate(async (r) => {
        if (r.toolName === 'rm') throw new Error('boom');
        await sleep(30);
        return { verdict: 'allow' };
      });
      installMultiagent(graph, { gate });
      await runOrchestrator(graph).catch(() => undefined);
      expect(ran).toEqual([]);
      expect(gate.records.filter((r) => r.toolUseId === 'slow-ls').map((r) => [r.event, r.reason])).toEqual([
        ['deny', 'the gate failed earlier in this run (gate "g" threw: boom)'],
      ]);
    });

    it('while the allow was recorded: refused with the stop, not run', async () => {
      const seen = observedDecisions();
      const graph = siblings();
      const gate = recordingGate(
        async (r) => {
          if (r.toolName === 'rm') {
            await sleep(5);
            throw new Error('boom');
          }
          return { verdict: 'allow' };
        },
        (r) => (r.event === 'allow' ? sleep(40) : undefined),
      );
      installMultiagent(graph, { gate });
      await runOrchestrator(graph).catch(() => undefined);
      expect(ran).toEqual([]);
      expect(gate.records.filter((r) => r.toolUseId === 'slow-ls').map((r) => [r.event, r.reason])).toEqual([
        ['allow', undefined],
        ['deny', 'the gate failed earlier in this run (gate "g" threw: boom)'],
      ]);
      // Observed once, as the error that stopped it (the allow was never applied).
      expect(seen.filter((d) => d.toolName === 'ls').map((d) => [d.verdict, d.reason])).toEqual([
        ['error', 'the gate failed earlier in this run (gate "g" threw: boom)'],
      ]);
    });
  });

  describe('when the call changes while it is decided', () => {
    const changes: [
      string,
      (block: { name: string; toolUseId: string; input: Record<string, unknown> }) => void,
      string,
    ][] = [['its input', (b) => void (b.input.path = '/etc'), 'the input changed']];
    for (const [what, change, why] of changes) {
      it(`${what}, while the gate decided: refused as tampering ("${why}")`, async () => {
        const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), say('done')], {
          tools: [recordingTool('ls'), recordingTool('rm')],
        });
        const held = holdBlocks(agent);
        const gate = recordingGate(async () => {
          await sleep(1);
          change(held[0]!);
          return { verdict: 'allow' };
        });
        install(agent, { gate });
        expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
        expect(ran).toEqual([]);
        expect(gate.records.map((r) => [r.event, r.reason])).toEqual([
          ['tampering', `tool call "ls" changed while the gate decided: ${why}`],
        ]);
      });
    }

    // The synchronous path (no promise between reading the call and sealing it) still compares after the gate
    // ran: the gate's own code is the one thing that runs in between.
    const atOnce: [string, (input: Record<string, unknown>) => void][] = [
      ['its input, changed', (input) => void (input.path = '/etc')],
      ['its input, made uncopyable (cyclic)', (input) => void (input.self = input)],
    ];
    for (const [what, change] of atOnce) {
      it(`${what} by a gate that decides at once and takes no records: refused as "the input changed"`, async () => {
        const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), say('done')], {
          tools: [recordingTool('ls')],
        });
        const held = holdBlocks(agent);
        install(agent, {
          gate: {
            name: 'g',
            decide: () => {
              change(held[0]!.input);
              return { verdict: 'allow' };
            },
          },
        });
        expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
        expect(ran).toEqual([]);
        expect(toolResults(agent)).toEqual([
          'error:[gate] ERROR: tool call "ls" changed while the gate decided: the input changed; the run stops',
        ]);
      });
    }

    it('its input, while an approval was asked, with a gate that takes no records: refused as tampering', async () => {
      // An allowance after a wait is checked again even when there is no record to write.
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), say('done')], { tools: [recordingTool('ls')] });
      const held = holdBlocks(agent);
      install(agent, {
        gate: {
          name: 'g',
          decide: () => ({ verdict: 'ask', reason: 'check it' }),
          approval: {
            via: 'callback',
            ask: async () => {
              await sleep(1);
              held[0]!.input.path = '/etc';
              return { granted: true };
            },
          },
        },
      });
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(toolResults(agent)).toEqual([
        'error:[gate] ERROR: tool call "ls" changed while its decision was recorded: the input changed; the run stops',
      ]);
    });

    it('the same input with its keys in another order is no change: the call runs', async () => {
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp', depth: 1 }), say('done')], {
        tools: [recordingTool('ls')],
      });
      const held = holdBlocks(agent);
      install(agent, {
        gate: {
          name: 'g',
          decide: () => {
            const { path, depth } = held[0]!.input;
            held[0]!.input = { depth, path };
            return { verdict: 'allow' };
          },
        },
      });
      expect(await settleRun(agent)).toBeUndefined();
      // The tool runs with the judged copy, keys as judged.
      expect(ran).toEqual(['ls({"path":"/tmp","depth":1})@a']);
    });

    it('its input, while the allow was recorded: refused as tampering', async () => {
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), say('done')], { tools: [recordingTool('ls')] });
      const held = holdBlocks(agent);
      const gate = recordingGate(
        () => ({ verdict: 'allow' }),
        async (r) => {
          if (r.event !== 'allow') return;
          await sleep(1);
          held[0]!.input.path = '/etc';
        },
      );
      install(agent, { gate });
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(gate.records.map((r) => [r.event, r.reason])).toEqual([
        ['allow', undefined],
        ['tampering', 'tool call "ls" changed while its decision was recorded: the input changed'],
      ]);
    });
  });

  describe('when the execution check was removed from the agent', () => {
    it('an allowed call is refused as tampering, with the reason', async () => {
      const agent = scriptedAgent('a', [call('ls'), say('done')], { tools: [recordingTool('ls')] });
      const gate = recordingGate(() => ({ verdict: 'allow' }));
      install(agent, { gate });
      const middleware = liveMiddlewareArray(agent) ?? [];
      const index = middleware.findIndex(
        (m) => (m as { handler?: unknown }).handler === agentGateMark(agent)?.executionCheck,
      );
      expect(index).toBeGreaterThanOrEqual(0);
      middleware.splice(index, 1);
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(gate.records.map((r) => [r.event, r.reason])).toEqual([
        ['tampering', "the gate's execution check was removed from this agent"],
      ]);
    });
  });

  describe('when one invocationState is passed to several runs', () => {
    it('a run that reuses the state object of a stopped run is stopped too (a stop is never lifted)', async () => {
      const agent = scriptedAgent('a', [call('ls'), call('ls'), say('two')], { tools: [recordingTool('ls')] });
      let crash = true;
      install(agent, {
        gate: {
          name: 'flaky',
          decide: () => {
            if (crash) throw new Error('x');
            return { verdict: 'allow' };
          },
        },
      });
      const invocationState = {};
      await expect(agent.invoke('first', { invocationState })).rejects.toBeInstanceOf(GateFailedError);
      crash = false;
      await expect(agent.invoke('second', { invocationState })).rejects.toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      // A fresh state object is a new run.
      await agent.invoke('third', { invocationState: {} });
      expect(ran).toEqual(['ls({})@a']);
    });
  });

  describe('when the same tree is installed twice', () => {
    it('one place does not look like two (run-state addPlaces)', async () => {
      const worker = scriptedAgent('w', [call('ls'), say('done')], { tools: [recordingTool('ls')] });
      const graph = new Graph({ id: 'g', nodes: [worker], edges: [] });
      const seen: (readonly string[])[] = [];
      const gate: Gate = {
        name: 'g',
        decide: (r) => {
          seen.push(r.path);
          return { verdict: 'allow' };
        },
      };
      installMultiagent(graph, { gate });
      installMultiagent(graph, { gate });
      await runOrchestrator(graph);
      expect(ran).toEqual(['ls({})@w']);
      expect(seen).toEqual([['g', 'w']]);
    });
  });

  describe('when a call is refused before the gate is asked', () => {
    describe('what the observer is told', () => {
      afterEach(() => setDecisionObserver(undefined));

      it('a later call of a stopped run: an error, with the failure as its reason', async () => {
        const seen = observedDecisions();
        const agent = scriptedAgent(
          'a',
          [
            {
              tools: [
                { name: 'rm', input: {} },
                { name: 'ls', input: {} },
              ],
            },
            say('x'),
          ],
          {
            tools: [recordingTool('rm'), recordingTool('ls')],
          },
        );
        install(agent, {
          gate: {
            name: 'g',
            decide: (r) => {
              if (r.toolName === 'rm') throw new Error('boom');
              return { verdict: 'allow' };
            },
          },
        });
        expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
        expect(ran).toEqual([]);
        expect(seen.map((d) => [d.toolName, d.verdict, d.reason])).toEqual([
          ['rm', 'error', 'gate "g" threw: boom'],
          ['ls', 'error', 'the gate failed earlier in this run (gate "g" threw: boom)'],
        ]);
      });

      it('an agent used as a tool that carries no gate: a deny, with why', async () => {
        const seen = observedDecisions();
        const helper = scriptedAgent('helper', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
        const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')], {
          tools: [helper.asTool()],
        });
        install(lead, { gate: { name: 'g', decide: () => ({ verdict: 'allow' }) } });
        await settleRun(lead);
        expect(ran).toEqual([]);
        expect(seen).toHaveLength(1);
        expect(seen[0]).toMatchObject({
          toolName: 'helper',
          verdict: 'deny',
        });
        expect(seen[0]?.reason).toMatch(/^tool "helper" /);
      });
    });

    describe('with no gate to record it', () => {
      it('an ungated agent-as-tool after configureGate(undefined): refused, nothing recorded, the run goes on', async () => {
        configureGate(allowAll());
        const helper = scriptedAgent('helper', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
        const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')], {
          tools: [helper.asTool()],
        });
        install(lead);
        configureGate(undefined);
        // A deny is not a failure: the model gets the refusal and goes on (the next call would find no gate and stop).
        await expect(lead.invoke('go')).resolves.toBeDefined();
        expect(ran).toEqual([]);
        expect(toolResults(lead)).toEqual([expect.stringMatching(/^error:\[gate\] BLOCKED: tool "helper" /)]);
      });
    });

    describe('because it is an agent used as a tool that cannot be trusted', () => {
      it('is refused with the reason it cannot be read, before the gate is asked', async () => {
        const helper = scriptedAgent('helper', [call('rm'), say('done')], { tools: [recordingTool('rm')] });
        const tool = helper.asTool();
        const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')], { tools: [tool] });
        const asked: string[] = [];
        const gate = recordingGate((r) => {
          asked.push(r.toolName);
          return { verdict: 'allow' };
        });
        install(helper, { gate });
        install(lead, { gate });
        Object.defineProperty(tool, 'stream', { value: tool.stream.bind(tool), configurable: true, writable: true });
        await settleRun(lead);
        expect(ran).toEqual([]);
        expect(asked).toEqual([]);
        expect(gate.records.map((r) => r.event)).toEqual(['deny']);
        expect(toolResults(lead)).toEqual([
          'error:[gate] BLOCKED: tool "helper" is an AgentAsTool whose "stream" was replaced on the instance',
        ]);
      });
    });
  });

  /**
   * A delegate agent-as-tool (`asTool({ delegate: true })`) re-yields the inner agent's `BeforeToolCallEvent` to the
   * outer agent's hooks after the inner agent's own: the outer gate refuses it for a stopped run or an inner agent
   * that is not intact, and leaves a refusal of the inner gate as it is.
   */
  describe("when a delegate's inner call is seen by the outer agent's gate", () => {
    /** Removes `agent`'s decision hook when `when` says so (from a hook of its own, after its decision). */
    function removeDecisionHook(agent: Agent): void {
      const hooks = liveCallbackArray(agentHookRegistry(agent), BeforeToolCallEvent) ?? [];
      const index = hooks.findIndex(
        (h) => (h as { callback?: unknown }).callback === agentGateMark(agent)?.decisionHook,
      );
      expect(index).toBeGreaterThanOrEqual(0);
      hooks.splice(index, 1);
    }

    function delegation(helperTurn: Parameters<typeof scriptedAgent>[1][number]): { helper: Scripted; lead: Scripted } {
      const helper = scriptedAgent('helper', [helperTurn, say('-')], {
        tools: [recordingTool('rm'), recordingTool('ls')],
      });
      const lead = scriptedAgent('lead', [call('helper', { input: 'x' }), say('done')], {
        tools: [helper.asTool({ delegate: true })],
      });
      return { helper, lead };
    }

    it('a refusal of the inner gate keeps its own text: no bypass is recorded for it', async () => {
      const { helper, lead } = delegation({
        tools: [
          { name: 'rm', input: {}, id: 'h1' },
          { name: 'ls', input: {}, id: 'h2' },
        ],
      });
      const gate = recordingGate((r) => {
        if (r.toolName === 'rm') throw new Error('boom');
        return { verdict: 'allow' };
      });
      install(helper, { gate });
      install(lead, { gate });
      expect(await settleRun(lead)).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(toolResults(helper)).toEqual([
        'error:[gate] ERROR: gate "g" threw: boom; the run stops',
        'error:[gate] ERROR: the gate failed earlier in this run (gate "g" threw: boom); the run was stopped',
      ]);
      expect(gate.records.filter((r) => r.event === 'tampering')).toEqual([]);
    });

    it('an allowed inner call runs, neither gate cancelling it', async () => {
      const { helper, lead } = delegation(call('ls', {}, 'h1'));
      install(helper, { gate: recordingGate(() => ({ verdict: 'allow' })) });
      install(lead, { gate: recordingGate(() => ({ verdict: 'allow' })) });
      await lead.invoke('go');
      expect(ran).toEqual(['ls({})@helper']);
    });

    it("an inner agent whose execution check is gone: its own gate fails the call, and the outer gate leaves that refusal's text", async () => {
      const { helper, lead } = delegation(call('ls', {}, 'h1'));
      const inner = recordingGate(() => ({ verdict: 'allow' }));
      install(helper, { gate: inner });
      install(lead, { gate: recordingGate(() => ({ verdict: 'allow' })) });
      // After install: the inner agent is then not intact, and its decision finds its execution check missing.
      helper.addHook(BeforeToolsEvent, () => {
        const list = liveMiddlewareArray(helper) ?? [];
        const at = list.findIndex(
          (m) => (m as { handler?: unknown }).handler === agentGateMark(helper)?.executionCheck,
        );
        list.splice(at, 1);
      });
      expect(await settleRun(lead)).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(toolResults(helper)).toEqual([
        "error:[gate] ERROR: the gate's execution check was removed from this agent; the run stops",
      ]);
      expect(inner.records.map((r) => r.event)).toEqual(['tampering']);
    });

    it('an inner agent whose decision hook is gone: the outer gate refuses its call, which the inner audit then reports', async () => {
      const { helper, lead } = delegation(call('rm', {}, 'h1'));
      const inner = recordingGate(() => ({ verdict: 'allow' }));
      install(helper, { gate: inner });
      install(lead, { gate: recordingGate(() => ({ verdict: 'allow' })) });
      helper.addHook(BeforeToolsEvent, () => removeDecisionHook(helper));
      expect(await settleRun(lead)).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      // Refused by the outer gate, the SDK answers the call with the outer refusal, which the inner audit (with no
      // decision of its own) withholds; without it, the inner execution check would refuse it instead.
      expect(inner.records.filter((r) => r.event === 'tampering').map((r) => r.reason)).toEqual([
        '[gate] ERROR: tool call "rm" was answered without a gate decision; its result is withheld and the run stops',
      ]);
    });
  });
});
