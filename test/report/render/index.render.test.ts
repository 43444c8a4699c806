/**
 * The map of renderers itself: the formats it registers by name, and summaries held the same across the
 * formats that print one. Each renderer's own tests are in its file (text.test.ts, markdown.test.ts, …).
 */
import { describe, expect, it } from 'vitest';
import { isFormatName, RENDERERS } from '../../../src/report/render/index.js';
import { agentNode, reportOf } from '../../helpers/reports.js';

describe('renderers', () => {
  describe('when looked up by name', () => {
    it('are registered by name', () => {
      expect(Object.keys(RENDERERS)).toEqual([
        'text',
        'json',
        'markdown',
        'sarif',
        'junit',
        'mermaid',
        'dot',
        'github',
      ]);
      expect(isFormatName('sarif')).toBe(true);
      expect(isFormatName('toString')).toBe(false);
    });
  });

  describe('when a summary could read as a contradiction', () => {
    it('an ungated orchestrator over a gated agent: the orchestrator is counted apart, one to fix', () => {
      const report = reportOf([agentNode(['g'], 'ungated', { kind: 'graph' }), agentNode(['g', 'a'], 'gated')]);
      const line = RENDERERS.text(report, {}).trimEnd().split('\n').at(-1);
      expect(line).toBe(
        'coverage 100% of 1 tool-running node (1 gated) · 1 orchestrator (1 ungated) · 2 nodes, 1 to fix',
      );
      expect(RENDERERS.markdown(report, {})).toContain('## gate-audit audit: `g` ✘ not fully gated: 1 to fix');
    });

    it('an attested 13th node: 13 of 13 covered, nothing to fix, never "12/13 gated"', () => {
      const report = reportOf([
        ...Array.from({ length: 12 }, (_, i) => agentNode([`a${i}`], 'gated')),
        agentNode(['custom'], 'attested', { kind: 'custom' }),
      ]);
      const text = RENDERERS.text(report, {});
      expect(text).toContain(
        'coverage 100% of 13 tool-running nodes (12 gated, 1 attested) · 13 nodes, nothing to fix',
      );
      expect(text).not.toMatch(/12\/13/);
      expect(RENDERERS.markdown(report, {})).toMatch(/✔ nothing to fix \(1 attested\)\n/);
    });

    it('a report whose summary disagrees with its nodes renders the nodes', () => {
      const honest = reportOf([agentNode(['g'], 'gated', { kind: 'graph' }), agentNode(['g', 'a'], 'ungated')]);
      const lying = { ...honest, summary: { ...honest.summary, ungated: 0, gated: 2, coverage: 1 } };
      for (const format of ['text', 'markdown', 'github'] as const) {
        expect(RENDERERS[format](lying, {})).toMatch(/coverage 0%(\*\*|25)? of 1 tool-running node \(1 ungated\)/i);
      }
    });
  });
});
