/**
 * Two copies of gate-audit in one process (an app's and a library's): a LangGraph tree one copy gated reads gated
 * to the other, from the mark every copy shares; the other copy's install with the same gate adds nothing (the
 * tool still runs once, under one gate), and with another gate is refused. The second copy here is the built
 * `dist/` beside the tests' `src/`: two module instances, as two installed copies are.
 */
import { describe, expect, it } from 'vitest';
import { allowAll, audit, type Gate, GateConflictError, installMultiagent } from '../../../src/index.js';
import { askingFor, recordingTool, toolNodeGraph } from '../../helpers/langgraph.js';

interface OtherCopy {
  installMultiagent(graph: unknown, options: { gate: Gate }): unknown[];
  audit(graph: unknown): { summary: { gated: number; ungated: number } };
}

const other = (await import('../../../dist/index.js')) as unknown as OtherCopy;

describe('installMultiagent and audit on a LangGraph tree', () => {
  describe('when another copy of gate-audit gated the tree', () => {
    it('reads gated, and the same gate installed again adds nothing: the tool runs once', async () => {
      const ran: string[] = [];
      const graph = toolNodeGraph('g', [recordingTool('rm', ran)]);
      const gate = allowAll();
      expect(other.installMultiagent(graph, { gate })).toHaveLength(1);
      expect(audit(graph).summary).toMatchObject({ ungated: 0, gated: other.audit(graph).summary.gated });
      expect(audit(graph).summary.gated).toBeGreaterThan(0);
      expect(installMultiagent(graph, { gate })).toEqual([]);
      await graph.invoke(askingFor({ name: 'rm', path: '/x' }));
      expect(ran).toEqual(['rm({"path":"/x"})']);
    });

    it('refuses another gate, naming the one the tree carries', () => {
      const graph = toolNodeGraph('g', [recordingTool('rm', [])]);
      other.installMultiagent(graph, { gate: allowAll() });
      const refusing: Gate = { name: 'other', decide: () => ({ verdict: 'deny', reason: 'no' }) };
      expect(() => installMultiagent(graph, { gate: refusing })).toThrow(GateConflictError);
      expect(() => installMultiagent(graph, { gate: refusing })).toThrow(/allow-all/);
    });

    it('reads ungated again once a member the mark names was replaced', () => {
      const graph = toolNodeGraph('g', [recordingTool('rm', [])]);
      other.installMultiagent(graph, { gate: allowAll() });
      const node = (graph as unknown as { nodes: Record<string, { bound: object }> }).nodes.tools!.bound;
      Object.defineProperty(node, 'runTool', { value: () => undefined, configurable: true, writable: true });
      expect(audit(graph).summary.ungated).toBeGreaterThan(0);
    });
  });
});
