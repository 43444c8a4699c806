/**
 * What counts as gated and what can be gated (`src/walker/classify.ts`), line by line: an agent's registries must
 * be the SDK's own, read as plain data; an orchestrator's hook registry likewise; a gate counts only while every
 * hook it names is registered, and a node guard only while every hook of it is. Written against the survivors of
 * the walker's mutation run with the enforce tests (CONTRIBUTING.md, "Mutation testing").
 */
import { AfterToolCallEvent, BeforeModelCallEvent, type Agent } from '@strands-agents/sdk';
import { Graph, MultiAgentHandoffEvent, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { allowAll, install, installMultiagent } from '../../src/index.js';
import { agentGateState, classifyExecutor, hasNodeGuard } from '../../src/walker/classify.js';
import { agentGateMark, nodeGuardMark } from '../../src/walker/marks.js';
import { isolateEachTest, say, scriptedAgent } from '../helpers/sdk.js';

isolateEachTest();

/** The reason `classifyExecutor` gives for a value, or undefined when it has no problem. */
function problemOf(value: unknown): string | undefined {
  const classified = classifyExecutor(value) as { problem?: { reason: string } };
  return classified.problem?.reason;
}

/** Removes one callback from a hook registry's live list for an event. */
function unregister(registry: unknown, event: unknown, callback: unknown): void {
  const list = (registry as { _callbacks: Map<unknown, { callback: unknown }[]> })._callbacks.get(event)!;
  list.splice(
    list.findIndex((entry) => entry.callback === callback),
    1,
  );
}

describe('classify', () => {
  describe("when an agent's registries are not the SDK's own", () => {
    for (const key of ['_hooksRegistry', '_middlewareRegistry', '_toolRegistry'] as const) {
      it(`${key}: a Proxy, a subclass instance, a patched instance or a getter is not the SDK's own`, () => {
        const fresh = (): Agent => scriptedAgent('a', [say('x')]);
        expect(problemOf(fresh())).toBeUndefined();

        const proxied = fresh();
        const fields = proxied as unknown as Record<string, object>;
        fields[key] = new Proxy(fields[key]!, {});
        expect(problemOf(proxied)).toMatch(new RegExp(`has a ${key} that is a Proxy or not an object`));

        const sub = fresh();
        const subFields = sub as unknown as Record<string, object>;
        const Base = Object.getPrototypeOf(subFields[key]) as { constructor: new () => object };
        class Custom extends Base.constructor {}
        subFields[key] = new Custom();
        expect(problemOf(sub)).toMatch(new RegExp(`has a ${key} that is not the SDK's own registry`));

        const patched = fresh();
        const registry = (patched as unknown as Record<string, Record<string, unknown>>)[key]!;
        const member = Object.getOwnPropertyNames(Object.getPrototypeOf(registry)).find((m) => m !== 'constructor')!;
        registry[member] = (): void => undefined;
        expect(problemOf(patched)).toMatch(new RegExp(`has a ${key} whose "${member}" was replaced on the instance`));

        const getter = fresh();
        const value = (getter as unknown as Record<string, object>)[key];
        Object.defineProperty(getter, key, { get: () => value, configurable: true });
        expect(problemOf(getter)).toMatch(new RegExp(`"${key}" is a getter`));
      });
    }
  });

  describe("when an orchestrator's hook registry is not the SDK's own", () => {
    it("a Proxy, a subclass instance, a patched instance or a getter is not the SDK's own", () => {
      const fresh = (): Graph => new Graph({ id: 'g', nodes: [scriptedAgent('a', [say('x')])], edges: [] });
      expect(problemOf(fresh())).toBeUndefined();
      const variants: ((fields: Record<string, unknown>, graph: Graph) => void)[] = [
        (fields) => {
          fields._hookRegistry = new Proxy(fields._hookRegistry as object, {});
        },
        (fields) => {
          const Base = Object.getPrototypeOf(fields._hookRegistry) as { constructor: new () => object };
          class Custom extends Base.constructor {}
          fields._hookRegistry = new Custom();
        },
        (fields) => {
          (fields._hookRegistry as Record<string, unknown>).addCallback = (): void => undefined;
        },
        (fields, graph) => {
          const value = fields._hookRegistry;
          Object.defineProperty(graph, '_hookRegistry', { get: () => value, configurable: true });
        },
        (fields) => {
          fields._hookRegistry = null;
        },
      ];
      for (const [i, change] of variants.entries()) {
        const graph = fresh();
        change(graph as unknown as Record<string, unknown>, graph);
        expect(problemOf(graph), `variant ${i}`).toMatch(/whose hook registry is not the SDK's own/);
      }
    });
  });

  describe('when a hook a gate or a guard names is not registered', () => {
    for (const event of [AfterToolCallEvent, BeforeModelCallEvent]) {
      it(`an agent whose ${event.name} gate hook was removed reads as removed, not gated`, () => {
        const agent = scriptedAgent('a', [say('x')]);
        install(agent, { gate: allowAll() });
        expect(agentGateState(agent)).toBe('gated');
        const mark = agentGateMark(agent)!;
        const hook = (mark.hooks as { event: unknown; callback: unknown }[]).find((h) => h.event === event)!;
        unregister((agent as unknown as { _hooksRegistry: unknown })._hooksRegistry, event, hook.callback);
        expect(agentGateState(agent)).toBe('removed');
      });
    }

    it("an orchestrator whose guard's handoff record was removed has no node guard", () => {
      const swarm = new Swarm({ id: 's', nodes: [scriptedAgent('a', [say('x')]), scriptedAgent('b', [say('y')])] });
      installMultiagent(swarm, { gate: allowAll() });
      expect(hasNodeGuard(swarm)).toBe(true);
      const mark = nodeGuardMark(swarm)!;
      const hook = (mark.hooks as { event: unknown; callback: unknown }[]).find(
        (h) => h.event === MultiAgentHandoffEvent,
      )!;
      expect(hook.callback).not.toBe(mark.guardHook);
      unregister((swarm as unknown as { _hookRegistry: unknown })._hookRegistry, MultiAgentHandoffEvent, hook.callback);
      expect(hasNodeGuard(swarm)).toBe(false);
    });

    it('a guard mark that does not name its guard among its hooks is no guard', () => {
      const swarm = new Swarm({ id: 's', nodes: [scriptedAgent('a', [say('x')]), scriptedAgent('b', [say('y')])] });
      installMultiagent(swarm, { gate: allowAll() });
      const mark = nodeGuardMark(swarm)!;
      const forged = { ...mark, guardHook: (): void => undefined };
      Object.defineProperty(swarm, Symbol.for('gate-audit.node-guard.v1'), { value: forged });
      expect(hasNodeGuard(swarm)).toBe(false);
    });
  });
});
