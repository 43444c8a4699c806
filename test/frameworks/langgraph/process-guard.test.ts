/**
 * The process guard's stand on LangGraph, in this test file's own module graph (the scenario process of
 * `test/enforce/process-guard.langgraph.test.ts` shows it end to end): each copy's `Pregel` module is told by its
 * package and place (`package.test.ts`), and a graph starting a run asks the judge (a run inside a gated run too:
 * the scenario shows an agent a middleware hook invokes refused).
 */
import { Pregel } from '@langchain/langgraph/pregel';
import { describe, expect, it } from 'vitest';
import { allowAll, GateFailedError, installMultiagent } from '../../../src/index.js';
import { guardPregel } from '../../../src/frameworks/langgraph/process-guard.js';
import { settle } from '../../helpers/runs.js';
import { askingFor, recordingTool, toolNodeGraph } from '../../helpers/langgraph.js';

describe('guardPregel', () => {
  describe('when a graph starts a run', () => {
    it('refuses a root run its judge refuses, before the first node; a gated graph is judged at its start too', async () => {
      const judged: string[] = [];
      const refused = new Set(['loose', 'gated-but-refused']);
      expect(
        guardPregel(Pregel, (graph) => {
          const name = String((graph as { name?: unknown }).name);
          judged.push(name);
          return refused.has(name) ? `graph "${name}" is unguarded` : undefined;
        }),
      ).toBe(true);
      expect(guardPregel(Pregel, () => undefined)).toBe(true);
      expect(guardPregel(undefined, () => undefined)).toBe(false);
      const ran: string[] = [];
      const loose = toolNodeGraph('loose', [recordingTool('rm', ran)]);
      expect(await settle(loose.invoke(askingFor({ name: 'rm', path: '/a' })))).toBeInstanceOf(GateFailedError);
      const gated = toolNodeGraph('gated', [recordingTool('rm', ran)]);
      installMultiagent(gated, { gate: allowAll() });
      expect(await settle(gated.invoke(askingFor({ name: 'rm', path: '/b' })))).toBeUndefined();
      const refusedGated = toolNodeGraph('gated-but-refused', [recordingTool('rm', ran)]);
      installMultiagent(refusedGated, { gate: allowAll() });
      expect(await settle(refusedGated.invoke(askingFor({ name: 'rm', path: '/c' })))).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual(['rm({"path":"/b"})']);
      expect(judged).toContain('loose');
      expect(judged).toContain('gated-but-refused');
    });
  });
});
