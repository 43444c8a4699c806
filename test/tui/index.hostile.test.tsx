import fc from 'fast-check';
import { render } from 'ink-testing-library';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildMixedGraph } from '../../fixtures/graphs/mixed-graph.js';
import { audit, type CoverageNode, type CoverageReport } from '../../src/index.js';
import { summarize } from '../../src/report/audit.js';
import { STATUS_GLYPH } from '../../src/report/render/glyphs.js';
import { hasHiddenCharacters } from '../../src/escape.js';
import { CoverageApp } from '../../src/tui/CoverageApp.js';
import { hostileReport, SGR } from '../helpers/hostile-report.js';

type Rendered = ReturnType<typeof render>;

const GLYPHS = Object.values(STATUS_GLYPH).join('');
const ROW = new RegExp(`^[> ][${GLYPHS}] `);
const rowsOf = (frame: string): string[] => frame.split('\n').filter((line) => ROW.test(line));
const plain = (app: Rendered): string => stripVTControlCharacters(app.lastFrame() ?? '');

function withNodes(nodes: CoverageNode[], base: CoverageReport = audit(buildMixedGraph())): CoverageReport {
  return { ...base, nodes, edges: [], summary: summarize(nodes), refusals: [] };
}

const node = (path: string[], status: CoverageNode['status'], extra: Partial<CoverageNode> = {}): CoverageNode => ({
  path,
  id: path.at(-1)!,
  kind: 'agent',
  status,
  reason: `is ${status}`,
  tools: [],
  toolsUnknownUntilInit: false,
  warnings: [],
  ...extra,
});

describe('CoverageApp', () => {
  describe('when the report holds hostile data', () => {
    it("a carriage return in an id cannot rewrite its row's ✘ to ✔", () => {
      const forged = 'publisher\r✔     publisher agent      gated       GatePlugin installs the gate';
      const report = withNodes([
        node(['pricing'], 'gated', { kind: 'graph' }),
        node(['pricing', forged], 'ungated', { reason: 'runs its tools without a gate\r✔ fine' }),
      ]);
      const app = render(<CoverageApp report={report} color={false} width={120} height={30} />);
      const frame = app.lastFrame() ?? '';
      expect(frame).not.toContain('\r');
      const rows = rowsOf(frame);
      expect(rows).toHaveLength(2);
      expect(rows[1]).toMatch(/^>✘ {5}publisher\\r✔/);
      expect(frame).toContain('path     pricing › publisher\\r✔');
      app.unmount();
    });

    it('shows every node once with its own glyph, and no byte of a control sequence, for any data (property)', () => {
      fc.assert(
        fc.property(hostileReport({ maxNodes: 8 }), fc.boolean(), (report, color) => {
          const app = render(<CoverageApp report={report} color={color} width={100} height={70} />);
          const raw = app.lastFrame() ?? '';
          app.unmount();
          // Only ink's own colour and style sequences may be there; strip them, then nothing may be left.
          const frame = raw.replace(SGR, '');
          expect(frame.split('\n').find((line) => hasHiddenCharacters(line))).toBeUndefined();
          const rows = rowsOf(frame);
          expect(rows).toHaveLength(report.nodes.length);
          expect(rows.map((r) => r[1]).sort()).toEqual(report.nodes.map((n) => STATUS_GLYPH[n.status]).sort());
        }),
        { numRuns: 25 },
      );
    });
  });

  describe('when a node carries a gate', () => {
    it('shows the gate of the selected node in the detail pane, with its full id', () => {
      const id = 'a'.repeat(64);
      const report = withNodes([
        node(['team'], 'gated', { kind: 'graph', gate: { name: 'policy', id } }),
        node(['team', 'writer'], 'gated', { gate: { name: 'custom\u202e', id: 'g-1', perProcess: true } }),
      ]);
      const app = render(<CoverageApp report={report} color={false} width={100} height={30} />);
      expect(plain(app)).toContain(`gate     policy · id ${id}`);
      app.stdin.write('j');
      return (async () => {
        for (let i = 0; i < 200 && !plain(app).includes('gate     custom'); i++)
          await new Promise((r) => setImmediate(r));
        expect(plain(app)).toContain('gate     custom\\u202e · id g-1 (per-process id)');
        app.unmount();
      })();
    });
  });

  describe('when nodes are accepted or attested', () => {
    it('an accepted node has its glyph, its reason and its own count, apart from coverage', () => {
      const report = withNodes([
        node(['team'], 'gated', { kind: 'graph' }),
        node(['team', 'writer'], 'gated'),
        node(['team', 'partner'], 'accepted', { kind: 'remote', reason: 'accepted: vendor gates it on their side' }),
      ]);
      const app = render(<CoverageApp report={report} color={false} width={100} height={30} />);
      const frame = plain(app);
      expect(frame).toContain('100% coverage of 1 tool-running node · nothing to fix');
      expect(frame).toContain('tool-running ✔ 1 gated  ◌ 1 accepted (not counted) · orchestrators ✔ 1 gated');
      expect(rowsOf(frame).find((r) => r.includes('partner'))).toMatch(
        /^>◌ {5}partner +remote +accepted +accepted: vendor gates it/,
      );
      app.unmount();
    });

    it('never reads as a contradiction: an attested 13th node, an ungated orchestrator over a gated agent', () => {
      const attested = withNodes([
        ...Array.from({ length: 12 }, (_, i) => node([`a${i}`], 'gated')),
        node(['custom'], 'attested', { kind: 'custom' }),
      ]);
      let app = render(<CoverageApp report={attested} color={false} width={100} height={40} />);
      expect(plain(app)).toContain('100% coverage of 13 tool-running nodes · nothing to fix');
      expect(plain(app)).toContain('tool-running ✔ 12 gated  ◇ 1 attested');
      expect(plain(app)).not.toMatch(/12\/13/);
      app.unmount();
      const guardless = withNodes([node(['g'], 'ungated', { kind: 'graph' }), node(['g', 'a'], 'gated')]);
      app = render(<CoverageApp report={guardless} color={false} width={100} height={30} />);
      expect(plain(app)).toContain('100% coverage of 1 tool-running node · 1 to fix');
      expect(plain(app)).toContain('tool-running ✔ 1 gated · orchestrators ✘ 1 ungated');
      app.unmount();
    });
  });

  describe('when the report bundles several modules', () => {
    it("a bundle of several modules names each root's module, in the tree and in the detail", () => {
      const nodes = [
        node(['src/a.graph.ts#graph', 'pricing'], 'ungated', { kind: 'graph' }),
        node(['src/a.graph.ts#graph', 'pricing', 'writer'], 'gated'),
        node(['src/b.ts#team', 'pricing'], 'gated', { kind: 'swarm' }),
      ];
      const report: CoverageReport = {
        ...withNodes(nodes),
        root: { id: 'gate-audit', kind: 'bundle' },
        sources: [
          { module: 'src/a.graph.ts', export: 'graph', path: ['src/a.graph.ts#graph'], factory: false },
          { module: 'src/b.ts', export: 'team', path: ['src/b.ts#team'], factory: true },
        ],
      };
      const app = render(<CoverageApp report={report} color={false} width={120} height={30} />);
      const frame = plain(app);
      expect(frame).toContain('gate-audit audit · gate-audit (bundle) · 2 modules');
      const rows = rowsOf(frame);
      expect(rows[0]).toMatch(/^>✘ ▾ pricing {2}\(src\/a\.graph\.ts#graph\)/);
      expect(rows[2]).toMatch(/^ ✔ {3}pricing {2}\(src\/b\.ts#team, factory\)/);
      expect(frame).toContain('module   src/a.graph.ts#graph');
      app.unmount();
    });
  });

  describe('when started quiet', () => {
    it('starts with only the nodes that are not gated', () => {
      const app = render(<CoverageApp report={audit(buildMixedGraph())} color={false} width={100} height={24} quiet />);
      const frame = plain(app);
      expect(frame).toContain('not gated only');
      expect(rowsOf(frame)).toHaveLength(2);
      app.unmount();
    });
  });
});
