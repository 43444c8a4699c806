/** The Mermaid picture (`--format mermaid`): orchestrators as subgraphs, a class and colour per status. */
import { describe, expect, it } from 'vitest';
import { buildLateNodeGraph } from '../../../fixtures/graphs/late-node-graph.js';
import { buildMixedGraph } from '../../../fixtures/graphs/mixed-graph.js';
import { buildResearchGraph } from '../../../fixtures/graphs/research-graph.js';
import { buildSupportSwarm } from '../../../fixtures/graphs/support-swarm.js';
import { buildRemoteGraph } from '../../../fixtures/graphs/remote-graph.js';
import { audit } from '../../../src/index.js';
import { renderMermaid } from '../../../src/report/render/mermaid.js';
import { STATUS_COLORS } from '../../../src/report/render/picture.js';

describe('renderMermaid', () => {
  describe('when it draws a graph with a nested swarm', () => {
    it('draws orchestrators as subgraphs, nodes with their status class, and the graph edges', () => {
      const chart = renderMermaid(audit(buildResearchGraph()));
      const lines = chart.split('\n');
      expect(lines[0]).toBe('flowchart LR');
      expect(lines).toContain('  subgraph n0["✘ research<br/>graph · ungated"]');
      expect(lines).toContain('    subgraph n2["✘ research-team<br/>swarm · ungated"]');
      expect(lines).toContain('      n3["✘ searcher<br/>agent · ungated"]:::ungated');
      expect(lines.filter((l) => l.trim() === 'end')).toHaveLength(2);
      expect(lines).toContain('  n1 --> n2');
      expect(lines).toContain('  n2 --> n5');
      expect(lines).toContain(
        `  style n0 fill:${STATUS_COLORS.ungated.fill},stroke:${STATUS_COLORS.ungated.stroke},color:${STATUS_COLORS.ungated.text}`,
      );
      for (const status of ['gated', 'ungated', 'ungateable', 'blocked'])
        expect(chart).toContain(`classDef ${status} fill:`);
    });
  });
  describe('when the nodes have every status, or are used as tools', () => {
    it('colours each status apart and links agents used as tools', () => {
      const support = renderMermaid(audit(buildSupportSwarm()));
      expect(support).toContain('n2 -. tool .-> n3');
      expect(renderMermaid(audit(buildMixedGraph()))).toMatch(/n1\["✔ collector<br\/>agent · gated"\]:::gated/);
      expect(renderMermaid(audit(buildRemoteGraph()))).toMatch(
        /\["⊘ partner-agent<br\/>remote · ungateable"\]:::ungateable/,
      );
      expect(renderMermaid(audit(buildLateNodeGraph()))).toMatch(/\["■ drafter<br\/>agent · blocked"\]:::blocked/);
    });
  });
});
