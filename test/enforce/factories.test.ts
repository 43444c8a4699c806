/**
 * Gating what is built later (`src/enforce/factories.ts`): `gatedAgent` hands out an agent only once it is gated,
 * and `gatedFactory` gates every Graph or Swarm its factory returns before handing it out, keeping the factory's
 * sync or async shape, name and arity, and the mark the CLI calls it by.
 *
 * Surviving mutants of factories.ts (CONTRIBUTING.md, "Mutation testing"), each equivalent:
 * - the mark's `value: true` (→ `false`): the CLI (`isGatedFactory`) asks only whether the mark is present.
 */
import type { Agent } from '@strands-agents/sdk';
import { Graph, Node } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { isGatedFactory } from '../../src/cli/load.js';
import {
  allowAll,
  denyAll,
  gatedAgent,
  gatedFactory,
  hasNodeGuard,
  isGated,
  NoGateError,
  UngateableError,
} from '../../src/index.js';
import { call, isolateEachTest, ran, recordingTool, runOrchestrator, say, scriptedAgent } from '../helpers/sdk.js';

isolateEachTest();

describe('gatedAgent', () => {
  describe('when given a gate', () => {
    it('builds the agent from the config and gates it with the given gate before it can run', async () => {
      const agent = gatedAgent(
        {
          id: 'made',
          model: scriptedAgent('m', [call('rm'), say('x')]).model,
          tools: [recordingTool('rm')],
          printer: false,
        },
        { gate: denyAll('not here') },
      );
      expect(agent.id).toBe('made');
      expect(isGated(agent)).toBe(true);
      await agent.invoke('go');
      expect(ran).toEqual([]);
    });
  });

  describe('when no gate is given', () => {
    it('throws NoGateError, and hands nothing out', () => {
      expect(() => gatedAgent({ id: 'x', printer: false })).toThrow(NoGateError);
    });
  });
});

const workers: Agent[] = [];

/** A graph with one agent that calls `rm`, built fresh per call; `seen` collects the factory's arguments. */
function factoryOf(seen: unknown[][]): (id: string, n: number) => Graph {
  return function buildTeam(id: string, n: number): Graph {
    seen.push([id, n]);
    const worker = scriptedAgent(`w${n}`, [call('rm'), say('x')], { tools: [recordingTool('rm')] });
    workers.push(worker);
    return new Graph({ id, nodes: [worker], edges: [], maxSteps: 4 });
  };
}

describe('gatedFactory', () => {
  describe('when the factory is sync', () => {
    it('stays sync: each call returns the orchestrator it built, gated with the given gate', async () => {
      const seen: unknown[][] = [];
      workers.length = 0;
      const build = gatedFactory(factoryOf(seen), { gate: denyAll('per-request no') });
      const first = build('team', 1);
      expect(first).toBeInstanceOf(Graph);
      expect(first.id).toBe('team');
      expect(hasNodeGuard(first)).toBe(true);
      expect(workers.map((w) => isGated(w))).toEqual([true]);
      const second = build('team', 2);
      expect(second).not.toBe(first);
      expect(seen).toEqual([
        ['team', 1],
        ['team', 2],
      ]);
      const { status } = await runOrchestrator(second);
      expect(status).toBe('COMPLETED');
      expect(ran).toEqual([]);
    });
  });

  describe('when the factory is async', () => {
    it('stays async: the promise resolves to the orchestrator, gated', async () => {
      const seen: unknown[][] = [];
      const sync = factoryOf(seen);
      const build = gatedFactory((id: string, n: number) => Promise.resolve(sync(id, n)), { gate: allowAll() });
      const pending = build('later', 3);
      expect(pending).toBeInstanceOf(Promise);
      const graph = await pending;
      expect(graph.id).toBe('later');
      expect(hasNodeGuard(graph)).toBe(true);
      await runOrchestrator(graph);
      expect(ran).toEqual(['rm({})@w3']);
    });
  });

  describe('when the tree the factory builds cannot be gated', () => {
    it('throws (sync) or rejects (async) instead of handing out a tree it cannot gate', async () => {
      class ScriptNode extends Node {
        // eslint-disable-next-line require-yield, @typescript-eslint/require-await
        async *handle(): AsyncGenerator<never, never> {
          throw new Error('never run');
        }
      }
      const ungateable = (): Graph => new Graph({ id: 'bad', nodes: [new ScriptNode('script', {})], edges: [] });
      expect(() => gatedFactory(ungateable, { gate: allowAll() })()).toThrow(UngateableError);
      await expect(gatedFactory(() => Promise.resolve(ungateable()), { gate: allowAll() })()).rejects.toBeInstanceOf(
        UngateableError,
      );
    });
  });

  describe('when it wraps a named or an anonymous factory', () => {
    it("keeps the factory's name and arity, and carries the mark the CLI calls a factory by", () => {
      const named = gatedFactory(factoryOf([]), { gate: allowAll() });
      expect(named.name).toBe('buildTeam');
      expect(named.length).toBe(2);
      expect(isGatedFactory(named)).toBe(true);
      const anonymous = gatedFactory(
        (
          () => () =>
            new Graph({ id: 'g', nodes: [scriptedAgent('a', [])], edges: [] })
        )(),
        { gate: allowAll() },
      );
      expect(anonymous.name).toBe('gatedFactory');
      expect(anonymous.length).toBe(0);
      expect(isGatedFactory(anonymous)).toBe(true);
    });
  });
});
