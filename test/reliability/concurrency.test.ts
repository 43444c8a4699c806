/**
 * Concurrency: many decisions in flight at once, answered out of order, each bound to its own call.
 */
import { tool } from '@strands-agents/sdk';
import { Graph } from '@strands-agents/sdk/multiagent';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type Gate, install, installMultiagent, type ToolCallRequest } from '../../src/index.js';
import { runOrchestrator, say, scriptedAgent } from '../helpers/sdk.js';
import { watchToolResults } from '../helpers/reliability.js';

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

/** A tool whose body records which input it ran with, and answers with it. */
function echoTool(runs: string[]) {
  return tool({
    name: 'touch',
    description: 'touch a path',
    inputSchema: z.object({ path: z.string() }),
    callback: ({ path }, ctx) => {
      runs.push(`${ctx?.agent.id ?? '?'}:${path}`);
      return `touched ${path}`;
    },
  });
}

/** Deterministic pseudo-random delays, so decisions settle in a scrambled order. */
function delays(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x % 7;
  };
}

/** Allows a path whose number is not a multiple of 3; answers after a scrambled delay; remembers what it saw. */
function scrambledGate(seed: number): Gate & { seen: ToolCallRequest[] } {
  const seen: ToolCallRequest[] = [];
  const wait = delays(seed);
  return {
    name: 'scrambled',
    seen,
    decide: async (request) => {
      seen.push(request);
      await new Promise((resolve) => setTimeout(resolve, wait()));
      const path = (request.input as { path: string }).path;
      const n = Number(path.split('/').pop());
      return n % 3 === 0 ? { verdict: 'deny', reason: `no ${path} for ${request.agentId}` } : { verdict: 'allow' };
    },
  };
}

const allowed = (n: number): boolean => n % 3 !== 0;

describe('concurrency', () => {
  describe('when 100 calls of one turn run at once', () => {
    it('binds each of 100 concurrent calls of one turn to its own decision (concurrent executor)', async () => {
      const runs: string[] = [];
      const calls = Array.from({ length: 100 }, (_, i) => ({
        name: 'touch',
        input: { path: `/p/${i}` },
        id: `use-${i}`,
      }));
      const agent = scriptedAgent('many', [{ tools: calls }, say('done')], {
        tools: [echoTool(runs)],
        toolExecutor: 'concurrent',
      });
      const gate = scrambledGate(7);
      install(agent, { gate });
      const results = watchToolResults(agent);
      await agent.invoke('go');

      const expectedRuns = calls.map((_, i) => i).filter(allowed);
      expect(runs.sort()).toEqual(expectedRuns.map((i) => `many:/p/${i}`).sort());
      expect(gate.seen.map((r) => `${r.toolUseId}=${(r.input as { path: string }).path}`).sort()).toEqual(
        calls.map((c) => `${c.id}=${c.input.path}`).sort(),
      );
      // Every result in the history answers its own tool use: its text names that use's own path.
      const blocks = agent.messages.flatMap((m) => m.content).filter((c) => c.type === 'toolResultBlock');
      expect(blocks).toHaveLength(100);
      for (const block of blocks) {
        const i = Number(block.toolUseId.slice('use-'.length));
        const text = block.content.map((x) => ('text' in x ? x.text : JSON.stringify(x))).join('|');
        if (allowed(i)) {
          expect(block.status).toBe('success');
          expect(text).toBe(`touched /p/${i}`);
        } else {
          expect(block.status).toBe('error');
          expect(text).toBe(`[gate] BLOCKED: no /p/${i} for many | tool=<touch>, agent=<many>`);
        }
      }
      expect(results).toHaveLength(100);
    });
  });
  describe('when 10 graphs run in parallel under one shared gate', () => {
    it('keeps them apart: no cross-talk between calls', async () => {
      const runs: string[] = [];
      const gate = scrambledGate(11);
      const graphs = Array.from({ length: 10 }, (_, g) => {
        const agents = [0, 1].map((k) => {
          const calls = Array.from({ length: 6 }, (_, i) => ({
            name: 'touch',
            input: { path: `/g${g}/a${k}/${i}` },
          }));
          return scriptedAgent(`g${g}-a${k}`, [{ tools: calls }, say('done')], {
            tools: [echoTool(runs)],
            toolExecutor: k === 0 ? 'concurrent' : 'sequential',
          });
        });
        return new Graph({ id: `graph-${g}`, nodes: agents, edges: [[agents[0]!.id, agents[1]!.id]] });
      });
      for (const graph of graphs) installMultiagent(graph, { gate });
      const outcomes = await Promise.all(graphs.map((graph) => runOrchestrator(graph)));

      expect(outcomes.map((o) => o.status)).toEqual(Array(10).fill('COMPLETED'));
      const expected: string[] = [];
      for (let g = 0; g < 10; g++)
        for (const k of [0, 1])
          for (let i = 0; i < 6; i++) if (allowed(i)) expected.push(`g${g}-a${k}:/g${g}/a${k}/${i}`);
      expect(runs.sort()).toEqual(expected.sort());
      // Each request the gate saw names the agent, path and tree whose input it carries.
      expect(gate.seen).toHaveLength(120);
      for (const request of gate.seen) {
        const [, g, a] = /^\/g(\d)\/a(\d)\/\d$/.exec((request.input as { path: string }).path)!;
        expect(request.agentId).toBe(`g${g}-a${a}`);
        expect(request.path).toEqual([`graph-${g}`, `g${g}-a${a}`]);
      }
      expect(new Set(gate.seen.map((r) => `${r.agentId}/${r.toolUseId}`)).size).toBe(120);
    });
  });
});
