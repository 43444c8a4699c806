/**
 * The execution check and the after-call audit (`src/enforce/execution-check.ts`) and the records every step makes
 * (`src/enforce/call.ts`), line by line: the exact refusal and tampering record for each way a call can differ
 * from its seal, a middleware that answers a refused call with something that only resembles the refusal, and
 * records that fail or never settle. Each test fails when the line it names is changed.
 *
 * Surviving mutants of execution-check.ts (CONTRIBUTING.md, "Mutation testing"), each equivalent or not reachable:
 * - `event.agent !== state.agent` in `noteCancel`/`keepWithheld` (→ `false`): an inner agent's re-yielded call id
 *   matches only the delegate call itself, already checked, and a withheld result lives within one event's hooks.
 * - the composed-chain check's `||` (→ `&&`): the SDK's links are plain arrows, neither async nor generators.
 * - `sealed.toolShape === undefined ? isLockedSdkTool(…)` (→ `true`): a seal without a shape is of a locked tool.
 * - `callee === undefined`, `callee.kind === 'opaque'` and their texts: an allowed seal holds a read, not opaque.
 * - `sealed.input !== undefined` (→ `true`): `sameInput` of a missing snapshot throws, caught as "changed".
 * - `done = true` in `calledAtEachStep` (→ `false`): `return()` on a finished generator does nothing.
 * - `next(sent)` (→ `next()`): the SDK's tool runs take no sent value.
 * - `this._finished = true` in the catch of a check that threw: the SDK never steps a rejected run again.
 * - `problem !== undefined || sealed === undefined` (→ `problem !== undefined`) and its fallback text: `mismatch`
 *   names a problem whenever the seal is missing.
 * - `callee?.kind === 'agent-tool' && sealed.paths.length > 0` (six mutants): with no known place the callee's
 *   decision falls back to its own places, as without a store, and only the callee's decision reads the store.
 * - `auditResult`'s `!sealed.allowed` branch and its text: a refused call's cancel is held, so the SDK answers it
 *   itself and no middleware runs; were it answered otherwise, the next branch withholds it all the same.
 * - `if (sealed !== undefined) stopRun(sealed.invocation, …)` in `auditResult`: the event's run is stopped on the
 *   next line, and a seal of another run was refused at the check already.
 *
 * Surviving mutants of call.ts, each equivalent (one more in `call.test.ts`):
 * - `seal(state, call, false, …)` in `refuse` and `fail` (→ `true`): the held cancel refuses the call before the
 *   seal is read, and `fail` stops the run first.
 * - `agentIdOf` (each branch): an SDK `Agent`'s `id` is always an own data property holding a string.
 * - `viewOf`'s `gate === undefined` (→ `false`): `viewGate(undefined)` answers an error, so undefined too.
 * - `otherRun`'s `invocationState === run` (→ `false`): joining a run to itself changes nothing.
 *
 * (`clearTimeout(timer)`, listed here once, moved to settle.ts and is killed there: `test/enforce/settle.test.ts`.)
 */
import {
  type Agent,
  AfterToolCallEvent,
  BeforeToolCallEvent,
  ExecuteToolStage,
  HookOrder,
  type MiddlewareHandlerOf,
  JsonBlock,
  TextBlock,
  Tool,
  type ToolContext,
  ToolResultBlock,
  type ToolStreamGenerator,
  tool,
} from '@strands-agents/sdk';
import { Graph } from '@strands-agents/sdk/multiagent';
import { z } from 'zod';
import { describe, expect, it, vi } from 'vitest';
import { allowAll, type Gate, GateFailedError, type GateRecord, install, installMultiagent } from '../../src/index.js';
import { agentGateMark } from '../../src/walker/marks.js';
import {
  agentHookRegistry,
  liveCallbackArray,
  liveMiddlewareArray,
} from '../../src/frameworks/strands/sdk-internals.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';
import { settleRun } from '../helpers/runs.js';
import { deferred } from '../helpers/deferred.js';

isolateEachTest();

type Scripted = ReturnType<typeof scriptedAgent>;

/** Allows ls outside /etc, denies everything else; keeps every record. */
function lsGate(record?: (r: GateRecord) => void | Promise<void>): Gate & { records: GateRecord[] } {
  const records: GateRecord[] = [];
  return {
    name: 'ls-only',
    records,
    decide: (r) =>
      r.toolName === 'ls' && (r.input as { path?: string }).path !== '/etc'
        ? { verdict: 'allow' }
        : { verdict: 'deny', reason: 'only ls' },
    record: (r) => {
      records.push(r);
      return record?.(r);
    },
  };
}

function agentWithTools(first = call('ls', { path: '/tmp' }, 'u1')): Scripted {
  return scriptedAgent('a', [first, say('done')], { tools: [recordingTool('ls'), recordingTool('rm')] });
}

describe('execution check (createExecutionCheck, auditResult)', () => {
  describe('when the tool object is sealed with the call (its prototype and own fields)', () => {
    const changed = 'the tool object was changed after the decision (its prototype or own fields)';

    /** Runs `ls` under `lsGate` with `tamper` applied to the `ls` tool object by a later hook. */
    async function runTampered(tamper: (tool: object) => void, prepare?: (tool: object) => void): Promise<unknown> {
      const agent = agentWithTools();
      const ls = agent.toolRegistry.get('ls')!;
      prepare?.(ls);
      install(agent, { gate: lsGate() });
      agent.addHook(BeforeToolCallEvent, () => tamper(ls), { order: HookOrder.SDK_LAST });
      return settleRun(agent);
    }

    /** A tool class of an app's own: its fields stay writable, so the execution check compares them. */
    class PathTool extends Tool {
      name = 'ls';
      description = 'lists a path';
      toolSpec = { name: 'ls', description: 'lists a path', inputSchema: { type: 'object' as const } };
      target = 'ls';
      // eslint-disable-next-line require-yield, @typescript-eslint/require-await -- answers at once
      async *stream(context: ToolContext): ToolStreamGenerator {
        ran.push(`${this.target}(${JSON.stringify(context.toolUse.input)})`);
        return new ToolResultBlock({ toolUseId: context.toolUse.toolUseId, status: 'success', content: [] });
      }
    }

    /** Runs `ls` (a PathTool) under `lsGate` with `tamper` applied to it by a later hook or an outer middleware. */
    async function runOwnTool(tamper: (agent: Agent, tool: PathTool) => void): Promise<unknown> {
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }, 'u1'), say('done')]);
      const ls = new PathTool();
      agent.toolRegistry.add(ls);
      install(agent, { gate: lsGate() });
      tamper(agent, ls);
      return settleRun(agent);
    }

    it('a field of a tool class of your own changed after the decision: refused', async () => {
      const error = await runOwnTool((agent, ls) =>
        agent.addHook(BeforeToolCallEvent, () => void (ls.target = 'rm'), { order: HookOrder.SDK_LAST }),
      );
      expect((error as Error).message).toContain(changed);
      expect(ran).toEqual([]);
    });

    it("an own member of such a tool deleted after the decision (the prototype's runs instead): refused", async () => {
      const error = await runOwnTool((agent, ls) => {
        Object.defineProperty(ls, 'stream', { value: ls.stream.bind(ls), writable: true, configurable: true });
        agent.addHook(BeforeToolCallEvent, () => void delete (ls as { stream?: unknown }).stream, {
          order: HookOrder.SDK_LAST,
        });
      });
      expect((error as Error).message).toContain(changed);
      expect(ran).toEqual([]);
    });

    it('an outer middleware that shadows its stream on the instance: refused', async () => {
      const error = await runOwnTool((agent) =>
        agent.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
          const tool = ctx.tool as unknown as { stream: (c: unknown) => unknown };
          const own = tool.stream.bind(tool);
          tool.stream = (c: unknown) => own({ ...(c as object), toolUse: { toolUseId: 'u1', name: 'ls', input: {} } });
          return yield* next(ctx);
        }),
      );
      expect((error as Error).message).toContain(changed);
      expect(ran).toEqual([]);
    });

    it("a tool of the SDK's classes is read-only after its first decision: a swap of its schema throws, nothing runs", async () => {
      const error = await runTampered((tool) => {
        (tool as { _inputSchema: unknown })._inputSchema = z.any().transform(() => ({ path: '/etc' }));
      });
      expect((error as Error).message).toMatch(/Cannot assign to read only property '_inputSchema'/);
      expect(ran).toEqual([]);
    });

    it('nor can it take a new own member (a stream of its own): it throws, nothing runs', async () => {
      const error = await runTampered((tool) => {
        (tool as { stream: unknown }).stream = () => undefined;
      });
      expect((error as Error).message).toMatch(/object is not extensible/);
      expect(ran).toEqual([]);
    });

    it('the FunctionTool a ZodTool wraps is read-only too: a swap of its callback throws, nothing runs', async () => {
      const error = await runTampered((tool) => {
        const inner = (tool as { _functionTool: { _callback: unknown } })._functionTool;
        inner._callback = () => 'swapped';
      });
      expect((error as Error).message).toMatch(/Cannot assign to read only property '_callback'/);
      expect(ran).toEqual([]);
    });

    it('its prototype swapped after the decision: refused (an SDK tool cannot even take the swap)', async () => {
      const swap = (tool: object): void => {
        Object.setPrototypeOf(tool, Object.create(Object.getPrototypeOf(tool) as object) as object);
      };
      const error = await runOwnTool((agent, ls) =>
        agent.addHook(BeforeToolCallEvent, () => swap(ls), { order: HookOrder.SDK_LAST }),
      );
      expect((error as Error).message).toContain(changed);
      expect(ran).toEqual([]);
      expect(((await runTampered(swap)) as Error).message).toMatch(/not extensible/);
      expect(ran).toEqual([]);
    });

    it('a getter among its own fields: refused at the decision, the gate is not asked', async () => {
      const agent = agentWithTools();
      const ls = agent.toolRegistry.get('ls')!;
      const schema = (ls as unknown as { _inputSchema: unknown })._inputSchema;
      Object.defineProperty(ls, '_inputSchema', { get: () => schema, configurable: true });
      const gate = lsGate();
      install(agent, { gate });
      const error = await settleRun(agent);
      expect(error).toBeInstanceOf(GateFailedError);
      expect((error as Error).message).toContain('tool "ls" is a Proxy or has a getter among its own fields');
      expect(ran).toEqual([]);
    });

    it('an agent-as-tool called twice at once: its own busy flag is no change to the tool', async () => {
      const helper = scriptedAgent('helper', [say('done')]);
      install(helper, { gate: allowAll() });
      const lead = scriptedAgent(
        'lead',
        [
          {
            tools: [
              { name: 'helper', input: { input: 'one' }, id: 'h1' },
              { name: 'helper', input: { input: 'two' }, id: 'h2' },
            ],
          },
          say('done'),
        ],
        { tools: [helper.asTool()], toolExecutor: 'concurrent' },
      );
      install(lead, { gate: allowAll() });
      // The second call is decided while the first runs (the tool busy) and checked after it ended (not busy).
      const { promise: firstDone, resolve: done } = deferred();
      lead.addHook(AfterToolCallEvent, (e) => {
        if (e.toolUse.toolUseId === 'h1') done();
      });
      lead.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
        if (ctx.toolUse.toolUseId === 'h2') await firstDone;
        return yield* next(ctx);
      });
      expect(await settleRun(lead)).toBeUndefined();
      expect(toolResults(lead)).toEqual(['success:done', 'success:done']);
    });

    it("a getter on an agent-as-tool's _busy (the one field the SDK writes while it runs): refused at the decision", async () => {
      const helper = scriptedAgent('helper', [say('done')]);
      install(helper, { gate: allowAll() });
      const asTool = helper.asTool();
      let busy = false;
      Object.defineProperty(asTool, '_busy', {
        get: () => busy,
        set: (value: boolean) => void (busy = value),
        configurable: true,
        enumerable: true,
      });
      const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')], { tools: [asTool] });
      install(lead, { gate: allowAll() });
      const error = await settleRun(lead);
      expect(error).toBeInstanceOf(GateFailedError);
      expect((error as Error).message).toContain('tool "helper" is a Proxy or has a getter among its own fields');
    });

    it("an agent-as-tool's _busy, the one field the SDK writes while it runs, is locked against redefinition once decided", async () => {
      const helper = scriptedAgent('helper', [say('done')]);
      install(helper, { gate: allowAll() });
      const asTool = helper.asTool();
      const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')], { tools: [asTool] });
      install(lead, { gate: allowAll() });
      expect(Object.getOwnPropertyDescriptor(asTool, '_busy')?.configurable).toBe(true);
      expect(await settleRun(lead)).toBeUndefined();
      const busy = Object.getOwnPropertyDescriptor(asTool, '_busy');
      expect(busy).toMatchObject({ configurable: false, writable: true });
      expect(() => Object.defineProperty(asTool, '_busy', { get: () => false })).toThrow(TypeError);
    });

    it('a call of a tool the agent does not have: no tool to lock, the SDK answers "not found" and the run goes on', async () => {
      const agent = scriptedAgent('a', [call('nope', { path: '/tmp' }, 'u1'), say('done')], {
        tools: [recordingTool('ls')],
      });
      install(agent, { gate: allowAll() });
      expect(await settleRun(agent)).toBeUndefined();
      expect(toolResults(agent)).toEqual([expect.stringMatching(/^error:.*not found/)]);
      expect(agent.model.calls).toBe(2);
    });

    it('a Proxy tool: refused at the decision', async () => {
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }, 'u1'), say('done')]);
      agent.toolRegistry.add(new Proxy(recordingTool('ls'), {}));
      install(agent, { gate: lsGate() });
      const error = await settleRun(agent);
      expect(error).toBeInstanceOf(GateFailedError);
      expect((error as Error).message).toContain('tool "ls" is a Proxy or has a getter among its own fields');
      expect(ran).toEqual([]);
    });
  });

  describe('when the call differs from its seal (refused, naming why)', () => {
    const cases: [string, (a: Scripted) => void, string][] = [
      [
        'a later hook selected another tool',
        (a) =>
          a.addHook(
            BeforeToolCallEvent,
            (e) => {
              e.selectedTool = a.toolRegistry.get('rm');
            },
            { order: Infinity },
          ),
        'a different tool object was selected after the decision',
      ],
      [
        'a later hook changed the input',
        (a) =>
          a.addHook(
            BeforeToolCallEvent,
            (e) => {
              (e.toolUse.input as { path: string }).path = '/etc';
            },
            { order: HookOrder.SDK_LAST },
          ),
        'the input changed after the decision',
      ],
      [
        'a middleware handed the check an input that cannot be copied',
        // A middleware outside the check hands it a context of its own: the SDK's messages keep the judged input.
        (a) =>
          a.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
            return yield* next({ ...ctx, toolUse: { ...ctx.toolUse, input: { path: '/tmp', n: 10n } as never } });
          }),
        'the input changed after the decision',
      ],
      [
        'the decision hook was removed',
        (a) => {
          const hooks = liveCallbackArray(agentHookRegistry(a), BeforeToolCallEvent) ?? [];
          const index = hooks.findIndex(
            (h) => (h as { callback?: unknown }).callback === agentGateMark(a)?.decisionHook,
          );
          expect(index).toBeGreaterThanOrEqual(0);
          hooks.splice(index, 1);
        },
        'no gate decision exists for this tool use',
      ],
    ];
    for (const [what, tamper, why] of cases) {
      it(`${what}: "${why}", one tampering record, the run stops`, async () => {
        const refused = what.includes('refused call');
        const agent = agentWithTools(refused ? call('rm', { path: '/' }, 'u1') : undefined);
        const name = refused ? 'rm' : 'ls';
        const gate = lsGate();
        install(agent, { gate });
        tamper(agent);
        const error = await settleRun(agent);
        expect(error).toBeInstanceOf(GateFailedError);
        expect((error as Error).message).toContain(`tool call "${name}" was refused at execution (${why})`);
        expect(ran).toEqual([]);
        expect(toolResults(agent)).toEqual([`error:[gate] BLOCKED: ${why} | tool=<${name}>`]);
        const tampering = gate.records.filter((r) => r.event === 'tampering');
        expect(tampering).toEqual([
          {
            event: 'tampering',
            verdict: 'deny',
            reason: `call refused at execution: ${why}`,
            toolName: name,
            toolUseId: 'u1',
            agentId: 'a',
            path: [],
          },
        ]);
      });
    }
  });

  /** A middleware that answers every call itself with `result` and never calls `next`. */
  function answerWithout(agent: Scripted, result: (toolUseId: string) => ToolResultBlock): void {
    // eslint-disable-next-line @typescript-eslint/require-await -- answers at once, like a cache would
    agent.addMiddleware(ExecuteToolStage, async function* (ctx) {
      yield* [];
      return { result: result(ctx.toolUse.toolUseId) };
    });
  }

  describe('when a later hook tries to clear the cancel of a refused call', () => {
    const cancel = 'error:[gate] BLOCKED: only ls | tool=<rm>, agent=<a>';
    const text = cancel.slice('error:'.length);
    const tampered = `a hook tried to clear the gate's refusal of tool call "rm"; the refusal stands and the run stops`;
    for (const cleared of [false, '', 0, null, undefined] as const) {
      it(`with ${JSON.stringify(cleared) ?? 'undefined'}: the refusal stands, no middleware or body runs, it is recorded and the run stops`, async () => {
        const agent = agentWithTools(call('rm', { path: '/' }, 'u1'));
        const gate = lsGate();
        install(agent, { gate });
        const seen: unknown[] = [];
        agent.addHook(
          BeforeToolCallEvent,
          (e) => {
            (e as { cancel: unknown }).cancel = cleared;
            seen.push(e.cancel);
          },
          { order: Infinity },
        );
        let reached = 0;
        answerWithout(agent, (id) => {
          reached += 1;
          return new ToolResultBlock({ toolUseId: id, status: 'error', content: [new TextBlock(text)] });
        });
        expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
        expect(seen).toEqual([text]);
        expect(reached).toBe(0);
        expect(ran).toEqual([]);
        expect(toolResults(agent)).toEqual([cancel]);
        expect(gate.records.map((r) => [r.event, r.reason])).toEqual([
          ['deny', 'only ls'],
          ['tampering', tampered],
        ]);
        expect(agent.model.calls).toBe(1);
      });
    }

    it('cannot redefine the cancel either', async () => {
      const agent = agentWithTools(call('rm', { path: '/' }, 'u1'));
      install(agent, { gate: lsGate() });
      const thrown: unknown[] = [];
      agent.addHook(BeforeToolCallEvent, (e) => {
        try {
          Object.defineProperty(e, 'cancel', { value: false });
        } catch (error) {
          thrown.push(error);
        }
      });
      await settleRun(agent);
      expect(thrown).toEqual([expect.any(TypeError)]);
      expect(ran).toEqual([]);
      expect(toolResults(agent)).toEqual([cancel]);
    });

    it('may change its text: the SDK still answers the call itself and the run goes on', async () => {
      const agent = agentWithTools(call('rm', { path: '/' }, 'u1'));
      const gate = lsGate();
      install(agent, { gate });
      agent.addHook(BeforeToolCallEvent, (e) => {
        e.cancel = 'not today';
      });
      expect(await settleRun(agent)).toBeUndefined();
      expect(ran).toEqual([]);
      expect(toolResults(agent)).toEqual(['error:not today']);
      expect(gate.records.map((r) => r.event)).toEqual(['deny']);
    });
  });

  describe('when a refused call is answered by a middleware without next', () => {
    const cancel = 'error:[gate] BLOCKED: only ls | tool=<rm>, agent=<a>';
    const text = cancel.slice('error:'.length);

    it('exactly the refusal: let through, the run goes on (the SDK itself answers refused calls so)', async () => {
      const agent = agentWithTools(call('rm', { path: '/' }, 'u1'));
      const gate = lsGate();
      install(agent, { gate });
      answerWithout(
        agent,
        (id) => new ToolResultBlock({ toolUseId: id, status: 'error', content: [new TextBlock(text)] }),
      );
      expect(await settleRun(agent)).toBeUndefined();
      expect(toolResults(agent)).toEqual([cancel]);
      expect(gate.records.map((r) => r.event)).toEqual(['deny']);
    });
  });

  describe('when an allowed call is answered by a middleware without next', () => {
    it('with one non-text error block: withheld', async () => {
      const agent = agentWithTools();
      const gate = lsGate();
      install(agent, { gate });
      answerWithout(
        agent,
        (id) =>
          new ToolResultBlock({ toolUseId: id, status: 'error', content: [new JsonBlock({ json: { secret: 1 } })] }),
      );
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      expect(toolResults(agent)).toEqual([
        'error:[gate] ERROR: tool call "ls" skipped the gate check; its result is withheld and the run stops',
      ]);
    });

    it('with a success: withheld, the stop names the call', async () => {
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), call('ls'), say('done')], {
        tools: [recordingTool('ls')],
      });
      const gate = lsGate();
      install(agent, { gate });
      answerWithout(
        agent,
        (id) => new ToolResultBlock({ toolUseId: id, status: 'success', content: [new TextBlock('x')] }),
      );
      const error = await settleRun(agent);
      expect(error).toBeInstanceOf(GateFailedError);
      expect(String((error as Error).message)).toContain('tool call "ls" bypassed the gate earlier in this run');
    });
  });

  describe('when the gate fails or its record never settles', () => {
    it('a gate that throws is recorded as an error with verdict deny, its duration and gate identity', async () => {
      const agent = agentWithTools();
      const records: GateRecord[] = [];
      install(agent, {
        gate: {
          name: 'g',
          decide: () => {
            throw new Error('boom');
          },
          record: (r) => void records.push(r),
        },
      });
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      expect(records.map((r) => [r.event, r.verdict, r.reason])).toEqual([['error', 'deny', 'gate "g" threw: boom']]);
      expect(records[0]?.durationMs).toBeGreaterThanOrEqual(0);
      expect(records[0]?.durationMs).toBeLessThan(60_000);
      expect(typeof records[0]?.gateId).toBe('string');
    });

    it('a record that never settles within timeoutMs refuses the call and stops the run', async () => {
      const agent = agentWithTools();
      const gate = lsGate(() => new Promise<void>(() => undefined));
      install(agent, { gate, timeoutMs: 30 });
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(toolResults(agent)).toEqual([
        'error:[gate] ERROR: gate "ls-only" did not record the decision within 30 ms; the run stops',
      ]);
    });
  });

  describe('when a later hook cancels an allowed call', () => {
    for (const [what, cancel, text] of [
      ['with true', true, 'Tool cancelled by hook'],
      ['with its own text', 'not now', 'not now'],
    ] as const) {
      it(`${what}: the SDK's refusal stands, the tool does not run and the run goes on (no tampering)`, async () => {
        const agent = agentWithTools();
        const gate = lsGate();
        install(agent, { gate });
        agent.addHook(
          BeforeToolCallEvent,
          (e) => {
            e.cancel = cancel;
          },
          { order: HookOrder.SDK_LAST },
        );
        expect(await settleRun(agent)).toBeUndefined();
        expect(ran).toEqual([]);
        expect(toolResults(agent)).toEqual([`error:${text}`]);
        expect(agent.model.calls).toBe(2);
        expect(gate.records.map((r) => r.event)).toEqual(['allow']);
      });
    }
  });

  describe('when a call is refused as tampering (the stderr line)', () => {
    it('names the tool, the tool use and the agent, with the reason', async () => {
      const agent = agentWithTools();
      install(agent, { gate: lsGate() });
      agent.addHook(
        BeforeToolCallEvent,
        (e) => {
          (e.toolUse.input as { path: string }).path = '/etc';
        },
        { order: HookOrder.SDK_LAST },
      );
      await settleRun(agent);
      expect(ran).toEqual([]);
      const lines = vi.mocked(console.error).mock.calls.map((args) => String(args[0]));
      expect(lines).toContain(
        '[gate-audit] ERROR tool=<ls>, toolUseId=<u1>, agent=<a> | call refused at execution: the input changed after the decision',
      );
    });
  });

  describe('when a later hook puts back the result of a call answered around the gate', () => {
    it('gets the withheld result again, with its own tampering record; the run stops', async () => {
      const agent = agentWithTools();
      const gate = lsGate();
      install(agent, { gate });
      answerWithout(
        agent,
        (id) => new ToolResultBlock({ toolUseId: id, status: 'success', content: [new TextBlock('secret')] }),
      );
      let original: ToolResultBlock | undefined;
      agent.addHook(AfterToolCallEvent, (e) => {
        original ??= new ToolResultBlock({
          toolUseId: e.toolUse.toolUseId,
          status: 'success',
          content: [new TextBlock('secret')],
        });
        e.result = original;
      });
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      const withheld = '[gate] ERROR: tool call "ls" skipped the gate check; its result is withheld and the run stops';
      expect(toolResults(agent)).toEqual([`error:${withheld}`]);
      expect(gate.records.filter((r) => r.event === 'tampering').map((r) => r.reason)).toEqual([
        withheld,
        'a hook put back the result of a call that bypassed the gate',
      ]);
    });

    it('without such a hook: one tampering record, the withheld result stays', async () => {
      const agent = agentWithTools();
      const gate = lsGate();
      install(agent, { gate });
      answerWithout(
        agent,
        (id) => new ToolResultBlock({ toolUseId: id, status: 'success', content: [new TextBlock('secret')] }),
      );
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      const withheld = '[gate] ERROR: tool call "ls" skipped the gate check; its result is withheld and the run stops';
      expect(toolResults(agent)).toEqual([`error:${withheld}`]);
      expect(gate.records.filter((r) => r.event === 'tampering').map((r) => r.reason)).toEqual([withheld]);
    });
  });

  /** An answer a middleware makes itself, for a call whose run it closed early. */
  function closedEarly(toolUseId: string): { result: ToolResultBlock } {
    return { result: new ToolResultBlock({ toolUseId, status: 'error', content: [new TextBlock('closed early')] }) };
  }

  /**
   * A middleware right outside the check that steps the call's run once, throws `stop` into it and keeps what that
   * gave (the final result's JSON, `not done`, or the rejection) in `outcome`.
   */
  function throwsAfterFirstStep(outcome: string[]): MiddlewareHandlerOf<typeof ExecuteToolStage> {
    // eslint-disable-next-line require-yield
    return async function* (ctx, next) {
      const run = next(ctx);
      await run.next();
      outcome.push(
        await run.throw(new Error('stop')).then(
          (step) => (step.done ? JSON.stringify(step.value) : 'not done'),
          (error: unknown) => `rejected: ${String(error)}`,
        ),
      );
      return closedEarly(ctx.toolUse.toolUseId);
    };
  }

  describe("when a middleware outside it drives the execution check's iterator", () => {
    /** A tool whose run yields two updates before its result. */
    const streaming = tool({
      name: 'stream',
      description: 'yields twice',
      inputSchema: z.object({ path: z.string() }),
      // eslint-disable-next-line @typescript-eslint/require-await
      callback: async function* () {
        yield 'one';
        yield 'two';
        return 'done';
      },
    });

    const answer = closedEarly;

    /**
     * Runs `agent` with `middleware` registered right outside the execution check: after the SDK's own tool-stage
     * middleware (registered at initialisation), so its `next` is the check's run itself.
     */
    async function runWithOuter(agent: Agent, middleware: MiddlewareHandlerOf<typeof ExecuteToolStage>): Promise<void> {
      await agent.initialize();
      agent.addMiddleware(ExecuteToolStage, middleware);
      await agent.invoke('go').catch(() => undefined);
    }

    it("return() after the first step closes the tool's own run: nothing more comes out of it", async () => {
      const steps: boolean[] = [];
      const agent = scriptedAgent('victim', [call('stream', { path: '/tmp' }), say('done')], { tools: [streaming] });
      install(agent, { gate: allowAll() });
      // eslint-disable-next-line require-yield
      await runWithOuter(agent, async function* (ctx, next) {
        const run = next(ctx);
        steps.push((await run.next()).done === true);
        steps.push((await run.return(answer(ctx.toolUse.toolUseId))).done === true);
        steps.push((await run.next()).done === true);
        return answer(ctx.toolUse.toolUseId);
      });
      expect(steps).toEqual([false, true, true]);
    });

    it('return() before the first step ends the run unchecked: a next() after it is done and nothing runs', async () => {
      const steps: unknown[] = [];
      const agent = scriptedAgent('victim', [call('rm', { path: '/tmp/x' }), say('done')], {
        tools: [recordingTool('rm')],
      });
      install(agent, { gate: allowAll() });
      // eslint-disable-next-line require-yield
      await runWithOuter(agent, async function* (ctx, next) {
        const run = next(ctx);
        steps.push(await run.return(answer(ctx.toolUse.toolUseId)).then((step) => step.done));
        steps.push(await run.next());
        return answer(ctx.toolUse.toolUseId);
      });
      expect(steps).toEqual([true, { done: true, value: undefined }]);
      expect(ran).toEqual([]);
    });

    it("throw() after the first step is thrown into the tool's own run, which answers it", async () => {
      const outcome: string[] = [];
      const agent = scriptedAgent('victim', [call('stream', { path: '/tmp' }), say('done')], { tools: [streaming] });
      install(agent, { gate: allowAll() });
      await runWithOuter(agent, throwsAfterFirstStep(outcome));
      // The SDK's function tool catches what is thrown into its run and answers it as an error result.
      expect(outcome).toHaveLength(1);
      expect(outcome[0]).toMatch(/"status":"error".*stop/);
    });

    it('a refused call is finished: a second next() is done with no value and checks nothing again', async () => {
      const steps: unknown[] = [];
      const agent = scriptedAgent('victim', [call('rm', { path: '/tmp/x' }), say('done')], {
        tools: [recordingTool('rm')],
      });
      const records: GateRecord[] = [];
      install(agent, {
        gate: { name: 'recording', decide: () => ({ verdict: 'allow' }), record: (r) => void records.push(r) },
      });
      // eslint-disable-next-line require-yield
      await runWithOuter(agent, async function* (ctx, next) {
        const run = next({ ...ctx, toolUse: { ...ctx.toolUse, input: { path: '/etc/passwd' } } });
        const first = await run.next();
        steps.push(first.done, await run.next());
        return first.done === true ? first.value : answer(ctx.toolUse.toolUseId);
      });
      expect(steps).toEqual([true, { done: true, value: undefined }]);
      expect(records.filter((r) => r.event === 'tampering')).toHaveLength(1);
      expect(ran).toEqual([]);
    });
  });

  /**
   * The checks of `mismatch` that the decision also makes: each is reached here with a call the decision allowed,
   * so only the execution check stands between it and its body.
   */
  describe('when something the decision checked changed in between (the check repeats it)', () => {
    it('a run stopped after the decision (a concurrent sibling crashed meanwhile): the allowed call does not run', async () => {
      const { promise: siblingCrashed, resolve: crashed } = deferred();
      const agent = scriptedAgent(
        'batch',
        [
          {
            tools: [
              { name: 'rm', input: { path: '/1' }, id: 'held' },
              { name: 'rm', input: { path: '/2' }, id: 'crash' },
            ],
          },
          say('done'),
        ],
        { tools: [recordingTool('rm')] },
      );
      install(agent, {
        gate: {
          name: 'second-crashes',
          decide: (r) => {
            if (r.toolUseId !== 'crash') return { verdict: 'allow' };
            crashed();
            throw new Error('boom');
          },
        },
      });
      // Holds the allowed call after its decision (hooks run one event at a time, a middleware runs in the call's own
      // step) until its sibling's gate has crashed.
      await agent.initialize();
      agent.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
        if (ctx.toolUse.toolUseId === 'held') await siblingCrashed;
        return yield* next(ctx);
      });
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(toolResults(agent)).toContainEqual(
        expect.stringMatching(/^error:\[gate\] BLOCKED: the run was stopped: /),
      );
    });

    it('a middleware that runs an allowed call as a refused sibling (its id, name, tool and input): refused', async () => {
      const { promise: outerFinished, resolve: outerDone } = deferred();
      const gate = lsGate();
      const agent = scriptedAgent(
        'a',
        [
          {
            tools: [
              { name: 'ls', input: { path: '/tmp' }, id: 'ok' },
              { name: 'rm', input: { path: '/' }, id: 'no' },
            ],
          },
          say('done'),
        ],
        { tools: [recordingTool('ls'), recordingTool('rm')] },
      );
      install(agent, { gate });
      const { promise: refused, resolve: refusedDecided } = deferred();
      // Keeps the refused call's seal alive (its after-call hook deletes it) until the middleware is done.
      agent.addHook(
        BeforeToolCallEvent,
        async (e) => {
          if (e.toolUse.toolUseId !== 'no') return;
          refusedDecided();
          await outerFinished;
        },
        { order: 0 },
      );
      await agent.initialize();
      agent.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
        if (ctx.toolUse.toolUseId !== 'ok') return yield* next(ctx);
        await refused;
        try {
          return yield* next({
            ...ctx,
            toolUse: { name: 'rm', toolUseId: 'no', input: { path: '/' } },
            tool: agent.toolRegistry.get('rm'),
          });
        } finally {
          outerDone();
        }
      });
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(gate.records.filter((r) => r.event === 'tampering').map((r) => r.reason)).toContain(
        'call refused at execution: the gate refused this call, but a later hook cleared the cancel',
      );
    });

    it('a middleware that runs the same allowed call twice: the second run is refused (a retry needs a new decision)', async () => {
      const agent = agentWithTools();
      const gate = lsGate();
      install(agent, { gate });
      await agent.initialize();
      agent.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
        yield* next(ctx);
        return yield* next(ctx);
      });
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual(['ls({"path":"/tmp"})@a']);
      expect(gate.records.filter((r) => r.event === 'tampering').map((r) => r.reason)).toEqual([
        'call refused at execution: the call was already run once under its decision (a retry needs a new decision)',
      ]);
    });

    it('an agent-as-tool whose stream a later hook tries to replace on the instance: it cannot, the replacement never runs', async () => {
      const helper = scriptedAgent('helper', [say('helped')]);
      const asTool = helper.asTool();
      const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')], { tools: [asTool] });
      install(helper, { gate: allowAll() });
      install(lead, { gate: allowAll() });
      lead.addHook(
        BeforeToolCallEvent,
        () => {
          Object.defineProperty(asTool, 'stream', {
            // eslint-disable-next-line require-yield, @typescript-eslint/require-await -- a stand-in that never waits
            value: async function* () {
              ran.push('replaced stream');
              return new ToolResultBlock({ toolUseId: 'x', status: 'success', content: [new TextBlock('ran')] });
            },
            configurable: true,
            writable: true,
          });
        },
        { order: 0 },
      );
      // An SDK tool takes no own member after its first decision: the replacement throws, and nothing runs.
      expect(((await settleRun(lead)) as Error).message).toMatch(
        /Cannot define property stream, object is not extensible/,
      );
      expect(ran).toEqual([]);
    });
  });

  describe('when a middleware registered inside the check after the decision has an entry that is not plain data', () => {
    /** Registers a pass-through wrap from a hook after the decision, then turns one field of its entry into a getter. */
    function lateEntry(agent: Scripted, field: 'phase' | 'handler'): void {
      agent.addHook(
        BeforeToolCallEvent,
        () => {
          agent.addMiddleware(ExecuteToolStage, (ctx, next) => next(ctx));
          const entries = liveMiddlewareArray(agent) ?? [];
          const entry = entries[entries.length - 1] as Record<string, unknown>;
          const value = entry[field];
          Object.defineProperty(entry, field, { get: () => value, configurable: true, enumerable: true });
        },
        { order: Infinity },
      );
    }
    for (const field of ['phase', 'handler'] as const) {
      it(`its ${field} a getter: refused by what the check is handed (the next middleware, not the tool run)`, async () => {
        const agent = agentWithTools();
        install(agent, { gate: lsGate() });
        lateEntry(agent, field);
        expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
        expect(ran).toEqual([]);
        expect(toolResults(agent)).toEqual([
          'error:[gate] BLOCKED: another middleware runs inside the gate check and could change the call | tool=<ls>',
        ]);
      });
    }

    it('the middleware list given an own iterator that shows the SDK a middleware inside the check (which a read of the list does not see): refused the same way', async () => {
      const agent = agentWithTools();
      install(agent, { gate: lsGate() });
      const hidden = { phase: 'wrap', handler: (ctx: never, next: (ctx: never) => unknown) => next(ctx) };
      let entries: unknown[] = [];
      agent.addHook(
        BeforeToolCallEvent,
        () => {
          entries = liveMiddlewareArray(agent) ?? [];
          Object.defineProperty(entries, Symbol.iterator, {
            value: function* () {
              yield* Array.prototype.values.call(entries);
              yield hidden;
            },
            enumerable: false,
          });
        },
        { order: Infinity },
      );
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      // A read of the list itself does not see the hidden middleware.
      expect(entries.length).toBeGreaterThan(0);
      expect(entries.some((entry) => (entry as { handler?: unknown }).handler === hidden.handler)).toBe(false);
      expect(toolResults(agent)).toEqual([
        'error:[gate] BLOCKED: another middleware runs inside the gate check and could change the call | tool=<ls>',
      ]);
    });
  });

  describe('when the middleware list or map is no plain data before a decision', () => {
    /** A middleware that runs another input than the one judged. */
    const swapInput = (context: { toolUse: object }, next: (context: { toolUse: object }) => unknown): unknown =>
      next({ ...context, toolUse: { ...context.toolUse, input: { path: '/etc' } } });
    const handlers = (agent: Scripted): Map<unknown, unknown[]> =>
      (agent as unknown as { _middlewareRegistry: { _handlers: Map<unknown, unknown[]> } })._middlewareRegistry
        ._handlers;

    /** Two allowed calls; `tamper` runs after the first (the check is innermost by then) and before the second. */
    async function betweenCalls(tamper: (agent: Scripted) => void): Promise<{ agent: Scripted; stopped: unknown }> {
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), call('ls', { path: '/tmp' }), say('done')], {
        tools: [recordingTool('ls')],
      });
      install(agent, { gate: lsGate() });
      let turns = 0;
      agent.addHook(AfterToolCallEvent, () => {
        if ((turns += 1) === 1) tamper(agent);
      });
      return { agent, stopped: await settleRun(agent) };
    }

    it('an own iterator that shows the SDK another chain (the list still ends with the check): refused before it runs', async () => {
      const { agent, stopped } = await betweenCalls((a) => {
        Object.defineProperty(handlers(a).get(ExecuteToolStage), Symbol.iterator, {
          value: function* () {
            yield { phase: 'wrap', handler: swapInput };
          },
        });
      });
      expect(stopped).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual(['ls({"path":"/tmp"})@a']);
      expect(toolResults(agent)[1]).toMatch(/the gate's execution check was removed from this agent/);
    });

    it('an own get of the map that answers the SDK another chain: refused before it runs', async () => {
      const { agent, stopped } = await betweenCalls((a) => {
        const map = handlers(a);
        const realGet = map.get.bind(map);
        Object.defineProperty(map, 'get', {
          value: (key: unknown): unknown =>
            key === ExecuteToolStage ? [{ phase: 'wrap', handler: swapInput }] : realGet(key),
        });
      });
      expect(stopped).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual(['ls({"path":"/tmp"})@a']);
      expect(toolResults(agent)[1]).toMatch(/the gate's execution check was removed from this agent/);
    });
  });

  describe('when the execution check cannot read the tool name of the call', () => {
    it('a middleware hands it a tool use whose name throws when read: refused, recorded, the run stops', async () => {
      const agent = agentWithTools();
      const gate = lsGate();
      install(agent, { gate });
      await agent.initialize();
      agent.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
        const toolUse = { ...ctx.toolUse };
        Object.defineProperty(toolUse, 'name', {
          get: () => {
            throw new Error('unreadable');
          },
        });
        return yield* next({ ...ctx, toolUse });
      });
      expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(gate.records.filter((r) => r.event === 'tampering').map((r) => r.reason)).toEqual([
        'call refused at execution: the call could not be checked: unreadable',
      ]);
      // The refusal names the call by its sealed name, the one handed over being unreadable.
      expect(toolResults(agent)).toEqual([
        'error:[gate] BLOCKED: the call could not be checked: unreadable | tool=<ls>',
      ]);
    });
  });

  describe("when an allowed delegate call is answered around the check with what only resembles the SDK's delegation refusal", () => {
    const REFUSAL =
      'Delegation failed: a delegation tool must be the only tool called in a turn. ' +
      'Retry with a single delegation tool call or use only non-delegation tools.';
    const block = (text: string): TextBlock => new TextBlock(text);
    const cases: [string, boolean, (id: string) => ToolResultBlock][] = [
      [
        'exactly the refusal (one error text block)',
        true,
        (id) => new ToolResultBlock({ toolUseId: id, status: 'error', content: [block(REFUSAL)] }),
      ],
      [
        'another text',
        false,
        (id) => new ToolResultBlock({ toolUseId: id, status: 'error', content: [block('secret')] }),
      ],
      [
        'the refusal as a success',
        false,
        (id) => new ToolResultBlock({ toolUseId: id, status: 'success', content: [block(REFUSAL)] }),
      ],
      [
        'the refusal and one more block',
        false,
        (id) => new ToolResultBlock({ toolUseId: id, status: 'error', content: [block(REFUSAL), block('secret')] }),
      ],
      ['no block', false, (id) => new ToolResultBlock({ toolUseId: id, status: 'error', content: [] })],
      [
        'a JSON block',
        false,
        (id) =>
          new ToolResultBlock({
            toolUseId: id,
            status: 'error',
            content: [new JsonBlock({ json: { text: REFUSAL } })],
          }),
      ],
    ];
    for (const [what, passes, answer] of cases) {
      it(`${what}: ${passes ? 'let through' : 'withheld, the run stops'}`, async () => {
        for (const delegate of passes ? [true, false] : [true]) {
          ran.length = 0;
          const helper = scriptedAgent('helper', [call('rm'), say('-')], { tools: [recordingTool('rm')] });
          const lead = scriptedAgent('lead', [call('helper', { input: 'x' }), say('done')], {
            tools: [helper.asTool({ delegate })],
          });
          install(helper, { gate: allowAll() });
          install(lead, { gate: allowAll() });
          await lead.initialize();
          answerWithout(lead, answer);
          const error = await settleRun(lead);
          expect(ran).toEqual([]);
          // Only a delegating tool's call may be answered so: the same text for a plain agent-as-tool is withheld.
          if (passes && delegate) {
            expect(error).toBeUndefined();
            expect(toolResults(lead)[0]).toBe(`error:${REFUSAL}`);
          } else {
            expect(error).toBeInstanceOf(GateFailedError);
            expect(toolResults(lead)[0]).toBe(
              'error:[gate] ERROR: tool call "helper" skipped the gate check; its result is withheld and the run stops',
            );
          }
        }
      });
    }
  });

  describe('when the execution check cannot read the call context, beyond the tool name', () => {
    /** Runs the agent with a middleware right outside the check that hands it `tamper(ctx)` instead of `ctx`. */
    async function handed(
      tamper: (ctx: Parameters<MiddlewareHandlerOf<typeof ExecuteToolStage>>[0]) => object,
    ): Promise<{ agent: Scripted; gate: ReturnType<typeof lsGate>; error: unknown }> {
      const agent = agentWithTools();
      const gate = lsGate();
      install(agent, { gate });
      await agent.initialize();
      agent.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
        return yield* next(tamper(ctx) as typeof ctx);
      });
      return { agent, gate, error: await settleRun(agent) };
    }
    const throwing = (): never => {
      throw new Error('unreadable');
    };

    it('a tool use id that throws: refused, recorded under no id, the run stops', async () => {
      const { agent, gate, error } = await handed((ctx) => ({
        ...ctx,
        toolUse: Object.defineProperty({ ...ctx.toolUse }, 'toolUseId', { get: throwing }),
      }));
      expect(error).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      // The refusal answers a call of no known id; the SDK's own call, never checked, is then withheld too.
      const withheld = '[gate] ERROR: tool call "ls" skipped the gate check; its result is withheld and the run stops';
      expect(
        gate.records.filter((r) => r.event === 'tampering').map((r) => [r.toolName, r.toolUseId, r.reason]),
      ).toEqual([
        ['ls', 'unknown', 'call refused at execution: the call could not be checked: unreadable'],
        ['ls', 'u1', withheld],
      ]);
      expect(toolResults(agent)).toEqual([`error:${withheld}`]);
    });

    it('an id no decision has and a name that throws: refused, shown as an unknown tool', async () => {
      const { gate, error } = await handed((ctx) => ({
        ...ctx,
        toolUse: Object.defineProperty({ ...ctx.toolUse, toolUseId: 'nope' }, 'name', { get: throwing }),
      }));
      expect(error).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(gate.records.find((r) => r.toolUseId === 'nope')).toMatchObject({
        event: 'tampering',
        toolName: 'unknown',
        reason: 'call refused at execution: no gate decision exists for this tool use',
      });
    });

    it('an invocation state that throws when read: refused, and the run the agent is in stops', async () => {
      const { error } = await handed((ctx) => Object.defineProperty({ ...ctx }, 'invocationState', { get: throwing }));
      expect(error).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
    });

    it('a field only the copy for the tool reads, throwing: nothing runs, and the run stops', async () => {
      const { error } = await handed((ctx) =>
        Object.defineProperty({ ...ctx }, 'extra', { get: throwing, enumerable: true }),
      );
      expect(error).toBeInstanceOf(GateFailedError);
      expect((error as Error).message).toContain('the execution check could not complete: ');
      expect(ran).toEqual([]);
    });
  });

  describe("when a middleware outside the execution check drives an agent-as-tool's run", () => {
    async function leadWithHelper(
      middleware: MiddlewareHandlerOf<typeof ExecuteToolStage>,
    ): Promise<{ helper: Scripted; lead: Scripted; metrics: unknown }> {
      const helper = scriptedAgent('helper', [call('ls', { path: '/tmp' }), say('helped'), say('again')], {
        tools: [recordingTool('ls')],
      });
      const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')], { tools: [helper.asTool()] });
      // Installed over a tree, the call has a known place, and the callee's run is stepped with it in context.
      installMultiagent(new Graph({ id: 'g', nodes: [lead], edges: [] }), { gate: allowAll() });
      await lead.initialize();
      lead.addMiddleware(ExecuteToolStage, middleware);
      const result = await lead.invoke('go');
      return { helper, lead, metrics: result.metrics?.toolMetrics };
    }

    const answer = closedEarly;

    it("return() after the first step closes the SDK's run of the tool: its finally counts the call", async () => {
      // eslint-disable-next-line require-yield
      const { metrics } = await leadWithHelper(async function* (ctx, next) {
        const run = next(ctx);
        await run.next();
        await run.return(answer(ctx.toolUse.toolUseId));
        return answer(ctx.toolUse.toolUseId);
      });
      expect(ran).toEqual([]);
      // The SDK's run of a tool counts the call in its `finally` (it does not close the tool's own stream there: an
      // AgentAsTool closed early stays busy, and its agent in its invocation, which is the SDK's doing).
      expect(metrics).toHaveProperty('helper');
    });

    it("throw() after the first step is thrown into the agent-as-tool's run, which answers it", async () => {
      const outcome: string[] = [];
      await leadWithHelper(throwsAfterFirstStep(outcome));
      // The SDK's AgentAsTool catches what is thrown into its run and answers it as an error result.
      expect(outcome).toHaveLength(1);
      expect(outcome[0]).toMatch(/"status":"error".*stop/);
      expect(ran).toEqual([]);
    });
  });
});
