/**
 * The positions gate-audit keeps in private SDK state (`src/frameworks/strands/sdk-mutations.ts`): the node witness and the
 * handoff record stay first on their orchestrator events even when app code registered a callback at the same
 * order before install; the execution check is found wherever the agent's middleware went, and is judged
 * innermost among the `wrap` handlers only (input and output phases run outside every wrap); middleware that
 * cannot be read as plain data, or an execution check that cannot be found, refuses the call. Each test fails when
 * the line it names is changed.
 *
 * Surviving mutants of sdk-mutations.ts (CONTRIBUTING.md, "Mutation testing"), each equivalent or not reachable:
 * - `moveToFront`'s results (`true` ↔ `false`): no caller reads them; the callback was registered right before.
 * - `moveToFront`'s `index > 0` (→ `true`, `>= 0`) and `moveMiddlewareInnermost`'s `index < entries.length - 1`
 *   (→ `true`, `<=`, `+ 1`): moving an entry that is already first (last) there is a no-op.
 * - `moveMiddlewareInnermost`'s shortcut when the check is last already (six mutants): the search finds the same.
 * - `restrictFields`' `isProxy(owner)` (→ `false`): the walk refused a Proxy owner before any field is locked.
 * - `restrictFields`' `descriptor.configurable === true || …` (→ `true`): redefining a locked field changes nothing.
 * - `keepCancel`'s `kept.has(event)` (→ `false`): redefining its non-configurable accessor throws, caught, and the
 *   first keeping stays.
 * - `state.onClear?.()` (→ `onClear()`): `held` is only ever set together with `onClear`.
 * - `holdCancel`'s catch emptied: it then returns nothing, which reads as not held, as `false` does.
 * - `lockSdkTool`'s `tool === null`, `isProxy(tool)` and `lockedTools.has(tool)`: the SDK's event carries an
 *   object or undefined, the tool seal refuses a Proxy first, and locking twice redefines the same attributes.
 * - `lockSdkTool`'s own-accessor skip (`descriptor === undefined || !('value' in descriptor)`, three mutants): the
 *   tool seal refuses a tool with an accessor before the lock.
 * - `lockSdkTool`'s `proto === ZodTool.prototype` (→ `true`): other tools have no `_functionTool`, and the lock
 *   returns at once on `undefined`.
 * - `lockedToolFacts`'s `typeof`/`null` guards: a WeakMap answers undefined for a primitive without throwing.
 * - decision.ts's `lockedToolFacts(…) ?? toolFacts(…)` (→ `toolFacts(…)`): a locked tool's facts cannot change.
 * - `moveToFront`'s `entries === undefined` and `index === -1` (→ `false`): not reachable, both callers register the
 *   callback with the SDK's own `addHook`/`addCallback` in the same synchronous step.
 * - `addOrchestratorHook`'s `typeof registry?.addCallback !== 'function'` and its refusal (no coverage): not
 *   reachable, the preflight refuses a registry that is not the SDK's own and the field is locked afterwards.
 */
import { type Agent, BeforeInvocationEvent, BeforeToolCallEvent, ExecuteToolStage } from '@strands-agents/sdk';
import { BeforeNodeCallEvent, Graph, MultiAgentHandoffEvent, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import {
  allowAll,
  GateFailedError,
  type GateRecord,
  type Gate,
  install,
  installMultiagent,
} from '../../../src/index.js';
import { moveMiddlewareInnermost } from '../../../src/frameworks/strands/sdk-mutations.js';
import { agentGateMark } from '../../../src/walker/marks.js';
import {
  call,
  handoff,
  isolateEachTest,
  ran,
  recordingTool,
  runOrchestrator,
  say,
  scriptedAgent,
  toolResults,
} from '../../helpers/sdk.js';
import { settleRun } from '../../helpers/runs.js';

isolateEachTest();

type Registry = {
  addCallback: (event: unknown, callback: (e: unknown) => void, options: { order: number }) => unknown;
};
type Handlers = Map<unknown, unknown[]>;

const registryOf = (orchestrator: object): Registry =>
  (orchestrator as unknown as { _hookRegistry: Registry })._hookRegistry;
const handlersOf = (agent: Agent): Handlers =>
  (agent as unknown as { _middlewareRegistry: { _handlers: Handlers } })._middlewareRegistry._handlers;

function keepingGate(): Gate & { records: GateRecord[] } {
  const records: GateRecord[] = [];
  return { name: 'keep', records, decide: () => ({ verdict: 'allow' }), record: (r) => void records.push(r) };
}

describe('the orchestrator hooks install adds (the node witness, the handoff record)', () => {
  describe('when an app node hook was registered at the same order before install', () => {
    it("a Graph node hook at order -Infinity registered before install does not push the guard's witness back", async () => {
      const a = scriptedAgent('a', [say('a done')]);
      const b = scriptedAgent('b', [say('b done')]);
      const graph = new Graph({ id: 'g', nodes: [a, b], edges: [['a', 'b']], maxSteps: 4 });
      const seen: string[] = [];
      registryOf(graph).addCallback(
        BeforeNodeCallEvent,
        (e) => void seen.push(String((e as BeforeNodeCallEvent).nodeId)),
        { order: Number.NEGATIVE_INFINITY },
      );
      installMultiagent(graph, { gate: allowAll() });
      const { status, cancelled } = await runOrchestrator(graph);
      // Behind the app's callback the witness would see "another hook ran before the node witness" and the guard
      // would cancel every node.
      expect(cancelled).toEqual({});
      expect(status).toBe('COMPLETED');
      expect(seen).toEqual(['a', 'b']);
      expect(a.model.calls).toBe(1);
      expect(b.model.calls).toBe(1);
    });
  });

  describe("when app hooks set and clear a node's cancel after install", () => {
    it("a node's cancel kept by the guard reads as the SDK set it, and app hooks still set and clear it", async () => {
      const a = scriptedAgent('a', [say('a done')]);
      const b = scriptedAgent('b', [say('b done')]);
      const graph = new Graph({ id: 'g', nodes: [a, b], edges: [['a', 'b']], maxSteps: 4 });
      installMultiagent(graph, { gate: allowAll() });
      const read: unknown[] = [];
      // After the guard's witness took the event's cancel into its keeping: one hook cancels b, a later one
      // changes its mind. Neither is a refusal of the gate's, so b runs.
      graph.addHook(BeforeNodeCallEvent, (e) => {
        read.push(e.cancel);
        if (e.nodeId === 'b') e.cancel = 'not yet';
      });
      graph.addHook(BeforeNodeCallEvent, (e) => {
        read.push(e.cancel);
        if (e.nodeId === 'b') e.cancel = false;
      });
      const { status, cancelled } = await runOrchestrator(graph);
      expect(read).toEqual([false, false, false, 'not yet']);
      expect(cancelled).toEqual({});
      expect(status).toBe('COMPLETED');
      expect(b.model.calls).toBe(1);
    });
  });

  describe('when an app handoff hook was registered at the same order before install', () => {
    it('a Swarm handoff hook at order -Infinity registered before install does not push the handoff record back', async () => {
      const a = scriptedAgent('a', [handoff('b', 'over to b')]);
      const b = scriptedAgent('b', [handoff(undefined, 'b done')]);
      const swarm = new Swarm({ id: 's', nodes: [a, b], maxSteps: 4 });
      const seen: string[] = [];
      registryOf(swarm).addCallback(
        MultiAgentHandoffEvent,
        (e) => void seen.push((e as MultiAgentHandoffEvent).targets.join('+')),
        { order: Number.NEGATIVE_INFINITY },
      );
      installMultiagent(swarm, { gate: allowAll() });
      const { status, cancelled } = await runOrchestrator(swarm);
      expect(cancelled).toEqual({});
      expect(status).toBe('COMPLETED');
      expect(seen).toEqual(['b']);
      expect(b.model.calls).toBe(1);
    });
  });
});

describe("the agent's execution check (moveMiddlewareInnermost)", () => {
  describe('when the middleware list is deleted before the decision', () => {
    it("with the middleware list of ExecuteToolStage deleted from the agent's registry, the call is refused and nothing runs", async () => {
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), say('done')], { tools: [recordingTool('ls')] });
      const gate = keepingGate();
      install(agent, { gate });
      let deleted = false;
      // In a hook: the run has started (and the agent initialised), the decision has not been made yet.
      agent.addHook(BeforeInvocationEvent, () => void (deleted = handlersOf(agent).delete(ExecuteToolStage)));
      const error = await settleRun(agent);
      expect(deleted).toBe(true);
      expect(error).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(gate.records.map((r) => [r.event, r.reason])).toEqual([
        ['tampering', "the gate's execution check was removed from this agent"],
      ]);
    });
  });

  describe('when the registry is a Proxy', () => {
    it('moving the check innermost runs no code of the registry: a Proxy map or a Proxy list reads as no check at all', () => {
      const agent = scriptedAgent('a', [say('done')], { tools: [recordingTool('ls')] });
      install(agent, { gate: allowAll() });
      const check = agentGateMark(agent)?.executionCheck;
      expect(moveMiddlewareInnermost(agent, check)).toBe(true);
      const trapped: string[] = [];
      const traps = <T extends object>(): ProxyHandler<T> => ({
        get: (target, key) => {
          trapped.push(`get ${String(key)}`);
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
        getPrototypeOf: (target) => {
          trapped.push('getPrototypeOf');
          return Reflect.getPrototypeOf(target);
        },
        getOwnPropertyDescriptor: (target, key) => {
          trapped.push(`descriptor ${String(key)}`);
          return Reflect.getOwnPropertyDescriptor(target, key);
        },
        ownKeys: (target) => {
          trapped.push('ownKeys');
          return Reflect.ownKeys(target);
        },
      });
      const registry = (agent as unknown as { _middlewareRegistry: { _handlers: Handlers } })._middlewareRegistry;
      const real = registry._handlers;
      registry._handlers = new Proxy(real, traps<Handlers>());
      expect(moveMiddlewareInnermost(agent, check)).toBe(false);
      registry._handlers = real;
      const entries = real.get(ExecuteToolStage)!;
      real.set(ExecuteToolStage, new Proxy(entries, traps<unknown[]>()));
      expect(moveMiddlewareInnermost(agent, check)).toBe(false);
      expect(trapped).toEqual([]);
      real.set(ExecuteToolStage, entries);
      expect(moveMiddlewareInnermost(agent, check)).toBe(true);
    });
  });

  describe('when the middleware changes after the decision', () => {
    /** Installs `gate` and a hook that runs after the decision, before the call reaches the middleware. */
    function afterDecision(agent: Agent, gate: Gate, act: () => void): void {
      install(agent, { gate });
      agent.addHook(BeforeToolCallEvent, () => act());
    }

    it.skipIf(!('Output' in ExecuteToolStage))(
      'an output- or input-phase middleware registered after the decision is outside every wrap: the call runs',
      async () => {
        const stage = ExecuteToolStage as unknown as { Input: object; Output: object };
        for (const phase of [stage.Output, stage.Input]) {
          ran.length = 0;
          const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), say('done')], {
            tools: [recordingTool('ls')],
          });
          let added = false;
          afterDecision(agent, allowAll(), () => {
            if (added) return;
            added = true;
            agent.addMiddleware(phase as never, ((x: unknown) => x) as never);
          });
          expect(await settleRun(agent)).toBeUndefined();
          // The phase's entry now sits after the execution check in the registry's list, but the SDK runs every
          // input and output handler outside the wraps: the check is still the innermost wrap.
          const entries = handlersOf(agent).get(ExecuteToolStage) ?? [];
          expect((entries.at(-1) as { phase?: string }).phase).not.toBe('wrap');
          expect(ran).toEqual(['ls({"path":"/tmp"})@a']);
          expect(toolResults(agent)).toEqual(['success:ok ls']);
        }
      },
    );

    it('middleware entries that are no plain data after the decision change nothing the SDK runs: the call runs as judged', async () => {
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), say('done')], { tools: [recordingTool('ls')] });
      const gate = keepingGate();
      afterDecision(agent, gate, () => {
        // A phase that is a getter could show the SDK one phase and a reader another; this one answers the same to
        // both, so the SDK composes the same chain. The check does not read the registry: what it is handed (the
        // SDK's own tool run, not another middleware) proves that nothing runs inside it.
        for (const entry of handlersOf(agent).get(ExecuteToolStage) ?? []) {
          const phase = (entry as { phase: string }).phase;
          Object.defineProperty(entry, 'phase', { get: () => phase, configurable: true });
        }
      });
      expect(await settleRun(agent)).toBeUndefined();
      expect(ran).toEqual(['ls({"path":"/tmp"})@a']);
      expect(gate.records.filter((r) => r.event === 'tampering')).toEqual([]);
    });
  });

  describe('when an input-phase handler takes the check out during a call', () => {
    it.skipIf(!('Input' in ExecuteToolStage))(
      'an execution check taken out of the registry by an input-phase handler during a call: that call runs as judged, the next is refused',
      async () => {
        const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), call('ls', { path: '/etc' }), say('done')], {
          tools: [recordingTool('ls')],
        });
        const gate = keepingGate();
        install(agent, { gate });
        const stage = ExecuteToolStage as unknown as { Input: object };
        let removed = 0;
        agent.addMiddleware(
          stage.Input as never,
          ((context: unknown) => {
            // The chain is composed already: the check still runs, but no wrap is registered any more.
            const entries = handlersOf(agent).get(ExecuteToolStage) ?? [];
            const inputs = entries.filter((e) => (e as { phase?: unknown }).phase !== 'wrap');
            removed = entries.length - inputs.length;
            entries.splice(0, entries.length, ...inputs);
            return context;
          }) as never,
        );
        expect(await settleRun(agent)).toBeInstanceOf(GateFailedError);
        // The chain was composed with the check in it: the first call ran exactly as judged. The second decision finds
        // no execution check any more.
        expect(ran).toEqual(['ls({"path":"/tmp"})@a']);
        expect(removed).toBeGreaterThan(0);
        expect(gate.records.filter((r) => r.event === 'tampering').map((r) => r.reason)).toEqual([
          "the gate's execution check was removed from this agent",
        ]);
      },
    );
  });
});
