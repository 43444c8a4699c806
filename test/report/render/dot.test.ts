/** The Graphviz picture (`--format dot`): orchestrators as clusters, nodes filled by status, balanced braces. */
import { describe, expect, it } from 'vitest';
import { buildLateNodeGraph } from '../../../fixtures/graphs/late-node-graph.js';
import { buildResearchGraph } from '../../../fixtures/graphs/research-graph.js';
import { buildSupportSwarm } from '../../../fixtures/graphs/support-swarm.js';
import { audit, type CoverageNode, CoverageReportSchema } from '../../../src/index.js';
import { summarize } from '../../../src/report/audit.js';
import { renderDot } from '../../../src/report/render/dot.js';
import { STATUS_COLORS } from '../../../src/report/render/picture.js';

describe('renderDot', () => {
  describe('when it draws a graph with a nested swarm', () => {
    it('draws orchestrators as clusters and nodes filled by status, and is balanced', () => {
      const dot = renderDot(audit(buildResearchGraph()));
      expect(dot.startsWith('digraph coverage {\n')).toBe(true);
      expect(dot.trimEnd().endsWith('}')).toBe(true);
      expect((dot.match(/{/g) ?? []).length).toBe((dot.match(/}/g) ?? []).length);
      expect(dot).toContain('subgraph cluster_n0 {');
      expect(dot).toContain('subgraph cluster_n2 {');
      expect(dot).toMatch(
        /n5 \[label="✘ writer\\nagent · ungated", fillcolor="#ffd9d9", color="#c62828", fontcolor="#b71c1c", status="ungated"\];/,
      );
      expect(dot).toContain('n1 -> n3 [lhead=cluster_n2];');
      expect(dot).toContain('n3 -> n5 [ltail=cluster_n2];');
    });
  });
  describe('when the nodes have every status, or are used as tools', () => {
    it('gives every status its own fill colour', () => {
      const fills = new Set(Object.values(STATUS_COLORS).map((c) => c.fill));
      expect(fills.size).toBe(6);
      const late = renderDot(audit(buildLateNodeGraph()));
      expect(late).toMatch(/status="blocked"/);
      expect(late).toContain(STATUS_COLORS.blocked.fill);
      expect(renderDot(audit(buildSupportSwarm()))).toContain(
        'n2 -> n3 [style=dashed, arrowhead=none, color="#777777", label="tool"];',
      );
    });
  });
  describe('when an orchestrator sits under an agent', () => {
    it('hangs an orchestrator found under an agent off that agent by its cluster, with no stray node', () => {
      const node = (path: string[], kind: CoverageNode['kind']): CoverageNode => ({
        path,
        id: path.at(-1)!,
        kind,
        status: 'gated',
        reason: 'is gated',
        tools: [],
        toolsUnknownUntilInit: false,
        warnings: [],
      });
      const nodes = [
        node(['app'], 'graph'),
        node(['app', 'lead'], 'agent'),
        node(['app', 'lead', 'team'], 'swarm'),
        node(['app', 'lead', 'team', 'worker'], 'agent'),
      ];
      const report = CoverageReportSchema.parse({
        schemaVersion: 2,
        mode: 'audit',
        root: { id: 'app', kind: 'graph' },
        nodes,
        edges: [],
        summary: summarize(nodes),
        refusals: [],
        sources: [],
      });
      const dot = renderDot(report);
      expect(dot).toContain('subgraph cluster_n2 {');
      expect(dot).toContain(
        'n1 -> n3 [lhead=cluster_n2, style=dashed, arrowhead=none, color="#777777", label="tool"];',
      );
      // Every name an edge uses is a declared node: DOT would otherwise invent one.
      const declared = new Set([...dot.matchAll(/^\s*(n\d+(?:_empty)?) \[label=/gm)].map((m) => m[1]));
      for (const [, tail, head] of dot.matchAll(/^\s*(\S+) -> (\S+)/gm)) {
        expect(declared).toContain(tail);
        expect(declared).toContain(head);
      }
    });
  });
});
